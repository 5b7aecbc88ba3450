/** `pm import`: the records of a pm export created on this server, old uuids mapped to new ones. */
import { closeSync, existsSync, fstatSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isObject } from '../../../core/json.js';
import { isCodeValue } from '../../../core/kinds.js';
import { jsonText } from '../../../core/redact.js';
import { sameText } from '../../../core/match.js';
import { CUSTOM_VALUES_KEY, DEPENDENCY_ORDER, inputFields } from '../../../resources/index.js';
import type { ResourceDef } from '../../../resources/types.js';
import type { Deps } from '../../context.js';
import { CliError, EXIT, usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import type { Session } from '../../session.js';
import { inside, isUuid, serverUuid } from '../../untrusted.js';
import { writeFileAtomic } from '../../write-file.js';
import { describeApiError } from '../../api-errors.js';
import { importFile } from '../attachments/transfer-files.js';
import { withUnabortedSession } from '../shared.js';
import { all } from './export-run.js';
import { fileOf, MAP_FILE, openOwnFile, summary } from './files.js';

type Rec = Record<string, unknown>;

export interface ImportOptions {
  readonly f: Factory;
  /** --dir, as given (messages name it so). */
  readonly dir: string;
}

/** The text of a file of the export folder (openOwnFile): undefined when there is none, `link` for a link. */
function readOwnFile(file: string): string | undefined | 'link' {
  const fd = openOwnFile(file, (code) => usageError(`${file} cannot be read (${code}).`));
  if (fd === undefined || fd === 'link') return fd;
  try {
    if (!fstatSync(fd).isFile()) throw usageError(`${file} is not a file: pm import reads the files pm export wrote.`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** The records of an export file, each with its line in the file. */
function readNdjson(file: string): { line: number; rec: Rec }[] {
  const text = readOwnFile(file);
  if (text === undefined) return [];
  if (text === 'link')
    throw usageError(
      `${file} is a symbolic link: pm import reads only the files pm export wrote, never a link (it could point anywhere).`,
      'Copy the file itself into the folder.',
    );
  return text.split(/\r?\n/).flatMap((text, i) => {
    if (text.trim() === '') return [];
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      throw usageError(`${file} line ${i + 1}: not valid JSON: ${(e as Error).message}.`);
    }
    if (!isObject(v)) throw usageError(`${file} line ${i + 1}: each line must be a JSON object.`);
    return [{ line: i + 1, rec: v }];
  });
}

/** The body of a record as a create takes it: its input fields only. */
function inputOf(r: ResourceDef, rec: Rec): Rec {
  const body: Rec = {};
  for (const f of inputFields(r)) if (rec[f.name] !== undefined) body[f.name] = rec[f.name];
  return body;
}

/**
 * The record already on the server that a create clashed with on one of the description's unique
 * keys (a custom field's entity type and name: a 409) or on the fields its records are known by
 * (a status's type and label, ASCII case aside: a 422 naming the label): it is used instead.
 */
async function existing(s: Session, r: ResourceDef, rec: Rec, status: number | undefined): Promise<Rec | undefined> {
  const plain = (v: unknown) => (isCodeValue(v) ? v.code : v);
  const keys = status === 409 ? (r.unique ?? []) : status === 422 && r.labelledBy ? [r.labelledBy] : [];
  for (const key of keys) {
    if (key.some((k) => rec[k] === undefined || rec[k] === null)) continue;
    const q = new URLSearchParams({ per_page: '100' });
    for (const k of key) q.set(k, String(plain(rec[k])));
    const label = key === r.labelledBy ? key[key.length - 1] : undefined;
    const equal = (x: Rec, k: string) =>
      k === label ? sameText(String(x[k]), String(rec[k])) : plain(x[k]) === plain(rec[k]);
    const same = (await s.client.list(r, q)).records.find((x) => key.every((k) => equal(x, k)));
    if (same) return same;
  }
  return undefined;
}

/**
 * The old-to-new uuids of an earlier import from this folder, if any, checked against the export:
 * each key the uuid of one of its records, each value a uuid. A map that does not fit (crafted,
 * or from another export) would make the import skip records or link them to others.
 */
function readMap(dir: string, exported: ReadonlySet<string>): Record<string, string> {
  const file = join(dir, MAP_FILE);
  const text = readOwnFile(file);
  // Only a file of its own: a link planted in its place is not followed (it is replaced).
  if (text === undefined || text === 'link') return {};
  const anew = 'move it away to import everything anew';
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw usageError(`${file} is not valid JSON (${(e as Error).message}); ${anew}.`);
  }
  if (!isObject(v)) throw usageError(`${file} is not a uuid map; ${anew}.`);
  for (const [from, to] of Object.entries(v)) {
    if (!exported.has(from))
      throw usageError(
        `${file} does not belong to this export: ${jsonText(JSON.stringify(from))} is not the uuid of a record in it; ${anew}.`,
      );
    if (!isUuid(to))
      throw usageError(`${file}: the new uuid of ${from}, ${jsonText(JSON.stringify(to))}, is not a uuid; ${anew}.`);
  }
  return v as Record<string, string>;
}

/**
 * Creates the records of an export, in dependency order. A record that an earlier import from this
 * folder created, and that is still on this server (uuid-map.json says which), is not created
 * again: a second run creates nothing twice, and an interrupted one carries on where it stopped.
 */
async function importAccount(
  s: Session,
  dir: string,
  deps: Deps,
): Promise<{ counts: Record<string, number>; already: number }> {
  // Every file is read before anything is created: a malformed line anywhere stops the import at once.
  const files = DEPENDENCY_ORDER.map((r) => ({ r, records: readNdjson(join(dir, fileOf(r))) }));
  const exported = new Set(
    files
      .flatMap(({ records }) => records.map(({ rec }) => rec.uuid))
      .filter((u): u is string => typeof u === 'string'),
  );
  const map = readMap(dir, exported);
  const counts: Record<string, number> = {};
  let already = 0;
  const save = () => writeFileAtomic(inside(dir, MAP_FILE), `${JSON.stringify(map, null, 2)}\n`);
  try {
    for (const { r, records } of files) {
      let n = 0;
      const present = new Set<string>();
      if (records.some(({ rec }) => typeof rec.uuid === 'string' && map[rec.uuid]))
        for await (const rec of all(s, r)) present.add(String(rec.uuid));
      for (const { line, rec } of records) {
        const where = `${fileOf(r)} line ${line}`;
        const done = typeof rec.uuid === 'string' ? map[rec.uuid] : undefined;
        if (done && present.has(done)) {
          already++;
          continue;
        }
        const body = inputOf(r, rec);
        let parent: { resource: string; uuid: string } | undefined;
        if (r.customValues && Array.isArray(rec[CUSTOM_VALUES_KEY])) body[CUSTOM_VALUES_KEY] = rec[CUSTOM_VALUES_KEY];
        for (const link of r.links ?? []) {
          const old = rec[link.name];
          if (typeof old !== 'string') continue;
          const to = map[old];
          if (!to) throw new CliError(EXIT.api, `${where}: its ${link.name} ${old} was not imported.`);
          body[link.name] = { uuid: to };
        }
        for (const set of r.sets ?? []) {
          const olds = rec[set.name];
          if (!Array.isArray(olds)) continue;
          body[set.name] = olds.map((old) => {
            const to = typeof old === 'string' ? map[old] : undefined;
            if (!to) throw new CliError(EXIT.api, `${where}: its ${set.one} ${old} was not imported.`);
            return { uuid: to };
          });
        }
        if (r.parents) {
          const pp = r.parents.find((p) => typeof rec[p.name] === 'string');
          const old = pp ? String(rec[pp.name]) : undefined;
          if (!pp || !old || !map[old])
            throw new CliError(EXIT.api, `${where}: the ${r.singular}'s parent was not imported.`);
          parent = { resource: pp.target, uuid: map[old] as string };
        }
        let created: Rec;
        try {
          created =
            r.files && parent
              ? await importFile(deps, s, r, rec, parent, dir, where)
              : await s.client.create(r, body, parent);
        } catch (e) {
          const err = describeApiError(e, r);
          // Already there under the same unique key (a custom field's name) or label: use it.
          const same = await existing(s, r, rec, err.status);
          if (same) created = same;
          else if (err.status === 409 && r.unique) throw err;
          else throw new CliError(err.exitCode, `${where}: ${err.message}`, { fields: err.fields });
        }
        // The new uuid is the server's: used as a parent's in later requests and kept in the map, so checked first.
        if (typeof rec.uuid === 'string') map[rec.uuid] = serverUuid(created.uuid, `${where}: the new uuid`);
        n++;
        if (deps.signal?.aborted)
          throw new CliError(
            EXIT.interrupted,
            `interrupted after ${n} ${r.plural}; run the same import again to carry on (${join(dir, MAP_FILE)} says what is done).`,
          );
      }
      counts[r.path] = n;
      save();
    }
  } finally {
    // Whatever happened, what was created is in the map: the next run does not create it again.
    save();
  }
  return { counts, already };
}

export async function importRun(o: ImportOptions): Promise<void> {
  const { f } = o;
  const dir = resolve(f.cwd, o.dir);
  if (!DEPENDENCY_ORDER.some((r) => existsSync(join(dir, fileOf(r)))))
    throw usageError(`--dir ${o.dir} holds no pm export (no ${DEPENDENCY_ORDER.map(fileOf).join(', ')}).`);
  await withUnabortedSession(f, async (s) => {
    const { counts, already } = await importAccount(s, dir, f);
    const skipped = already ? `; ${already} already imported from this folder, not created again` : '';
    f.io.stderr.write(`Imported ${summary(counts)}${skipped}; uuid map in ${join(o.dir, MAP_FILE)}.\n`);
  });
}
