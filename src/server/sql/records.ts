/**
 * The records of every resource, for both stores: get, create, update, delete, each confined to
 * one account (a list is each store's own). What differs by store is its dialect (steps.ts).
 */
import { ApiError, ErrorBag, ValidationError } from '../../core/errors.js';
import type { ValidBody } from '../../core/validate.js';
import { customFields, ENTITY_TYPES, embedsOf, fieldOf, ownerOfEntity } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import type { ApiRecord, ParentRef } from '../store.js';
import { beforeCustomFieldWrite, embedCustomValues, hasNul, setCustomValues } from './custom-values.js';
import { doneOnRepeat } from './agenda.js';
import { embedMany, embedOne, keepLinkedCodes, linkColumns, setMembers, writeSets } from './relations.js';
import { columnValues, dateFlagColumn, selectList, toRecord, withFolds } from './rows.js';
import { type Dialect, get, insert, type Query, type Row, run, type Steps } from './steps.js';

export function* getRecord(
  d: Dialect,
  accountId: number,
  r: ResourceDef,
  uuid: string,
  names: readonly string[] = [],
): Steps<ApiRecord> {
  const row = yield* mustFind(d, accountId, r, uuid);
  const rec = toRecord(r, row);
  yield* embed(d, accountId, r, names, [row], [rec]);
  return rec;
}

function notFound(r: ResourceDef, uuid: string): ApiError {
  return new ApiError(404, `No ${r.singular} with uuid "${uuid}".`);
}

/** The row of a record; `lock`: read to be written (the dialect's lock). */
function* mustFind(d: Dialect, accountId: number, r: ResourceDef, uuid: string, lock = false): Steps<Row> {
  const sql = `SELECT ${selectList(r, 't')} FROM ${r.table} t WHERE t.account_id = ? AND t.uuid = ?${lock ? d.forUpdate : ''}`;
  const row = hasNul(uuid) ? undefined : ((yield get(sql, [accountId, uuid])) as Row | undefined);
  if (!row) throw notFound(r, uuid);
  return row;
}

/** The embeds a list or a record asks for (custom values, linked records, sets), set on `records`. */
export function* embed(
  d: Dialect,
  accountId: number,
  r: ResourceDef,
  names: readonly string[],
  found: Row[],
  records: ApiRecord[],
): Steps<void> {
  for (const e of embedsOf(r)) {
    if (!names.includes(e.name)) continue;
    if (e.kind === 'custom_values') yield* embedCustomValues(d, r, found, records);
    else if (e.kind === 'one') yield* embedOne(d, accountId, e.relation, found, records);
    else yield* embedMany(d, accountId, e.set, found, records);
  }
}

