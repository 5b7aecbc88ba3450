/**
 * The bytes of files in `pm export` and `pm import`: each file beside the NDJSON, in a folder
 * named after its resource, under its record's uuid (`attachments/<uuid>`); checked by its SHA-256
 * both ways. An import uploads a file under its parent as it was, once: the uuid map of the
 * import (transfer.ts) says which are done.
 */
import { lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { inputFields, resourceByPath } from '../../../resources/index.js';
import type { ResourceDef } from '../../../resources/types.js';
import type { Deps } from '../../context.js';
import { CliError, EXIT } from '../../errors.js';
import type { Session } from '../../session.js';
import { downloadFile, sha256Of, uploadFile } from './files.js';

type Rec = Record<string, unknown>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Where an exported file's bytes are: never outside the folder (its uuid is checked to be one). */
function pathOf(dir: string, r: ResourceDef, rec: Rec, where: string): string {
  const uuid = String(rec.uuid);
  if (!UUID.test(uuid)) throw new CliError(EXIT.usage, `${where}: its uuid ${JSON.stringify(rec.uuid)} is not a uuid.`);
  return join(dir, r.path, uuid.toLowerCase());
}

/** Downloads the bytes of every exported record of `r` beside its NDJSON, each checked. */
export async function exportFiles(deps: Pick<Deps, 'io'>, s: Session, r: ResourceDef, rows: Rec[], dir: string) {
  if (!rows.length) return;
  mkdirSync(join(dir, r.path), { recursive: true });
  for (const rec of rows) await downloadFile(deps, s, r, rec, pathOf(dir, r, rec, r.path), true);
}

/**
 * Uploads an exported file under its (new) parent: its bytes must be the ones the export
 * recorded (SHA-256), and a file of its own (a symbolic link is never followed).
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
  let size: number;
  try {
    const st = lstatSync(path);
    if (!st.isFile()) throw new CliError(EXIT.usage, `${where}: ${path} is not a file (a link is never followed).`);
    size = st.size;
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(EXIT.usage, `${where}: the file's bytes are not in the export (${path}).`);
  }
  const digest = await sha256Of(path);
  if (digest !== rec.sha256)
    throw new CliError(
      EXIT.usage,
      `${where}: ${path} is not the file that was exported (its SHA-256 is ${digest}, the export says ${rec.sha256}).`,
    );
  // Its description and expiry (ours) go with it; what the server makes (size, digest) it makes again.
  const fields = Object.fromEntries(
    inputFields(r)
      .filter((x) => x.name !== 'name' && typeof rec[x.name] === 'string')
      .map((x) => [x.name, String(rec[x.name])]),
  );
  const type = typeof rec.mime_type === 'string' ? rec.mime_type : undefined;
  return uploadFile(
    deps,
    s,
    r,
    { resource: resourceByPath(parent.resource), uuid: parent.uuid },
    { path, size },
    String(rec.name),
    fields,
    type,
  );
}
