/**
 * `pm <resource> apply --from-file FILE --key FIELDS`: make the records match a file, as kubectl
 * apply does for its objects. Each record of the file is matched on the key fields to the one
 * record that has them: missing, it is created; found, the fields the file gives are compared and
 * only those that differ are sent; the same, it is left alone. With --prune, the records the list
 * filters select that no record of the file matched are deleted: each is checked against the
 * filters here too (a server that ignores a filter cannot widen a prune), they are shown, and a
 * person confirms (or --yes, where nobody can). --dry-run prints the plan.
 */
import { type Condition, parseListQuery } from '../../../core/query.js';
import { meetsAll, uncheckable } from '../../../core/match.js';
import { CUSTOM_VALUES_KEY, fieldOf, writableLinks } from '../../../resources/index.js';
import type { LinkDef, ResourceDef, SetDef } from '../../../resources/types.js';
import { isObject } from '../../../core/json.js';
import { sameText } from '../../../core/match.js';
import { visible } from '../../../core/redact.js';
import { filterFields } from '../../../resources/index.js';
import { CliError, EXIT, usageError } from '../../errors.js';
import { filterQuery } from '../../flag-values.js';
import { kebab } from '../../flags.js';
import { aOr } from '../../../core/words.js';
import { serverUuid } from '../../untrusted.js';
import { namingFlagsChecked, resolveLinkUuids, resolveNamingFlags } from '../../uuids.js';
import type { Session } from '../../session.js';
import { fillForUpdate } from '../../writes.js';
import { confirmDelete, everyRecord, withUnabortedSession } from '../shared.js';
import type { SendOptions } from '../../bulk/flags.js';
import type { InputRecord } from '../../bulk/input.js';
import { createKeyed, recordKey } from '../../bulk/keys.js';
import { checkAll, keyFields, keyOf, keyPart, prepare, problemLines, readRecords } from '../../bulk/records.js';
import { type Outcome, RESULT_FIELDS, runBulk } from '../../bulk/run.js';
import { type DataOutput, dataSpecFrom, dataStream, printData } from '../../output/index.js';
import type { Flags, OnResource } from './options.js';

/** `apply`: make the records match a file, matched on key fields. */
export interface ApplyOptions extends OnResource {
  /** --from-file, --key, --prune, --dry-run and --yes, as their help says. */
  readonly fromFile: string;
  readonly key: string;
  readonly prune: boolean;
  /** Of several records with one record's key, keep the oldest and delete the others. */
  readonly dedupe: boolean;
  readonly dryRun: boolean;
  readonly yes: boolean;
  /** Print the uuids alone (--quiet), or the result as JSON (--json). */
  readonly quiet: boolean;
  readonly json: boolean;
  /** With --json: its fields (of the plan's steps, or of the results), and --jq. */
  readonly output: DataOutput;
  readonly send: SendOptions;
  /** The list filter flags, read through the descriptions (flag-values.ts): what --prune selects. */
  readonly flags: Flags;
}

type Rec = Record<string, unknown>;

/** What apply does with one record. */
type Step =
  | { readonly action: 'create'; readonly rec: InputRecord }
  | { readonly action: 'update'; readonly rec: InputRecord; readonly uuid: string; readonly changes: Rec }
  | { readonly action: 'unchanged'; readonly rec: InputRecord; readonly uuid: string }
  | {
      readonly action: 'delete';
      readonly rec: InputRecord;
      readonly uuid: string;
      readonly was: Rec;
      /** Selected by --prune, or a twin of the oldest with the key of the file's line `twinOf` (--dedupe). */
      readonly twinOf?: number;
    };

/** A record's custom values by field name and uuid, as embedded: name -> value. */
function customOf(existing: Rec): Map<string, string | null> {
  const out = new Map<string, string | null>();
  const list = (existing[CUSTOM_VALUES_KEY] as { data?: Rec[] } | undefined)?.data ?? [];
  for (const v of list) {
    out.set(`name:${String(v.name)}`, (v.value as string | null) ?? null);
    out.set(`uuid:${String(v.uuid)}`, (v.value as string | null) ?? null);
  }
  return out;
}

/** The links an update may change (a status, a type, a contact) and the sets (competencies). */
const changeable = (r: ResourceDef): (LinkDef | SetDef)[] => [...writableLinks(r, 'update'), ...(r.sets ?? [])];

/**
 * Whether a file's link or set (`{"label": "For Let"}`, a list of them, or null) names what the
 * record holds, as embedded (`{"data": ...}`): each by its uuid, or its text ASCII case aside, as
 * the server matches it. Not embedded (a server that did not), never the same: it is sent.
 */
