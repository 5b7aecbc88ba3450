/**
 * `pm <files resource> download`: each file's record read, then its bytes fetched into place and
 * checked (files.ts). Bytes never go to a terminal.
 */
import { resolve } from 'node:path';
import { visible } from '../../../core/redact.js';
import type { ResourceDef } from '../../../resources/types.js';
import { usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { resolveUuid } from '../../uuids.js';
import { describeApiError } from '../../api-errors.js';
import { fileName, inside } from '../../untrusted.js';
import { downloadFile } from './files.js';

export interface DownloadOptions {
  readonly f: Factory;
  readonly resource: ResourceDef;
  /** Uuids, or their beginnings. */
  readonly uuids: readonly string[];
  /** One file's destination, or - for standard output. */
  readonly to?: string | undefined;
  readonly dir?: string | undefined;
  readonly clobber: boolean;
}

export async function downloadRun(o: DownloadOptions): Promise<void> {
  const { f, resource: r } = o;
  if (o.to === '-' && f.io.stdout.isTTY)
    throw usageError('--to - would write the bytes of a file to the terminal.', 'Pipe it (| less), or give --to FILE.');
  // A directory named is made, as `mkdir -p` would.
  const dir = resolve(f.cwd, o.dir ?? '.');
  if (o.dir !== undefined) process.getBuiltinModule('node:fs').mkdirSync(dir, { recursive: true });
  const s = await f.session();
  for (const input of o.uuids) {
    const uuid = await resolveUuid(s, r, input, '<uuid>');
    let rec: Record<string, unknown>;
    try {
      rec = await s.client.get(r, uuid);
    } catch (e) {
      throw describeApiError(e, r);
    }
    // The record's name, cleaned, and only ever a name inside the folder (the file's uuid when it has none).
    const name = fileName(rec.name, uuid);
    const dest = o.to === '-' ? '-' : o.to !== undefined ? resolve(f.cwd, o.to) : inside(dir, name);
    await downloadFile(f, s, r, rec, dest, { clobber: o.clobber, mode: 0o644 });
    if (dest !== '-') {
      f.io.stdout.write(`${visible(dest)}\n`);
      f.io.stderr.write(`Downloaded ${visible(name)} (${rec.size} bytes, SHA-256 checked) to ${visible(dest)}.\n`);
    }
  }
}
