/**
 * The spool files a process holds open (src/server/spool.ts): an upload's bytes wait in a file
 * whose name is removed as soon as it is opened, so only the process's open files show it
 * (Linux's /proc/PID/fd: "DIR/.pm-upload-UUID (deleted)").
 */
import { readdirSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The sizes of the spool files in `dir` that process `pid` holds open. */
export function openSpoolFiles(dir: string, pid: number | 'self' = 'self'): number[] {
  const fds = join('/proc', String(pid), 'fd');
  const sizes: number[] = [];
  for (const fd of readdirSync(fds)) {
    let target: string;
    try {
      target = readlinkSync(join(fds, fd));
      if (target.startsWith(join(dir, '.pm-upload-'))) sizes.push(statSync(join(fds, fd)).size);
    } catch {
      // Closed while it was looked at.
    }
  }
  return sizes;
}