function namesHeld(given: unknown, embedded: unknown): boolean {
  const list = (x: unknown): Rec[] => (x === null || x === undefined ? [] : Array.isArray(x) ? x : [x as Rec]);
  if (!isObject(embedded) || !('data' in embedded)) return false;
  const held = list(embedded.data);
  const names = list(given);
  const named = (n: Rec, h: Rec) =>
    Object.entries(n).every(([k, v]) => typeof h[k] === 'string' && typeof v === 'string' && sameText(h[k], v));
  return names.every((n) => held.some((h) => named(n, h))) && held.every((h) => names.some((n) => named(n, h)));
}

/** The fields of `body` whose values differ from the record's (custom values one by one). */
function changesOf(r: ResourceDef, body: Rec, existing: Rec): Rec {
  const out: Rec = {};
  for (const [k, v] of Object.entries(body)) {
    if (k === CUSTOM_VALUES_KEY && r.customValues && Array.isArray(v)) {
      const now = customOf(existing);
      const differ = (v as Rec[]).filter((item) => {
        const at = item.name !== undefined ? `name:${String(item.name)}` : `uuid:${String(item.uuid)}`;
        return (now.get(at) ?? null) !== (item.value ?? null);
      });
      if (differ.length) out[k] = differ;
      continue;
    }
    const rel = changeable(r).find((x) => x.name === k);
    if (rel) {
      if (!namesHeld(v, existing[k])) out[k] = v;
      continue;
    }
    // Other links, and parents, are set when a record is created, and cannot change.
    const f = fieldOf(r, k);
    if (!f || f.readOnly) continue;
    if (keyPart(v) !== keyPart(existing[k])) out[k] = v;
  }
  return out;
}

/** What --prune selects: the query sent, and its conditions as pm checks them on each record. */
interface Prune {
  readonly query: URLSearchParams;
  readonly conditions: readonly Condition[];
  /** The filters as given, for messages: `title=[ci]`. */
  readonly words: string;
}

/**
 * The filters of --prune, read back as the server reads them. A filter pm cannot check on a record
 * alone (one on a parent, a status, custom fields) is refused: --prune deletes only what it has
 * seen match.
 */
function pruneFilter(o: ApplyOptions, flags: Flags): Prune {
  const { f, resource: r } = o;
  const query = filterQuery(r, flags, f.now(), f.timeZone);
  let conditions: readonly Condition[];
  try {
    conditions = parseListQuery(r, query, f.now()).conditions;
  } catch (e) {
    throw usageError(`--prune: ${(e as Error).message}`);
  }
  if (conditions.some(uncheckable))
    throw usageError(
      `--prune cannot check a filter on other records or on custom fields (${[...query.keys()].filter((k) => k.includes('[')).join(', ')}) against each ${r.singular} itself, so it does not take one.`,
      `Filter on the ${r.plural}' own fields, such as --${kebab(filterFields(r).find((x) => x.filter === 'fuzzy')?.name ?? 'uuid')}.`,
    );
  return { query, conditions, words: [...query].map(([k, v]) => `${k}=${v}`).join(' ') };
}

