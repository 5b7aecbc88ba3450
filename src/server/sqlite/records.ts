/**
 * The records of every resource, in SQLite: list (with its total), get, create, update, delete,
 * each confined to one account. Tables, columns, links, parents, unique keys and counts come from
 * the resource descriptions; the custom fields' one escape hatch is in custom-values.ts.
 */
import { randomUUID } from 'node:crypto';
import { ApiError, ErrorBag, ValidationError } from '../../core/errors.js';
import type { ListQuery } from '../../core/query.js';
import type { ValidBody } from '../../core/validate.js';
import {
  embeddedFieldsOf,
  CUSTOM_FIELDS,
  CUSTOM_VALUES_KEY,
  ENTITY_TYPES,
  fieldOf,
  ownerOfEntity,
  resourceByPath,
} from '../../resources/index.js';
import type { LinkDef, RelationDef, ResourceDef } from '../../resources/types.js';
import type { ApiRecord, ParentRef } from '../store.js';
import { beforeCustomFieldWrite, embedCustomValues, setCustomValues } from './custom-values.js';
import { columnValues, dateFlagColumn, type Row, selectList, toRecord, withFolds } from './rows.js';
import { ORDER_BLOCK } from '../schema.js';
import type { Sql } from './statements.js';
import { trigramKeys, trigramMatch, whereSql } from './where.js';

/**
 * How many rows a page may walk in the order index, per match, before the page is sorted from the
 * trigram index's matches instead: walking reads a row and tests it (about a tenth of what
 * looking a match up and sorting it costs), so with matches dense enough the walk wins.
 */
const WALK_PER_MATCH = 8;

/**
 * The size under which a fuzzy filter beside another one is tested on the rows rather than looked
 * up in the trigram index (the store's default; `Sql.scanBelow`): at 3,000 properties,
 * `city=leeds&bedrooms=3` costs 112 µs of SQL that way against 261 µs from the index (figure 6a).
 */
export const SCAN_BELOW = 20_000;

