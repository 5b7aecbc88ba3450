/**
 * The records a record refers to, for both stores: links (an id column of its own: a property's
 * contact, its status) and sets (a join table: a contact's competencies), named in bodies by one
 * field (`{"uuid"}`, `{"label"}`) and shown as embeds.
 */
import { type ErrorBag, ValidationError } from '../../core/errors.js';
import { fieldKind } from '../../core/kinds.js';
import type { Named, ValidBody } from '../../core/validate.js';
import { embeddedFieldsOf, fieldOf, RESOURCES, resourceByPath } from '../../resources/index.js';
import type { FieldDef, LinkDef, RelationDef, ResourceDef, SetDef } from '../../resources/types.js';
import { columnsOf } from '../columns.js';
import type { ApiRecord } from '../store.js';
import { hasNul } from './custom-values.js';
import { type Dialect, get, type Row, rows, run, type Steps } from './steps.js';

/** The columns a related record is shown with (embeddedFieldsOf), read from the table aliased `e`. */
function embeddedColumns(target: ResourceDef, names: readonly string[]): string {
  const cols = ['e.id AS _id', 'e.uuid'];
  for (const n of names) for (const c of columnsOf(fieldOf(target, n) as FieldDef)) cols.push(`e."${c}"`);
  return cols.join(', ');
}

/** A related record as an embed shows it: its embedded fields, each through its kind. */
function embeddedRecord(target: ResourceDef, names: readonly string[], row: Row): ApiRecord {
  const out: ApiRecord = {};
  for (const n of names) {
    const f = fieldOf(target, n);
    out[n] = n === 'uuid' || !f ? row.uuid : fieldKind(f).load(f, row);
  }
  return out;
}

/** A linked record (a property's contact, its status, a note's parent) as {"data": {...} | null}, on each record. */
export function* embedOne(
  d: Dialect,
  accountId: number,
  link: LinkDef | RelationDef,
  found: Row[],
  records: ApiRecord[],
): Steps<void> {
  const target = resourceByPath(link.target);
  const names = embeddedFieldsOf(link);
  const ids = [...new Set(found.map((row) => row[`_link_${link.name}`]).filter((v) => v !== null))] as number[];
  const byId = new Map<number, ApiRecord>();
  if (ids.length) {
    const linked = (yield rows(
      `SELECT ${embeddedColumns(target, names)} FROM ${target.table} e WHERE e.account_id = ? AND ${d.inIds('e.id')}`,
      [accountId, d.ids(ids)],
    )) as Row[];
    for (const row of linked) byId.set(row._id as number, embeddedRecord(target, names, row));
  }
  found.forEach((row, i) => {
    const id = row[`_link_${link.name}`] as number | null;
    (records[i] as ApiRecord)[link.name] = { data: id === null ? null : (byId.get(id) ?? null) };
  });
}

/** The records of a set (a contact's competencies) as {"data": [...]}, in their creation order, on each record. */
export function* embedMany(
  d: Dialect,
  accountId: number,
  set: SetDef,
  found: Row[],
  records: ApiRecord[],
): Steps<void> {
  const target = resourceByPath(set.target);
  const names = embeddedFieldsOf(set);
  const ids = found.map((row) => row._id as number);
  const byOwner = new Map<number, ApiRecord[]>();
  if (ids.length) {
    const held = (yield rows(
      `SELECT j.${set.column} AS _owner, ${embeddedColumns(target, names)}
         FROM ${set.table} j JOIN ${target.table} e ON e.id = j.${set.targetColumn}
         WHERE e.account_id = ? AND ${d.inIds(`j.${set.column}`)} ORDER BY e.created_at, e.id`,
      [accountId, d.ids(ids)],
    )) as Row[];
    for (const row of held) {
      const list = byOwner.get(row._owner as number) ?? [];
      list.push(embeddedRecord(target, names, row));
      byOwner.set(row._owner as number, list);
    }
  }
  found.forEach((row, i) => {
    (records[i] as ApiRecord)[set.name] = { data: byOwner.get(row._id as number) ?? [] };
  });
}

/**
 * The id of the one record of a link's or set's target a body names (`{"label": "For Let"}`), or
 * undefined with the reason in `bag` under `at`: none, more than one (text is matched without
 * regard to ASCII case, as SQLite's NOCASE), or one the link may not name (a Contact status on a
 * property).
 */