export function* createRecord(
  d: Dialect,
  accountId: number,
  r: ResourceDef,
  body: ValidBody,
  parent?: ParentRef,
  /** Its uuid, when it was chosen before (the key its file's chunks were written under). */
  given?: string,
): Steps<ApiRecord> {
  const bag = new ErrorBag();
  const cols = columnValues(r, body.values);
  Object.assign(cols, yield* linkColumns(d, accountId, r, body, bag));
  const members = yield* setMembers(d, accountId, r, body, bag);
  if (parent) {
    const rel = r.parents?.find((x) => x.target === parent.resource.path);
    // Locked where writers run at once, so that the parent cannot be deleted before this commits.
    const p = yield* mustFind(d, accountId, parent.resource, parent.uuid, true);
    if (rel) cols[rel.column] = p._id;
  }
  bag.throwIfAny();
  if (r === customFields) yield* beforeCustomFieldWrite(d, accountId, cols);
  doneOnRepeat(r, cols);
  const t = d.now();
  const uuid = given ?? d.uuid?.() ?? process.getBuiltinModule('node:crypto').randomUUID();
  withFolds(r, cols);
  d.withSearchKeys?.(accountId, cols);
  const names = ['account_id', 'uuid', 'created_at', 'updated_at', ...Object.keys(cols)];
  const write = insert(
    `INSERT INTO ${r.table} (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
    [accountId, uuid, t, t, ...Object.values(cols)],
  );
  const id = (yield* unique(d, accountId, r, cols, undefined, write)) as number;
  yield* writeSets(id, members);
  yield* setCustomValues(accountId, r, id, body, bag);
  bag.throwIfAny();
  return yield* getRecord(d, accountId, r, uuid);
}

export function* updateRecord(
  d: Dialect,
  accountId: number,
  r: ResourceDef,
  uuid: string,
  body: ValidBody,
): Steps<ApiRecord> {
  const row = yield* mustFind(d, accountId, r, uuid, true);
  const bag = new ErrorBag();
  const cols = columnValues(r, body.values);
  Object.assign(cols, yield* linkColumns(d, accountId, r, body, bag));
  const members = yield* setMembers(d, accountId, r, body, bag);
  bag.throwIfAny();
  // A stored date (all day) cannot be made "not all day" without giving a time.
  for (const f of r.fields)
    if (f.allDayFlag && cols[f.name] === undefined && cols[f.allDayFlag] === 0 && row[dateFlagColumn(f)] === 1)
      throw new ValidationError({
        [f.allDayFlag]: [`The ${f.allDayFlag} field cannot be false when ${f.name} is a date without a time.`],
      });
  if (r === customFields) yield* beforeCustomFieldWrite(d, accountId, cols, row);
  yield* keepLinkedCodes(r, cols, row);
  doneOnRepeat(r, cols, row);
  withFolds(r, cols);
  d.withSearchKeys?.(accountId, cols);
  const sets = [...Object.keys(cols).map((n) => `"${n}" = ?`), 'updated_at = ?'].join(', ');
  const write = run(`UPDATE ${r.table} SET ${sets} WHERE id = ?`, [...Object.values(cols), d.now(), row._id]);
  yield* unique(d, accountId, r, cols, row, write);
  yield* writeSets(row._id as number, members);
  yield* setCustomValues(accountId, r, row._id as number, body, bag);
  bag.throwIfAny();
  return yield* getRecord(d, accountId, r, uuid);
}

export function* deleteRecord(accountId: number, r: ResourceDef, uuid: string): Steps<void> {
  const changes = hasNul(uuid)
    ? 0
    : ((yield run(`DELETE FROM ${r.table} WHERE account_id = ? AND uuid = ?`, [accountId, uuid])) as number);
  if (changes === 0) throw notFound(r, uuid);
}

/**
 * Runs a write, refused when it would give a record the values another record of the account has
 * for one of the description's unique keys (a 409), or the fields it is known by (`labelledBy`: a
 * 422 naming its label, compared as a label filter compares it): looked up before the write, or
 * (where the dialect says its constraint's error) found as the row is written, so that two
 * writers at once cannot both pass. `current` is the stored row on update (its own values are no
 * clash, and fill the key's fields the write leaves alone).
 */
function* unique(
  d: Dialect,
  accountId: number,
  r: ResourceDef,
  cols: Row,
  current: Row | undefined,
  write: Query,
): Steps<unknown> {
  const valuesOf = (key: readonly string[]) => key.map((k) => (k in cols ? cols[k] : current?.[k]));
  const labelled = r.labelledBy;
  if (d.uniqueViolated) {
    try {
      return yield write;
    } catch (e) {
      const name = d.uniqueViolated(e);
      if (labelled && name === labelledIndex(r)) throw labelTaken(r, labelled, valuesOf(labelled));
      const key = r.unique?.[0];
      if (!key || !name?.startsWith(`${r.table}_unique`)) throw e;
      throw conflict(r, key, valuesOf(key));
    }
  }
  for (const key of r.unique ?? []) {
    if (!key.some((k) => k in cols)) continue;
    const values = valuesOf(key);
    // As in SQL, a null is never equal to another.
    if (values.some((v) => v === null || v === undefined)) continue;
    const sql = `SELECT id FROM ${r.table} WHERE account_id = ? AND ${key.map((k) => `"${k}" = ?`).join(' AND ')} LIMIT 1`;
    const clash = (yield get(sql, [accountId, ...values])) as Row | undefined;
    if (clash && clash.id !== current?._id) throw conflict(r, key, values);
  }
  if (labelled?.some((k) => k in cols)) {
    const values = valuesOf(labelled);
    const label = `"${labelled[labelled.length - 1]}"`;
    const exact = labelled.slice(0, -1).map((k) => `"${k}" = ? AND `);
    const sql = `SELECT id FROM ${r.table} WHERE account_id = ? AND ${exact.join('')}${d.equalsNoCase(label)} AND id <> ? LIMIT 1`;
    if (yield get(sql, [accountId, ...values, current?._id ?? 0])) throw labelTaken(r, labelled, values);
  }
  return yield write;
}

/**
 * The unique index of the fields a record of `r` is known by (`labelledBy`), as the migration
 * that made it names it: a violation of it is a label taken.
 */
const labelledIndex = (r: ResourceDef): string => `${r.table}_labelled`;

/** The 422 of a label another record of the account has (ASCII case aside), naming it. */
function labelTaken(r: ResourceDef, key: readonly string[], values: unknown[]): ValidationError {
  const field = key[key.length - 1] as string;
  // "Property statuses": a code by its name.
  const scope = key.slice(0, -1).map((k, i) => fieldOf(r, k)?.codes?.[values[i] as number] ?? String(values[i]));
  const those = [...scope, r.plural].join(' ');
  return new ValidationError({
    [field]: [
      `A ${r.singular} with ${field} "${values[values.length - 1]}" already exists (${field}s are unique among ${those}, case aside).`,
    ],
  });
}

/** The 409 of a clash with a unique key, naming its values. */
function conflict(r: ResourceDef, key: readonly string[], values: unknown[]): ApiError {
  const field = key[key.length - 1] as string;
  const value = values[values.length - 1];
  const scope = key.slice(0, -1).map((k, i) => valueInWords(r, k, values[i]));
  const what = field === 'name' ? `named "${value}"` : `with ${field} "${value}"`;
  const message = `A ${r.singular} ${what} already exists${scope.length ? ` for ${scope.join(' and ')}` : ''}.`;
  return new ApiError(409, message, { [field]: [`The ${field} "${value}" is already taken.`] });
}

/** A value of a unique key's scope, as a 409 message names it: an entity type as its resource's records. */
function valueInWords(r: ResourceDef, name: string, value: unknown): string {
  const f = fieldOf(r, name);
  if (f?.codes === ENTITY_TYPES) return ownerOfEntity(value as number)?.plural ?? `entity type ${value}`;
  if (f?.codes) return `${name} ${f.codes[value as number] ?? value}`;
  return `${name} "${value}"`;
}
