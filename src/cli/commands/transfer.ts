/**
 * `pm export` and `pm import`: every record of an account as NDJSON files, and back onto another
 * server (from the embedded default to a team server, say), mapping old uuids to new ones.
 */
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { isObject } from '../../core/json.js';
import { isCodeValue } from '../../core/kinds.js';
import { CUSTOM_VALUES_KEY, DEPENDENCY_ORDER, embedsOf, inputFields, resourceByPath } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import type { Deps } from '../context.js';
import { CliError, EXIT, usageError } from '../errors.js';
import type { Factory } from '../factory.js';
import { inWords } from '../help/text.js';
import type { Session } from '../session.js';
import { writeFileAtomic } from '../write-file.js';
import { exportFiles, importFile } from './attachments/transfer-files.js';
import { countOf, describeApiError, withUnabortedSession } from './shared.js';

type Rec = Record<string, unknown>;

const fileOf = (r: ResourceDef) => `${r.path}.ndjson`;

async function* all(s: Session, r: ResourceDef, query: Record<string, string> = {}): AsyncGenerator<Rec> {
  for await (const page of s.client.pages(r, new URLSearchParams({ per_page: '100', ...query }))) yield* page.records;
}

/**
 * Every record of the account, resource by resource in dependency order. A record as exported:
 * its fields, its custom values as [{name, value}], each linked record by uuid (or null), each set
 * as its members' uuids, and for a record that belongs to a parent (a note), the parent's uuid
 * under the relation's name: records created under a parent do not carry it, so they are listed
 * parent by parent.
 */
async function exportAccount(s: Session, dir: string, deps: Deps): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  /** Exported uuids by path, with each record's counts of its children. */
  const exported = new Map<string, Rec[]>();
  for (const r of DEPENDENCY_ORDER) {
    const rows: Rec[] = [];
    if (r.parents) {
      for (const rel of r.parents) {
        const parent = resourceByPath(rel.target);
        const count = countOf(parent, r);
        for (const p of exported.get(parent.path) ?? []) {
          if (count && !(Number(p[count.name]) > 0)) continue;
          for await (const rec of all(s, r, { [`${rel.name}[uuid]`]: String(p.uuid) }))
            rows.push({ ...rec, [rel.name]: p.uuid });
        }
      }
      const total = (await s.client.list(r, new URLSearchParams({ per_page: '1' }))).pagination.total;
      if (total !== rows.length)
        deps.io.stderr.write(
          `warning: the account has ${total} ${r.plural} but ${rows.length} were found under their parents.\n`,
        );
    } else {
      const embeds = embedsOf(r);
      const query: Record<string, string> = embeds.length ? { embed: embeds.map((e) => e.name).join(',') } : {};
      for await (const rec of all(s, r, query)) {
        const row: Rec = { ...rec };
        // Each embed as a write takes it: custom values as [{name, value}], a linked record by its
        // uuid (or null), a set as its members' uuids.
        for (const e of embeds) {
          if (rec[e.name] === undefined) continue;
          delete row[e.name];
          const data = (rec[e.name] as { data?: unknown }).data;
          if (e.kind === 'custom_values') {
            const values = (data as { name: string; value: string }[] | undefined)?.map((v) => ({
              name: v.name,
              value: v.value,
            }));
            if (values?.length) row[e.name] = values;
          } else if (e.kind === 'one') row[e.name] = (data as Rec | null | undefined)?.uuid ?? null;
          else row[e.name] = ((data as Rec[] | undefined) ?? []).map((x) => x.uuid);
        }
        rows.push(row);
      }
    }
    if (r.files) await exportFiles(deps, s, r, rows, dir);
    exported.set(r.path, rows);
    writeFileAtomic(join(dir, fileOf(r)), rows.map((x) => `${JSON.stringify(x)}\n`).join(''));
    counts[r.path] = rows.length;
  }
  return counts;
}

/**
 * The text of a file of the export folder, undefined when there is none; `link` when it is a
 * symbolic link, which is never followed (O_NOFOLLOW, and lstat where the system has no such
 * flag): a link planted among the files would make pm read, and send, a file from anywhere.
 */