function* resolve(
  d: Dialect,
  accountId: number,
  r: ResourceDef,
  rel: LinkDef | SetDef,
  named: Named,
  at: string,
  bag: ErrorBag,
): Steps<number | undefined> {
  const [key, value] = Object.entries(named)[0] as [string, string];
  const target = resourceByPath(rel.target);
  const only = 'only' in rel ? rel.only : undefined;
  const col = key === 'uuid' ? 'uuid = ?' : d.equalsNoCase(`"${key}"`);
  const extra = only ? `, "${only.field}" AS _only` : '';
  const sql = `SELECT id${extra} FROM ${target.table} WHERE account_id = ? AND ${col} ORDER BY id LIMIT 101`;
  // A uuid in any case is the same uuid (stored in lower case).
  const bound = key === 'uuid' ? value.toLowerCase() : value;
  const found = hasNul(value) ? [] : ((yield rows(sql, [accountId, bound])) as Row[]);
  const fitting = only ? found.filter((r) => r._only === only.code) : found;
  if (fitting.length === 1) return (fitting[0] as Row).id as number;
  if (fitting.length > 1) bag.add(at, `More than one ${target.singular} has ${key} "${value}"; name it by uuid.`);
  else if (found.length && only) {
    const codes = fieldOf(target, only.field)?.codes ?? {};
    const kind = (code: unknown) => codes[code as number] ?? `${only.field} ${code}`;
    bag.add(
      at,
      `The ${target.singular} with ${key} "${value}" is a ${kind(found[0]?._only)} ${target.singular}; a ${r.singular}'s ${rel.name} must be a ${kind(only.code)} ${target.singular}.`,
    );
  } else bag.add(at, `No ${target.singular} has ${key} "${value}".`);
  return undefined;
}

/** The columns of the records a body links to (a property's contact, its status): an id, or null to clear. */
export function* linkColumns(
  d: Dialect,
  accountId: number,
  r: ResourceDef,
  body: ValidBody,
  bag: ErrorBag,
): Steps<Row> {
  const out: Row = {};
  for (const link of r.links ?? []) {
    const named = body.links[link.name];
    if (named === undefined) continue;
    if (named === null) out[link.column] = null;
    else {
      const id = yield* resolve(d, accountId, r, link, named, link.name, bag);
      if (id !== undefined) out[link.column] = id;
    }
  }
  return out;
}

/** The ids of the records each set a body gives names (resolved before anything is written). */
export function* setMembers(
  d: Dialect,
  accountId: number,
  r: ResourceDef,
  body: ValidBody,
  bag: ErrorBag,
): Steps<Map<SetDef, number[]>> {
  const out = new Map<SetDef, number[]>();
  for (const set of r.sets ?? []) {
    const list = body.sets[set.name];
    if (!list) continue;
    const ids: number[] = [];
    for (const [i, named] of list.entries()) {
      const id = yield* resolve(d, accountId, r, set, named, `${set.name}.${i}`, bag);
      if (id !== undefined) ids.push(id);
    }
    out.set(set, [...new Set(ids)]);
  }
  return out;
}

/** Replaces the sets of record `ownerId` with `members` (setMembers). */
export function* writeSets(ownerId: number, members: Map<SetDef, number[]>): Steps<void> {
  for (const [set, ids] of members) {
    yield run(`DELETE FROM ${set.table} WHERE ${set.column} = ?`, [ownerId]);
    for (const id of ids)
      yield run(`INSERT INTO ${set.table} (${set.column}, ${set.targetColumn}) VALUES (?, ?)`, [ownerId, id]);
  }
}

/**
 * A record that links take only of one code (a status: a property's is a Property status) cannot
 * change that code while a record whose link takes another code refers to it: that record would
 * hold what it may not. `current` is the stored row of `target`, `cols` the columns being written.
 */
export function* keepLinkedCodes(target: ResourceDef, cols: Row, current: Row): Steps<void> {
  for (const r of RESOURCES)
    for (const link of r.links ?? []) {
      const only = link.only;
      if (link.target !== target.path || !only || cols[only.field] === undefined) continue;
      if (cols[only.field] === current[only.field] || cols[only.field] === only.code) continue;
      const used = yield get(`SELECT 1 FROM ${r.table} WHERE ${link.column} = ? LIMIT 1`, [current._id]);
      if (used)
        throw new ValidationError({
          [only.field]: [`The ${only.field} cannot change while ${r.plural} have this ${target.singular}.`],
        });
    }
}
