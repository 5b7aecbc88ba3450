/** `pm export`: every record of the account as NDJSON files, a file per resource. */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEPENDENCY_ORDER, embedsOf, resourceByPath } from '../../../resources/index.js';
import type { ResourceDef } from '../../../resources/types.js';
import type { Deps } from '../../context.js';
import { usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import type { Session } from '../../session.js';
import { writeFileAtomic } from '../../write-file.js';
import { inside, serverUuid } from '../../untrusted.js';
import { exportFiles, PRIVATE_DIR } from '../attachments/transfer-files.js';
import { countOf } from '../shared.js';
import { fileOf, summary } from './files.js';

type Rec = Record<string, unknown>;

export interface ExportOptions {
  readonly f: Factory;
  /** --dir, as given (messages name it so). */
  readonly dir: string;
  /** Write into a folder that already has files. */
  readonly force: boolean;
}

export async function* all(s: Session, r: ResourceDef, query: Record<string, string> = {}): AsyncGenerator<Rec> {
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
          const uuid = serverUuid(p.uuid, `the uuid of a ${parent.singular}`);
          for await (const rec of all(s, r, { [`${rel.name}[uuid]`]: uuid })) rows.push({ ...rec, [rel.name]: p.uuid });
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
    writeFileAtomic(inside(dir, fileOf(r)), rows.map((x) => `${JSON.stringify(x)}\n`).join(''));
    counts[r.path] = rows.length;
  }
  return counts;
}

export async function exportRun(o: ExportOptions): Promise<void> {
  const { f } = o;
  // A relative folder is the working directory's (the command's, not the process's).
  const dir = resolve(f.cwd, o.dir);
  if (existsSync(dir) && readdirSync(dir).length && !o.force)
    throw usageError(`--dir ${o.dir} is not empty; give another folder, or --force to overwrite its files.`);
  // The folders it makes are its owner's alone (0700), as every file in them (0600).
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  const { withSession } = await import('../../session.js');
  await withSession(f.globals(), f, async (s) => {
    const counts = await exportAccount(s, dir, f);
    f.io.stderr.write(`Exported ${summary(counts)} to ${o.dir}.\n`);
  });
}