/** Matches the file's records to the server's, and says what to do with each. */
async function plan(
  o: ApplyOptions,
  s: Session,
  records: InputRecord[],
  keys: string[],
  prune: Prune | undefined,
): Promise<{ steps: Step[]; unmatched: number; twinned: number }> {
  const { resource: r } = o;
  // What the file gives of custom values, links and sets is compared with what the records hold.
  const given = (name: string) => records.some((rec) => rec.body[name] !== undefined);
  const embed = [...(r.customValues ? [CUSTOM_VALUES_KEY] : []), ...changeable(r).map((x) => x.name)].filter(given);
  const byKey = new Map<string, Rec[]>();
  for await (const x of everyRecord(s, r, new URLSearchParams(embed.length ? { embed: embed.join(',') } : {}))) {
    const k = keyOf(keys, x, r);
    byKey.set(k, [...(byKey.get(k) ?? []), x]);
  }
  const steps: Step[] = [];
  const firstLine = new Map<string, number>();
  const matched = new Set<string>();
  // Records not from the file (deleted): numbered after its lines, and written to --failed as {uuid}.
  let n = 0;
  let twinned = 0;
  const notFromFile = (uuid: string): InputRecord => ({ line: -++n, original: { uuid }, body: { uuid }, problems: [] });
  for (const rec of records) {
    if (rec.problems.length) continue;
    const missing = keys.filter((k) => rec.body[k] === undefined || rec.body[k] === null || rec.body[k] === '');
    if (missing.length) {
      rec.problems.push(`${missing.join(', ')}: the --key fields must all be given`);
      continue;
    }
    const k = keyOf(keys, rec.body, r);
    const seen = firstLine.get(k);
    if (seen !== undefined) {
      rec.problems.push(`the same ${keys.join(', ')} as line ${seen}`);
      continue;
    }
    firstLine.set(k, rec.line);
    const found = byKey.get(k) ?? [];
    if (found.length > 1 && !o.dedupe) {
      twinned++;
      const held = keys.map((key) => `${key}=${JSON.stringify(rec.body[key])}`).join(' ');
      rec.problems.push(
        `${found.length} ${r.plural} have ${held}: ${found.map((x) => serverUuid(x.uuid, `the uuid of ${aOr(r.singular)}`)).join(', ')}; apply cannot tell which is meant (--dedupe keeps the oldest and deletes the others)`,
      );
      continue;
    }
    // Listed oldest first: the first is kept, its twins deleted.
    const [one, ...twins] = found;
    for (const x of twins) {
      const uuid = serverUuid(x.uuid, `the uuid of ${aOr(r.singular)}`);
      matched.add(uuid);
      steps.push({ action: 'delete', rec: notFromFile(uuid), uuid, was: x, twinOf: rec.line });
    }
    if (!one) {
      steps.push({ action: 'create', rec });
      continue;
    }
    const uuid = serverUuid(one.uuid, `the uuid of ${aOr(r.singular)}`);
    matched.add(uuid);
    const { body } = prepare(r, 'create', rec);
    const changes = changesOf(r, body, one);
    if (!Object.keys(changes).length) steps.push({ action: 'unchanged', rec, uuid });
    else if (!r.verbs.update) rec.problems.push(`${r.plural} cannot be updated, and this one differs from the file`);
    else steps.push({ action: 'update', rec, uuid, changes });
  }
  let unmatched = 0;
  if (prune) {
    for await (const x of everyRecord(s, r, new URLSearchParams(prune.query))) {
      const uuid = serverUuid(x.uuid, `the uuid of ${aOr(r.singular)}`);
      if (matched.has(uuid)) continue;
      // Listed, but not what the filters say: a server that ignored them. Never deleted.
      if (!meetsAll(prune.conditions, x)) {
        unmatched++;
        continue;
      }
      steps.push({ action: 'delete', rec: notFromFile(uuid), uuid, was: x });
    }
  }
  return { steps, unmatched, twinned };
}

/** One line of the plan: what, which record, and what changes. */
function describe(r: ResourceDef, step: Step, keys: string[]): string {
  const shown = (x: Rec) => keys.map((k) => `${k}=${JSON.stringify(x[k] ?? null)}`).join(' ');
  switch (step.action) {
    case 'create':
      return `create     line ${step.rec.line}: ${shown(step.rec.body)}`;
    case 'unchanged':
      return `unchanged  line ${step.rec.line}: ${step.uuid}`;
    case 'update':
      return `update     line ${step.rec.line}: ${step.uuid} ${Object.entries(step.changes)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(' ')}`;
    case 'delete':
      return step.twinOf !== undefined
        ? `delete     ${step.uuid}: ${shown(step.was)} (a twin of the oldest with the key of line ${step.twinOf}, kept)`
        : `delete     ${step.uuid}: ${shown(step.was)} (not in the file; ${r.plural} selected by the filters)`;
  }
}

/** What --json [fields] may name: a step of the plan (--dry-run), or a result (bulk/run.ts). */
const PLAN_FIELDS = ['action', 'line', 'uuid', 'changes', 'record'];

function planJson(step: Step): Rec {
  const base: Rec = { action: step.action };
  if (step.rec.line > 0) base.line = step.rec.line;
  if (step.action !== 'create') base.uuid = step.uuid;
  if (step.action === 'update') base.changes = step.changes;
  if (step.action === 'create') base.record = step.rec.body;
  return base;
}

