/**
 * `pm export` and `pm import`: every record of an account as NDJSON files, and back onto another
 * server (from the embedded default to a team server, say), mapping old uuids to new ones.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { inputFields, resourceByPath } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import type { Deps } from '../context.js';
import { CliError, EXIT, usageError } from '../errors.js';
import { globalsOf } from '../globals.js';
import type { Session } from '../session.js';
import { describeApiError } from './shared.js';

type Rec = Record<string, unknown>;

/** Files in the order they must be imported: what a record refers to comes before it. */
const ORDER = ['custom-fields', 'contacts', 'properties', 'notes', 'reminders'] as const;

const fileOf = (path: string) => `${path}.ndjson`;

/** Custom field values as a write takes them: [{name, value}]. */
function customValues(rec: Rec): { name: string; value: string }[] | undefined {
  const cf = rec.custom_fields as { data?: { name: string; value: string }[] } | undefined;
  const list = cf?.data?.map((v) => ({ name: v.name, value: v.value }));
  return list?.length ? list : undefined;
}

async function* all(s: Session, r: ResourceDef, query: Rec = {}): AsyncGenerator<Rec> {
  const q = new URLSearchParams({ per_page: '100' });
  for (const [k, v] of Object.entries(query)) q.set(k, String(v));
  for await (const page of s.client.pages(r, q)) yield* page.records;
}

async function exportAccount(s: Session, dir: string, deps: Deps): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const write = (path: string, records: Rec[]) => {
    writeFileSync(join(dir, fileOf(path)), records.map((x) => `${JSON.stringify(x)}\n`).join(''));
    counts[path] = records.length;
  };
  const cfs: Rec[] = [];
  for await (const cf of all(s, resourceByPath('custom-fields'))) cfs.push(cf);
  write('custom-fields', cfs);

  const parents: { path: string; uuid: string; notes: number }[] = [];
  for (const path of ['contacts', 'properties'] as const) {
    const r = resourceByPath(path);
    const out: Rec[] = [];
    for await (const rec of all(s, r, { embed: r.embeds?.join(',') ?? '' })) {
      const { custom_fields: _cf, contact, ...rest } = rec;
      const values = customValues(rec);
      const row: Rec = { ...rest, ...(values ? { custom_fields: values } : {}) };
      if (contact !== undefined) row.contact = (contact as { data: Rec | null }).data?.uuid ?? null;
      out.push(row);
      if (Number(rec.num_notes) > 0) parents.push({ path, uuid: String(rec.uuid), notes: Number(rec.num_notes) });
    }
    write(path, out);
  }

  const notes = resourceByPath('notes');
  const noteRows: Rec[] = [];
  for (const p of parents) {
    const parent = resourceByPath(p.path);
    for await (const n of all(s, notes, { [`${parent.singular}[uuid]`]: p.uuid }))
      noteRows.push({ ...n, [parent.singular]: p.uuid });
  }
  const total = (await s.client.list(notes, new URLSearchParams({ per_page: '1' }))).pagination.total;
  if (total !== noteRows.length)
    deps.io.stderr.write(
      `warning: the account has ${total} notes but ${noteRows.length} were found under their parents.\n`,
    );
  write('notes', noteRows);

  const reminders: Rec[] = [];
  for await (const rec of all(s, resourceByPath('reminders'))) reminders.push(rec);
  write('reminders', reminders);
  return counts;
}

function readNdjson(file: string): Rec[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .map((l, i) => {
      try {
        return JSON.parse(l) as Rec;
      } catch (e) {
        throw usageError(`${file} line ${i + 1}: not valid JSON: ${(e as Error).message}.`);
      }
    });
}

/** The body of a record as a create takes it: its input fields only. */
function inputOf(r: ResourceDef, rec: Rec): Rec {
  const body: Rec = {};
  for (const f of inputFields(r)) if (rec[f.name] !== undefined) body[f.name] = rec[f.name];
  return body;
}

