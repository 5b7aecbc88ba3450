/**
 * `pm <files resource> download`: each file's record read, then its bytes fetched into place and
 * checked (files.ts). Bytes never go to a terminal.
 */
import { basename, join, resolve } from 'node:path';
import { visible } from '../../../core/redact.js';
import type { ResourceDef } from '../../../resources/types.js';
import { usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { resolveUuid } from '../../uuids.js';
import { describeApiError } from '../../api-errors.js';
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
  if (o.dir !== undefined) process.getBuiltinModule('node:fs').mkdirSync(resolve(f.cwd, o.dir), { recursive: true });
  const s = await f.session();
  for (const input of o.uuids) {
    const uuid = await resolveUuid(s, r, input, '<uuid>');
    let rec: Record<string, unknown>;
    try {
      rec = await s.client.get(r, uuid);
    } catch (e) {
      throw describeApiError(e, r);
    }
    const name = safeName(String(rec.name), uuid);
    const dest = o.to === '-' ? '-' : resolve(f.cwd, o.to ?? join(o.dir ?? '.', name));
    await downloadFile(f, s, r, rec, dest, o.clobber);
    if (dest !== '-') {
      f.io.stdout.write(`${dest}\n`);
      f.io.stderr.write(`Downloaded ${visible(name)} (${rec.size} bytes, SHA-256 checked) to ${dest}.\n`);
    }
  }
}

/** A file's name as a place on disk: its last path part, no control characters; the uuid when nothing usable is left. */
function safeName(name: string, uuid: string): string {
  const base = basename(name.replace(/\\/g, '/')).replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
  return base === '' || base === '.' || base === '..' ? uuid : base;
}