export async function applyRun(o: ApplyOptions): Promise<void> {
  const { f, resource: r } = o;
  const keys = keyFields(r, o.key, '--key');
  // --json's fields and --jq are checked before anything is read or sent.
  const spec = o.json ? await dataSpecFrom(o.output, o.dryRun ? PLAN_FIELDS : RESULT_FIELDS) : undefined;
  const { records, format, where } = await readRecords(r, o.fromFile, o.send.format, f);
  checkAll(r, 'create', records);
  // The filters are checked before anything is sent, a uuid's beginning standing for a uuid;
  // then their names are resolved (--uuid 3f2a9c1e).
  if (o.prune) pruneFilter(o, namingFlagsChecked(r, o.flags));
  await withUnabortedSession(f, async (s) => {
    const prune = o.prune ? pruneFilter(o, await resolveNamingFlags(s, r, o.flags, 'list')) : undefined;
    // A linked record named by its uuid's beginning (a property column of 3f2a9c1e): its whole uuid.
    for (const rec of records) if (!rec.problems.length) await resolveLinkUuids(s, r, rec.body);
    const { steps, unmatched, twinned } = await plan(o, s, records, keys, prune);
    if (unmatched)
      f.io.stderr.write(
        `warning: the server listed ${unmatched} ${unmatched === 1 ? r.singular : r.plural} that ${prune?.words} does not select (it seems to ignore the filter); ${unmatched === 1 ? 'it is' : 'they are'} not deleted.\n`,
      );
    const invalid = records.filter((rec) => rec.problems.length);
    if (invalid.length) {
      f.io.stderr.write(`${where}: ${invalid.length} of ${records.length} records have problems; they are not sent:\n`);
      f.io.stderr.write(problemLines(invalid));
    }
    const count = (a: Step['action']) => steps.filter((x) => x.action === a).length;
    const tally = `create ${count('create')}, update ${count('update')}, delete ${count('delete')}, unchanged ${count('unchanged')}`;
    if (o.dryRun) {
      if (spec) await printData(steps.map(planJson), spec, await f.display());
      else if (!o.quiet) for (const x of steps) f.io.stdout.write(`${describe(r, x, keys)}\n`);
      f.io.stderr.write(`plan: ${tally}${invalid.length ? `, failed ${invalid.length}` : ''}; nothing sent.\n`);
      if (invalid.length)
        throw new CliError(EXIT.api, `${invalid.length} of ${records.length} records would not go through.`);
      return;
    }
    const deletes = steps.filter((x) => x.action === 'delete');
    if (deletes.length && !o.yes) {
      // Shown first, whoever answers: what --prune and --dedupe would delete, and why each.
      const what = deletes.length === 1 ? r.singular : r.plural;
      const pruned = deletes.some((x) => x.twinOf === undefined);
      const twins = deletes.some((x) => x.twinOf !== undefined);
      f.io.stderr.write(
        twins
          ? `${pruned ? '--prune and --dedupe' : '--dedupe'} would delete ${deletes.length} ${what}:\n`
          : `--prune would delete ${deletes.length} ${what} not in ${where}:\n`,
      );
      for (const x of deletes) f.io.stderr.write(`  ${visible(describe(r, x, keys))}\n`);
      await confirmDelete(f, () => `Delete ${deletes.length === 1 ? 'this' : 'these'} ${deletes.length} ${what}?`);
    }
    const byRecord = new Map<InputRecord, Step>(steps.map((x) => [x.rec, x]));
    const send = async (rec: InputRecord): Promise<Outcome> => {
      const step = byRecord.get(rec) as Step;
      switch (step.action) {
        case 'unchanged':
          return { status: 'unchanged', uuid: step.uuid };
        case 'delete':
          await s.client.delete(r, step.uuid);
          return { status: 'deleted', uuid: step.uuid };
        case 'update': {
          const body = { ...step.changes };
          await fillForUpdate(s.client, r, step.uuid, body);
          await s.client.update(r, step.uuid, body);
          return { status: 'updated', uuid: step.uuid };
        }
        case 'create': {
          // Under a key derived from the record: two runs of the file at once make it once.
          const { body, parent } = prepare(r, 'create', rec);
          const got = await createKeyed(s, r, body, parent, recordKey(r, keys, body, parent));
          return { status: 'created', uuid: String(got.uuid) };
        }
      }
    };
    await runBulk({
      resource: r,
      records: [...records, ...deletes.map((x) => x.rec)],
      format,
      concurrency: o.send.concurrency,
      send,
      output: o.quiet ? 'quiet' : spec ? dataStream(spec, await f.display()) : undefined,
      ...(o.send.failedFile !== undefined ? { failedFile: o.send.failedFile } : {}),
      verbs: ['created', 'updated', 'deleted', 'unchanged'],
      deps: f,
    }).catch((e: unknown) => {
      if (!twinned || !(e instanceof CliError) || e.exitCode !== EXIT.api) throw e;
      throw new CliError(e.exitCode, e.message, {
        hint: `${twinned} of them ${twinned === 1 ? 'is' : 'are'} held by several ${r.plural} (named above): run again with --dedupe to keep the oldest of each and delete the others (--yes where nobody can answer).`,
      });
    });
  });
}
