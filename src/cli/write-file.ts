/**
 * Every file the CLI writes (the uuid map, --failed files, export files) goes through here: to a
 * new file in the same folder, created exclusively with the mode it should have, then renamed
 * into place. So a file is never written through a link planted where it goes, never keeps the
 * mode of a file that was there, and is never seen half written.
 */
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';

/** Records are personal data (names, emails, phone numbers): readable by their owner only. */
const PRIVATE = 0o600;

export function writeFileAtomic(path: string, text: string): void {
  // Not crypto's random bytes: loading node:crypto costs every run; 'wx' refuses a name taken.
  const tmp = `${path}.${process.pid}.${Date.now().toString(36)}${Math.random().toString(36).slice(2)}.tmp`;
  const fd = openSync(tmp, 'wx', PRIVATE);
  try {
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