export function listRecords(
  sql: Sql,
  accountId: number,
  r: ResourceDef,
  q: ListQuery,
): { records: ApiRecord[]; total: number } {
  const offset = (q.page - 1) * q.perPage;
  // The page size is written into the SQL (a whole number parseListQuery checked): SQLite plans a
  // known LIMIT better than a bound one (a tenth off a filtered page), and lists use few sizes.
  const limit = `LIMIT ${Math.trunc(q.perPage)}`;
  const order = `ORDER BY t.created_at, t.id ${limit} OFFSET ?`;
  const select = `SELECT ${selectList(r, 't')}`;
  const params: unknown[] = [accountId];
  const where = ['t.account_id = ?', ...whereSql(sql, r, 't', q.conditions, accountId, params)].join(' AND ');
  const one = (text: string, p: unknown[]) => (sql.stmt(text).get(...p) as { n: number } | undefined)?.n ?? 0;
  // The account's records, kept by triggers (schema.ts, migration 3): an unfiltered list's total.
  const kept = () => one('SELECT n FROM record_counts WHERE account_id = ? AND tbl = ?', [accountId, r.table]);
  let total: number;
  let rows: Row[] | undefined;
  // A fuzzy filter the trigram index answers gives the count from the index (the account's keys
  // alone when it is the only filter; else its matches' rows, tested for the rest): the matches'
  // number sets the cost, not the table's.
  // Below scanBelow records, a list with another filter as well reads the rows that filter leaves
  // (through its index) and tests the fuzzy one on each: cheaper there than the index's matches.
  const scan = sql.counted && q.conditions.some((c) => c.kind !== 'fuzzy') && kept() < sql.scanBelow;
  const driver = scan ? undefined : q.conditions.map((c) => ({ c, m: trigramMatch(sql, r, c) })).find((x) => x.m);
  if (driver?.m) {
    const [first, last] = trigramKeys(accountId);
    const match = `f."${driver.m.column}" MATCH ? AND f.rowid BETWEEN ? AND ?`;
    const rest = q.conditions.filter((c) => c !== driver.c);
    const p: unknown[] = [first, driver.m.match, first, last, accountId];
    const w = [match, 't.account_id = ?', ...whereSql(sql, r, 't', rest, accountId, p)].join(' AND ');
    const from = `${r.table}_fts f JOIN ${r.table} t ON t.id = f.rowid - ?`;
    total = rest.length
      ? one(`SELECT COUNT(*) AS n FROM ${from} WHERE ${w}`, p)
      : one(`SELECT COUNT(*) AS n FROM ${r.table}_fts f WHERE ${match}`, [driver.m.match, first, last]);
    // The page: from the order index, testing each row, when the matches are dense enough that
    // it reaches the page soon; else the matches sorted.
    const walk = ((offset + q.perPage) * (sql.counted ? kept() : Number.POSITIVE_INFINITY)) / Math.max(total, 1);
    if (offset >= total) rows = [];
    else if (walk > WALK_PER_MATCH * total)
      rows = sql.stmt(`${select} FROM ${from} WHERE ${w} ${order}`).all(...p, offset) as Row[];
  } else if (sql.counted && !q.conditions.length) {
    total = kept();
    // A deep page starts from the order block it falls in (schema.ts): the block sizes before it
    // are added up, and only the records of that block before the page are walked.
    if (offset >= 2 * ORDER_BLOCK && offset < total) {
      const block = sql
        .stmt(
          `SELECT created_at AS c, id AS i, before FROM (
             SELECT created_at, id, SUM(n) OVER (ORDER BY created_at, id) - n AS before
             FROM order_blocks WHERE account_id = ? AND tbl = ?
           ) WHERE before <= ? ORDER BY created_at DESC, id DESC LIMIT 1`,
        )
        .get(accountId, r.table, offset) as { c: number; i: number; before: number } | undefined;
      if (block)
        rows = sql
          .stmt(
            `${select} FROM ${r.table} t WHERE t.id IN (SELECT t.id FROM ${r.table} t WHERE t.account_id = ? AND (t.created_at, t.id) >= (?, ?) ${order}) ORDER BY t.created_at, t.id`,
          )
          .all(accountId, block.c, block.i, offset - block.before) as Row[];
    }
  } else total = one(`SELECT COUNT(*) AS n FROM ${r.table} t WHERE ${where}`, params);
  // Page N+1 right after page N of the same list, with nothing written in between: from where page
  // N ended (the same rows an OFFSET gives, without walking the ones before). Otherwise the page's
  // ids first, walking the order index alone (no row is read for the ones skipped).
  const shape = `${r.table}\u0000${where}\u0000${JSON.stringify(params)}\u0000${q.perPage}`;
  const hint = sql.pageEnds.get(shape);
  const fresh = hint && hint.page === q.page - 1 && hint.version === sql.version();
  if (!rows && offset < total && fresh)
    rows = sql
      .stmt(
        `${select} FROM ${r.table} t WHERE ${where} AND (t.created_at, t.id) > (?, ?) ORDER BY t.created_at, t.id ${limit}`,
      )
      .all(...params, hint.createdAt, hint.id) as Row[];
  rows ??=
    offset >= total
      ? []
      : (sql
          .stmt(
            `${select} FROM ${r.table} t WHERE t.id IN (SELECT t.id FROM ${r.table} t WHERE ${where} ${order}) ORDER BY t.created_at, t.id`,
          )
          .all(...params, offset) as Row[]);
  const last = rows[rows.length - 1];
  if (last && !driver?.m)
    sql.pageEnds.set(shape, { page: q.page, createdAt: last.created_at, id: last._id, version: sql.version() });
  const records = rows.map((row) => toRecord(r, row));
  embed(sql, accountId, r, q.embed, rows, records);
  return { records, total };
}

export function getRecord(
  sql: Sql,
  accountId: number,
  r: ResourceDef,
  uuid: string,
  names: readonly string[] = [],
): ApiRecord {
  const row = mustFind(sql, accountId, r, uuid);
  const rec = toRecord(r, row);
  embed(sql, accountId, r, names, [row], [rec]);
  return rec;
}