function readOwnFile(file: string): string | undefined | 'link' {
  const isLink = () => {
    try {
      return lstatSync(file).isSymbolicLink();
    } catch {
      return false;
    }
  };
  if (constants.O_NOFOLLOW === undefined && isLink()) return 'link';
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO planted in its place is not waited on (it is refused below).
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if ((code === 'ELOOP' || code === 'EMLINK') && isLink()) return 'link';
    throw usageError(`${file} cannot be read (${code ?? (e as Error).message}).`);
  }
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
 * The record already on the server that a create clashed with (409) on one of the description's
 * unique keys (a custom field's entity type and name): it is used instead.
 */
async function existing(s: Session, r: ResourceDef, rec: Rec): Promise<Rec | undefined> {
  const plain = (v: unknown) => (isCodeValue(v) ? v.code : v);
  for (const key of r.unique ?? []) {
    if (key.some((k) => rec[k] === undefined || rec[k] === null)) continue;
    const q = new URLSearchParams({ per_page: '100' });
    for (const k of key) q.set(k, String(plain(rec[k])));
    const same = (await s.client.list(r, q)).records.find((x) => key.every((k) => plain(x[k]) === plain(rec[k])));
    if (same) return same;
  }
  return undefined;
}

const MAP_FILE = 'uuid-map.json';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
        `${file} does not belong to this export: ${JSON.stringify(from)} is not the uuid of a record in it; ${anew}.`,
      );
    if (typeof to !== 'string' || !UUID.test(to))
      throw usageError(`${file}: the new uuid of ${from}, ${JSON.stringify(to)}, is not a uuid; ${anew}.`);
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
  const save = () => writeFileAtomic(join(dir, MAP_FILE), `${JSON.stringify(map, null, 2)}\n`);
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
          // Already there under the same unique key (a custom field's name): use it.
          const same = err.status === 409 ? await existing(s, r, rec) : undefined;
          if (same) created = same;
          else if (err.status === 409 && r.unique) throw err;
          else throw new CliError(err.exitCode, `${where}: ${err.message}`, { fields: err.fields });
        }
        if (typeof rec.uuid === 'string') map[rec.uuid] = String(created.uuid);
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

const summary = (counts: Record<string, number>) =>
  DEPENDENCY_ORDER.map((r) => `${counts[r.path] ?? 0} ${counts[r.path] === 1 ? r.singular : r.plural}`).join(', ');

export const TRANSFER_COMMANDS = {
  export: 'Write every record of the account as NDJSON files (custom field values and note parents included)',
  import: 'Create the records of a pm export on this server, mapping old uuids to new ones',
};

export function registerTransfer(program: Command, f: Factory): void {
  program
    .command('export')
    .description(TRANSFER_COMMANDS.export)
    .option('--dir <dir>', 'where to write the files', 'pm-export')
    .option('--force', 'write into a folder that already has files')
    .addHelpText(
      'after',
      `
Writes ${inWords(DEPENDENCY_ORDER.map(fileOf))}.

Examples:
  pm export --dir backup
  pm export --dir move && pm --base-url https://pm.example.com import --dir move`,
    )
    .action(async (opts: { dir: string; force?: boolean }) => {
      // A relative folder is the working directory's (the command's, not the process's).
      const dir = resolve(f.cwd, opts.dir);
      if (existsSync(dir) && readdirSync(dir).length && !opts.force)
        throw usageError(`--dir ${opts.dir} is not empty; give another folder, or --force to overwrite its files.`);
      mkdirSync(dir, { recursive: true });
      const { withSession } = await import('../session.js');
      await withSession(f.globals(), f, async (s) => {
        const counts = await exportAccount(s, dir, f).catch((e) => {
          throw describeApiError(e);
        });
        f.io.stderr.write(`Exported ${summary(counts)} to ${opts.dir}.\n`);
      });
    });

  program
    .command('import')
    .description(TRANSFER_COMMANDS.import)
    .requiredOption('--dir <dir>', 'the folder pm export wrote')
    .addHelpText(
      'after',
      `
Records are created in order (${DEPENDENCY_ORDER.map((r) => r.plural).join(', ')}), so that
what refers to another record finds it; the old-to-new uuid map is written to DIR/uuid-map.json.
Run again with that map in the folder, an import creates only what is not on the server yet (an
interrupted import carries on); move the map away to create everything anew. A custom field whose
name already exists on the server is reused. Only the folder's own files are read: a symbolic
link is refused, and so is a map whose uuids are not this export's.

Examples:
  pm --profile team import --dir backup
  pm --base-url https://pm.example.com import --dir move`,
    )
    .action(async (opts: { dir: string }) => {
      const dir = resolve(f.cwd, opts.dir);
      if (!DEPENDENCY_ORDER.some((r) => existsSync(join(dir, fileOf(r)))))
        throw usageError(`--dir ${opts.dir} holds no pm export (no ${DEPENDENCY_ORDER.map(fileOf).join(', ')}).`);
      await withUnabortedSession(f, async (s) => {
        const { counts, already } = await importAccount(s, dir, f).catch((e) => {
          throw describeApiError(e);
        });
        const skipped = already ? `; ${already} already imported from this folder, not created again` : '';
        f.io.stderr.write(`Imported ${summary(counts)}${skipped}; uuid map in ${join(opts.dir, MAP_FILE)}.\n`);
      });
    });
}