async function importAccount(
  s: Session,
  dir: string,
  deps: Deps,
): Promise<{ counts: Record<string, number>; map: Record<string, string> }> {
  const map: Record<string, string> = {};
  const counts: Record<string, number> = {};
  for (const path of ORDER) {
    const r = resourceByPath(path);
    const records = readNdjson(join(dir, fileOf(path)));
    let n = 0;
    for (const [i, rec] of records.entries()) {
      const where = `${fileOf(path)} line ${i + 1}`;
      const body = inputOf(r, rec);
      let parent: { resource: string; uuid: string } | undefined;
      if (r.customValues && Array.isArray(rec.custom_fields)) body.custom_fields = rec.custom_fields;
      if (path === 'properties' && typeof rec.contact === 'string') {
        const to = map[rec.contact];
        if (!to) throw new CliError(EXIT.api, `${where}: its contact ${rec.contact} was not imported.`);
        body.contact = { uuid: to };
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
        created = await s.client.create(r, body, parent);
      } catch (e) {
        const err = describeApiError(e, r);
        // A custom field of the same name is already there: use it.
        if (path === 'custom-fields' && err.status === 409) {
          const q = new URLSearchParams({ name: String(rec.name), per_page: '100' });
          const same = (await s.client.list(r, q)).records.find(
            (x) => x.name === rec.name && (x.entity_type as Rec)?.code === (rec.entity_type as Rec)?.code,
          );
          if (!same) throw err;
          created = same;
        } else
          throw new CliError(err.exitCode, `${where}: ${err.message}`, {
            ...(err.fields ? { fields: err.fields } : {}),
          });
      }
      if (typeof rec.uuid === 'string') map[rec.uuid] = String(created.uuid);
      n++;
      if (deps.signal?.aborted)
        throw new CliError(EXIT.interrupted, `interrupted after ${n} ${path}; see ${join(dir, 'uuid-map.json')}.`);
    }
    counts[path] = n;
    writeFileSync(join(dir, 'uuid-map.json'), `${JSON.stringify(map, null, 2)}\n`);
  }
  return { counts, map };
}

const summary = (counts: Record<string, number>) =>
  ORDER.map((p) => `${counts[p] ?? 0} ${p.replace('-', ' ')}`).join(', ');

export function registerTransfer(program: Command, deps: Deps): void {
  program
    .command('export')
    .description('Write every record of the account as NDJSON files (custom field values and note parents included)')
    .option('--dir <dir>', 'where to write the files', 'pm-export')
    .option('--force', 'write into a folder that already has files')
    .addHelpText(
      'after',
      `
Writes custom-fields.ndjson, contacts.ndjson, properties.ndjson, notes.ndjson and reminders.ndjson.

Examples:
  pm export --dir backup
  pm export --dir move && pm --base-url https://pm.example.com import --dir move`,
    )
    .action(async (opts: { dir: string; force?: boolean }, cmd: Command) => {
      if (existsSync(opts.dir) && readdirSync(opts.dir).length && !opts.force)
        throw usageError(`--dir ${opts.dir} is not empty; give another folder, or --force to overwrite its files.`);
      mkdirSync(opts.dir, { recursive: true });
      const { withSession } = await import('../session.js');
      await withSession(globalsOf(cmd), deps, async (s) => {
        try {
          const counts = await exportAccount(s, opts.dir, deps);
          deps.io.stderr.write(`Exported ${summary(counts)} to ${opts.dir}.\n`);
        } catch (e) {
          throw describeApiError(e);
        }
      });
    });

  program
    .command('import')
    .description('Create the records of a pm export on this server, mapping old uuids to new ones')
    .requiredOption('--dir <dir>', 'the folder pm export wrote')
    .addHelpText(
      'after',
      `
Records are created in order (custom fields, contacts, properties, notes, reminders), so that
what refers to another record finds it; the old-to-new uuid map is written to DIR/uuid-map.json.
A custom field whose name already exists on the server is reused.

Examples:
  pm --profile team import --dir backup
  pm --base-url https://pm.example.com import --dir move`,
    )
    .action(async (opts: { dir: string }, cmd: Command) => {
      if (!existsSync(join(opts.dir, fileOf('custom-fields'))) && !existsSync(join(opts.dir, fileOf('reminders'))))
        throw usageError(`--dir ${opts.dir} holds no pm export (no custom-fields.ndjson or reminders.ndjson).`);
      const { withSession } = await import('../session.js');
      await withSession(globalsOf(cmd), { ...deps, signal: undefined }, async (s) => {
        try {
          const { counts } = await importAccount(s, opts.dir, deps);
          deps.io.stderr.write(`Imported ${summary(counts)}; uuid map in ${join(opts.dir, 'uuid-map.json')}.\n`);
        } catch (e) {
          throw describeApiError(e);
        }
      });
    });
}