export function createRecord(
  sql: Sql,
  accountId: number,
  r: ResourceDef,
  body: ValidBody,
  parent?: ParentRef,
): ApiRecord {
  return sql.write(() => {
    const bag = new ErrorBag();
    const cols = columnValues(r, body.values);
    Object.assign(cols, resolveLinks(sql, accountId, r, body, bag));
    if (parent) {
      const rel = r.parents?.find((x) => x.target === parent.resource.path);
      const p = mustFind(sql, accountId, parent.resource, parent.uuid);
      if (rel) cols[rel.column] = p._id;
    }
    bag.throwIfAny();
    if (r === CUSTOM_FIELDS) beforeCustomFieldWrite(sql, accountId, cols);
    checkUnique(sql, accountId, r, cols);
    const t = sql.now();
    const uuid = randomUUID();
    withFolds(r, cols);
    const names = ['account_id', 'uuid', 'created_at', 'updated_at', ...Object.keys(cols)];
    const id = Number(
      sql
        .stmt(
          `INSERT INTO ${r.table} (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
        )
        .run(accountId, uuid, t, t, ...Object.values(cols)).lastInsertRowid,
    );
    setCustomValues(sql, accountId, r, id, body, bag);
    bag.throwIfAny();
    return getRecord(sql, accountId, r, uuid);
  });
}

export function updateRecord(sql: Sql, accountId: number, r: ResourceDef, uuid: string, body: ValidBody): ApiRecord {
  return sql.write(() => {
    const row = mustFind(sql, accountId, r, uuid);
    const bag = new ErrorBag();
    const cols = columnValues(r, body.values);
    // A stored date (all day) cannot be made "not all day" without giving a time.
    for (const f of r.fields)
      if (f.allDayFlag && cols[f.name] === undefined && cols[f.allDayFlag] === 0 && row[dateFlagColumn(f)] === 1)
        throw new ValidationError({
          [f.allDayFlag]: [`The ${f.allDayFlag} field cannot be false when ${f.name} is a date without a time.`],
        });
    if (r === CUSTOM_FIELDS) beforeCustomFieldWrite(sql, accountId, cols, row);
    checkUnique(sql, accountId, r, cols, row);
    withFolds(r, cols);
    const names = Object.keys(cols);
    sql
      .stmt(`UPDATE ${r.table} SET ${[...names.map((n) => `"${n}" = ?`), 'updated_at = ?'].join(', ')} WHERE id = ?`)
      .run(...Object.values(cols), sql.now(), row._id);
    setCustomValues(sql, accountId, r, row._id as number, body, bag);
    bag.throwIfAny();
    return getRecord(sql, accountId, r, uuid);
  });
}

export function deleteRecord(sql: Sql, accountId: number, r: ResourceDef, uuid: string): void {
  const changes = sql.write(
    () => sql.stmt(`DELETE FROM ${r.table} WHERE account_id = ? AND uuid = ?`).run(accountId, uuid).changes,
  );
  if (changes === 0) throw notFound(r, uuid);
}

function notFound(r: ResourceDef, uuid: string): ApiError {
  return new ApiError(404, `No ${r.singular} with uuid "${uuid}".`);
}

function mustFind(sql: Sql, accountId: number, r: ResourceDef, uuid: string): Row {
  const row = sql
    .stmt(`SELECT ${selectList(r, 't')} FROM ${r.table} t WHERE t.account_id = ? AND t.uuid = ?`)
    .get(accountId, uuid) as Row | undefined;
  if (!row) throw notFound(r, uuid);
  return row;
}

function embed(
  sql: Sql,
  accountId: number,
  r: ResourceDef,
  names: readonly string[],
  rows: Row[],
  records: ApiRecord[],
): void {
  if (r.customValues && names.includes(CUSTOM_VALUES_KEY)) embedCustomValues(sql, r, rows, records);
  for (const link of [...(r.linkOnCreate ?? []), ...(r.parents ?? [])])
    if (names.includes(link.name)) embedLink(sql, accountId, link, rows, records);
}

/** A linked record (a property's contact, a note's parent) as {"data": {uuid, ...identifying fields} | null}. */
function embedLink(sql: Sql, accountId: number, link: LinkDef | RelationDef, rows: Row[], records: ApiRecord[]): void {
  const target = resourceByPath(link.target);
  const ids = [...new Set(rows.map((row) => row[`_link_${link.name}`]).filter((v) => v !== null))];
  const byId = new Map<number, ApiRecord>();
  if (ids.length) {
    const cols = embeddedFieldsOf(link);
    const found = sql
      .stmt(
        `SELECT id, ${cols.map((c) => `"${c}"`).join(', ')} FROM ${target.table}
         WHERE account_id = ? AND id IN (SELECT value FROM json_each(?))`,
      )
      .all(accountId, JSON.stringify(ids)) as Row[];
    for (const f of found) {
      const { id, ...rest } = f;
      byId.set(id as number, rest);
    }
  }
  rows.forEach((row, i) => {
    const id = row[`_link_${link.name}`] as number | null;
    (records[i] as ApiRecord)[link.name] = { data: id === null ? null : (byId.get(id) ?? null) };
  });
}

/** The columns of the records a create body links to (a property's contact), each found by one field. */
function resolveLinks(sql: Sql, accountId: number, r: ResourceDef, body: ValidBody, bag: ErrorBag): Row {
  const out: Row = {};
  for (const link of r.linkOnCreate ?? []) {
    const by = body.links[link.name];
    if (!by) continue;
    const [key, value] = Object.entries(by)[0] as [string, string];
    const target = resourceByPath(link.target);
    const rows = sql
      .stmt(`SELECT id FROM ${target.table} WHERE account_id = ? AND "${key}" = ? COLLATE NOCASE LIMIT 2`)
      .all(accountId, value) as { id: number }[];
    if (rows.length === 1) out[link.column] = (rows[0] as { id: number }).id;
    else
      bag.add(
        link.name,
        rows.length === 0
          ? `No ${target.singular} has ${key} "${value}".`
          : `More than one ${target.singular} has ${key} "${value}"; name it by uuid.`,
      );
  }
  return out;
}

/**
 * 409 when a write would give a record the values another record of the account has for one of
 * the description's unique keys. `current` is the stored row on update (its own values are no
 * clash, and fill the key's fields the write leaves alone).
 */
function checkUnique(sql: Sql, accountId: number, r: ResourceDef, cols: Row, current?: Row): void {
  for (const key of r.unique ?? []) {
    if (!key.some((k) => k in cols)) continue;
    const values = key.map((k) => (k in cols ? cols[k] : current?.[k]));
    // As in SQL, a null is never equal to another.
    if (values.some((v) => v === null || v === undefined)) continue;
    const clash = sql
      .stmt(`SELECT id FROM ${r.table} WHERE account_id = ? AND ${key.map((k) => `"${k}" = ?`).join(' AND ')} LIMIT 1`)
      .get(accountId, ...values) as { id: number } | undefined;
    if (clash && clash.id !== current?._id) {
      const field = key[key.length - 1] as string;
      const value = values[values.length - 1];
      const scope = key.slice(0, -1).map((k, i) => valueInWords(r, k, values[i]));
      const what = field === 'name' ? `named "${value}"` : `with ${field} "${value}"`;
      throw new ApiError(
        409,
        `A ${r.singular} ${what} already exists${scope.length ? ` for ${scope.join(' and ')}` : ''}.`,
        { [field]: [`The ${field} "${value}" is already taken.`] },
      );
    }
  }
}

/** A value of a unique key's scope, as a 409 message names it: an entity type as its resource's records. */
function valueInWords(r: ResourceDef, name: string, value: unknown): string {
  const f = fieldOf(r, name);
  if (f?.codes === ENTITY_TYPES) return ownerOfEntity(value as number)?.plural ?? `entity type ${value}`;
  if (f?.codes) return `${name} ${f.codes[value as number] ?? value}`;
  return `${name} "${value}"`;
}
