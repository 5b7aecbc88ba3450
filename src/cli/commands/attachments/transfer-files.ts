/**
 * The bytes of files in `pm export` and `pm import`: each file beside the NDJSON, in a folder
 * named after its resource, under its record's uuid (`attachments/<uuid>`); checked by its SHA-256
 * both ways. An import uploads a file under its parent as it was, once: the uuid map of the
 * import (transfer.ts) says which are done.
 */
import { closeSync, fstatSync, mkdirSync } from 'node:fs';
import { inputFields, resourceByPath } from '../../../resources/index.js';
import type { ResourceDef } from '../../../resources/types.js';
import type { Deps } from '../../context.js';
import { CliError, EXIT } from '../../errors.js';
import type { Session } from '../../session.js';
import { inside, isUuid } from '../../untrusted.js';
import { openOwnFile } from '../transfer/files.js';
import { downloadFile, sha256Of, uploadFile } from './files.js';

type Rec = Record<string, unknown>;

/** Where an exported file's bytes are: `<dir>/<resource>/<uuid>`, never outside the folder (its uuid is checked to be one). */
function pathOf(dir: string, r: ResourceDef, rec: Rec, where: string): string {
  if (!isUuid(rec.uuid))
    throw new CliError(EXIT.usage, `${where}: its uuid ${JSON.stringify(rec.uuid)} is not a uuid.`);
  return inside(dir, r.path, rec.uuid.toLowerCase());
}

/** Folders an export makes: its owner's alone, as the files in them (0600). */
export const PRIVATE_DIR = 0o700;

/** Downloads the bytes of every exported record of `r` beside its NDJSON, each checked, each 0600. */
export async function exportFiles(deps: Pick<Deps, 'io'>, s: Session, r: ResourceDef, rows: Rec[], dir: string) {
  if (!rows.length) return;
  mkdirSync(inside(dir, r.path), { recursive: true, mode: PRIVATE_DIR });
  for (const rec of rows)
    await downloadFile(deps, s, r, rec, pathOf(dir, r, rec, r.path), { clobber: true, mode: 0o600 });
}

/**
 * Uploads an exported file under its (new) parent: its bytes must be the ones the export
 * recorded (SHA-256), and a file of its own. It is opened once, never through a symbolic link
 * (O_NOFOLLOW), and checked, hashed and sent through that one descriptor: a link swapped in for
 * it meanwhile changes nothing of what is read.
 */
export async function importFile(
  deps: Pick<Deps, 'io'>,
  s: Session,
  r: ResourceDef,
  rec: Rec,
  parent: { readonly resource: string; readonly uuid: string },
  dir: string,
  where: string,
): Promise<Rec> {
  const path = pathOf(dir, r, rec, where);
  const fd = openOwnFile(path, (code) => new CliError(EXIT.usage, `${where}: ${path} cannot be read (${code}).`));
  if (fd === undefined) throw new CliError(EXIT.usage, `${where}: the file's bytes are not in the export (${path}).`);
  if (fd === 'link') throw new CliError(EXIT.usage, `${where}: ${path} is not a file (a link is never followed).`);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new CliError(EXIT.usage, `${where}: ${path} is not a file (a link is never followed).`);
    const digest = await sha256Of(path, fd);
    if (digest !== rec.sha256)
      throw new CliError(
        EXIT.usage,
        `${where}: ${path} is not the file that was exported (its SHA-256 is ${digest}, the export says ${String(rec.sha256)}).`,
      );
    // Its description and expiry (ours) go with it; what the server makes (size, digest) it makes again.
    const fields = Object.fromEntries(
      inputFields(r)
        .filter((x) => x.name !== 'name' && typeof rec[x.name] === 'string')
        .map((x) => [x.name, String(rec[x.name])]),
    );
    const type = typeof rec.mime_type === 'string' ? rec.mime_type : undefined;
    return await uploadFile(
      deps,
      s,
      r,
      { resource: resourceByPath(parent.resource), uuid: parent.uuid },
      { path, size: st.size, fd },
      String(rec.name),
      fields,
      type,
    );
  } finally {
    closeSync(fd);
  }
}
