/**
 * The records of every resource, in PostgreSQL: the same operations, checks, messages and order
 * as the SQLite store (../sqlite/records.ts), with the same rows (../sqlite/rows.ts: columns and
 * values through the kinds) and the same folds. Differences are PostgreSQL's own: a fuzzy filter
 * is a LIKE on the fold column (its % and _ escaped), a clash with a unique key is found by the
 * key's constraint (so two writers at once cannot both pass), and every write is one transaction.
 */
import { randomUUID } from 'node:crypto';
import { ApiError, ErrorBag, ValidationError } from '../../core/errors.js';
import type { Condition, ListQuery } from '../../core/query.js';
import { NAME_RE, nameFromLabel, type ValidBody } from '../../core/validate.js';
import {
  CUSTOM_FIELDS,
  CUSTOM_VALUES_KEY,
  ENTITY_TYPES,
  embeddedFieldsOf,
  fieldOf,
  ownerOfEntity,
  resourceByPath,
} from '../../resources/index.js';
import type { LinkDef, RelationDef, ResourceDef } from '../../resources/types.js';
import { foldColumnOf } from '../columns.js';
import { fold } from '../sqlite/fold.js';
import { columnValues, dateFlagColumn, selectList, toRecord, withFolds } from '../sqlite/rows.js';
import type { ApiRecord, ParentRef } from '../store.js';
import type { Pg, Row } from './db.js';

/** The columns of a custom field (fields of CUSTOM_FIELDS) that its values are found and shown by. */
const FIELD = { entity: 'entity_type', name: 'name', label: 'label' } as const;
const FIELDS = CUSTOM_FIELDS.table;

/** PostgreSQL's text holds no NUL: a value with one names no record. */
const hasNul = (v: unknown) => typeof v === 'string' && v.includes('\u0000');

/** A LIKE pattern matching text that contains `value` (% _ and \ taken literally). */
export function containsPattern(value: string): string {
  return `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

// LIKE's escape character is the backslash already: no ESCAPE clause, which keeps the pattern a
// plain bound value that a trigram index can answer.
const contains = (column: string) => `${column} LIKE ?`;

// ------------------------------------------------------------------ WHERE

function whereSql(
  r: ResourceDef,
  alias: string,
  conditions: readonly Condition[],
  accountId: number,
  params: unknown[],
  depth = 0,
): string[] {
  const out: string[] = [];
  for (const c of conditions) {
    switch (c.kind) {
      case 'in':
      case 'int':
        out.push(`${alias}."${c.field.name}" IN (${c.values.map(() => '?').join(', ')})`);
        params.push(...c.values);
        break;
      case 'bool':
        out.push(`${alias}."${c.field.name}" = ?`);
        params.push(c.value ? 1 : 0);
        break;
      case 'fuzzy':
        out.push(contains(`${alias}."${foldColumnOf(c.field)}"`));
        params.push(containsPattern(fold(c.value, c.field.filter)));
        break;
      case 'range':
        out.push(`${alias}."${c.field.name}" >= ? AND ${alias}."${c.field.name}" < ?`);
        params.push(c.range.start, c.range.end);
        break;
      case 'relation': {
        const t = `r${depth}`;
        params.push(accountId);
        const inner = whereSql(c.target, t, c.conditions, accountId, params, depth + 1);
        out.push(
          `${alias}.${c.relation.column} IN (SELECT ${t}.id FROM ${c.target.table} ${t} WHERE ${t}.account_id = ?${inner
            .map((s) => ` AND ${s}`)
            .join('')})`,
        );
        break;
      }
      case 'custom': {
        const parts = ['cf.account_id = ?', `cf.${FIELD.entity} = ?`];
        params.push(accountId, c.entity);
        if (c.name !== undefined) {
          parts.push(`cf.${FIELD.name} = ?`);
          params.push(c.name);
        }
        if (c.uuids !== undefined) {
          parts.push(`cf.uuid IN (${c.uuids.map(() => '?').join(', ')})`);
          params.push(...c.uuids);
        }
        if (c.value !== undefined) {
          parts.push(contains('cv.value_fold'));
          params.push(containsPattern(fold(c.value)));
        }
        out.push(
          `${alias}.id IN (SELECT cv.${r.customValues?.column} FROM custom_values cv JOIN ${FIELDS} cf ON cf.id = cv.field_id WHERE ${parts.join(' AND ')})`,
        );
        break;
      }
    }
  }
  return out;
}

// ------------------------------------------------------------------ reads

export async function listRecords(
  pg: Pg,
  accountId: number,
  r: ResourceDef,
  q: ListQuery,
): Promise<{ records: ApiRecord[]; total: number }> {
  const params: unknown[] = [accountId];
  const where = ['t.account_id = ?', ...whereSql(r, 't', q.conditions, accountId, params)].join(' AND ');
  const offset = (q.page - 1) * q.perPage;
  // The total and the page in one statement (one snapshot, one round trip): the count's one row,
  // joined to the page's rows (none past the end: the page's columns are then null). The page's
  // ids are found first, on the order index, so that the rows skipped are never read whole (nor
  // their live counts computed).
  const rows = await pg.query(
    `SELECT c.n AS _total, p.* FROM (SELECT COUNT(*) AS n FROM ${r.table} t WHERE ${where}) c
     LEFT JOIN LATERAL (SELECT ${selectList(r, 't')} FROM ${r.table} t WHERE t.id IN (
       SELECT t.id FROM ${r.table} t WHERE ${where} ORDER BY t.created_at, t.id LIMIT ? OFFSET ?)
       ORDER BY t.created_at, t.id) p ON true`,
    [...params, ...params, q.perPage, offset],
    false,
  );
  const total = (rows[0]?._total as number | undefined) ?? 0;
  const page = rows.filter((row) => row._id !== null);
  const records = page.map((row) => toRecord(r, row));
  await embed(pg, accountId, r, q.embed, page, records);
  return { records, total };
}

export async function getRecord(
  pg: Pg,
  accountId: number,
  r: ResourceDef,
  uuid: string,
  names: readonly string[] = [],
): Promise<ApiRecord> {
  const row = await mustFind(pg, accountId, r, uuid);
  const rec = toRecord(r, row);
  await embed(pg, accountId, r, names, [row], [rec]);
  return rec;
}

function notFound(r: ResourceDef, uuid: string): ApiError {
  return new ApiError(404, `No ${r.singular} with uuid "${uuid}".`);
}

async function mustFind(pg: Pg, accountId: number, r: ResourceDef, uuid: string, lock = false): Promise<Row> {
  if (hasNul(uuid)) throw notFound(r, uuid);
  const row = (
    await pg.query(
      `SELECT ${selectList(r, 't')} FROM ${r.table} t WHERE t.account_id = ? AND t.uuid = ?${lock ? ' FOR UPDATE' : ''}`,
      [accountId, uuid],
    )
  )[0];
  if (!row) throw notFound(r, uuid);
  return row;
}

async function embed(
  pg: Pg,
  accountId: number,
  r: ResourceDef,
  names: readonly string[],
  rows: Row[],
  records: ApiRecord[],
): Promise<void> {
  if (r.customValues && names.includes(CUSTOM_VALUES_KEY)) await embedCustomValues(pg, r, rows, records);
  for (const link of [...(r.linkOnCreate ?? []), ...(r.parents ?? [])])
    if (names.includes(link.name)) await embedLink(pg, accountId, link, rows, records);
}

async function embedCustomValues(pg: Pg, r: ResourceDef, rows: Row[], records: ApiRecord[]): Promise<void> {
  const col = r.customValues?.column;
  const ids = rows.map((row) => row._id as number);
  const byOwner = new Map<number, ApiRecord[]>();
  if (ids.length) {
    const values = await pg.query(
      `SELECT cv.${col} AS owner, cf.uuid, cf.${FIELD.name} AS name, cf.${FIELD.label} AS label, cv.value
       FROM custom_values cv JOIN ${FIELDS} cf ON cf.id = cv.field_id
       WHERE cv.${col} = ANY(?::bigint[]) ORDER BY cf.created_at, cf.id`,
      [ids],
    );
    for (const v of values) {
      const list = byOwner.get(v.owner as number) ?? [];
      list.push({ uuid: v.uuid, name: v.name, label: v.label, value: v.value });
      byOwner.set(v.owner as number, list);
    }
  }
  rows.forEach((row, i) => {
    (records[i] as ApiRecord)[CUSTOM_VALUES_KEY] = { data: byOwner.get(row._id as number) ?? [] };
  });
}

/** A linked record (a property's contact, a note's parent) as {"data": {uuid, ...identifying fields} | null}. */
async function embedLink(
  pg: Pg,
  accountId: number,
  link: LinkDef | RelationDef,
  rows: Row[],
  records: ApiRecord[],
): Promise<void> {
  const target = resourceByPath(link.target);
  const ids = [...new Set(rows.map((row) => row[`_link_${link.name}`]).filter((v) => v !== null))];
  const byId = new Map<number, ApiRecord>();
  if (ids.length) {
    const cols = embeddedFieldsOf(link);
    const found = await pg.query(
      `SELECT id, ${cols.map((c) => `"${c}"`).join(', ')} FROM ${target.table}
       WHERE account_id = ? AND id = ANY(?::bigint[])`,
      [accountId, ids],
    );
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

// ------------------------------------------------------------------ writes

export function createRecord(
  pg: Pg,
  accountId: number,
  r: ResourceDef,
  body: ValidBody,
  parent?: ParentRef,
): Promise<ApiRecord> {
  return pg.write(async (tx) => {
    const bag = new ErrorBag();
    const cols = columnValues(r, body.values);
    Object.assign(cols, await resolveLinks(tx, accountId, r, body, bag));
    if (parent) {
      const rel = r.parents?.find((x) => x.target === parent.resource.path);
      // Locked, so that the parent cannot be deleted before this commits.
      const p = await mustFind(tx, accountId, parent.resource, parent.uuid, true);
      if (rel) cols[rel.column] = p._id;
    }
    bag.throwIfAny();
    if (r === CUSTOM_FIELDS) await beforeCustomFieldWrite(tx, accountId, cols);
    const t = tx.now();
    const uuid = randomUUID();
    withFolds(r, cols);
    const names = ['account_id', 'uuid', 'created_at', 'updated_at', ...Object.keys(cols)];
    const inserted = await uniqueOr409(r, cols, undefined, () =>
      tx.query(
        `INSERT INTO ${r.table} (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')}) RETURNING id`,
        [accountId, uuid, t, t, ...Object.values(cols)],
      ),
    );
    await setCustomValues(tx, accountId, r, inserted[0]?.id as number, body, bag);
    bag.throwIfAny();
    return getRecord(tx, accountId, r, uuid);
  });
}

export function updateRecord(
  pg: Pg,
  accountId: number,
  r: ResourceDef,
  uuid: string,
  body: ValidBody,
): Promise<ApiRecord> {
  return pg.write(async (tx) => {
    const row = await mustFind(tx, accountId, r, uuid, true);
    const bag = new ErrorBag();
    const cols = columnValues(r, body.values);
    // A stored date (all day) cannot be made "not all day" without giving a time.
    for (const f of r.fields)
      if (f.allDayFlag && cols[f.name] === undefined && cols[f.allDayFlag] === 0 && row[dateFlagColumn(f)] === 1)
        throw new ValidationError({
          [f.allDayFlag]: [`The ${f.allDayFlag} field cannot be false when ${f.name} is a date without a time.`],
        });
    if (r === CUSTOM_FIELDS) await beforeCustomFieldWrite(tx, accountId, cols, row);
    withFolds(r, cols);
    const names = Object.keys(cols);
    await uniqueOr409(r, cols, row, () =>
      tx.query(
        `UPDATE ${r.table} SET ${[...names.map((n) => `"${n}" = ?`), 'updated_at = ?'].join(', ')} WHERE id = ?`,
        [...Object.values(cols), tx.now(), row._id],
      ),
    );
    await setCustomValues(tx, accountId, r, row._id as number, body, bag);
    bag.throwIfAny();
    return getRecord(tx, accountId, r, uuid);
  });
}

export async function deleteRecord(pg: Pg, accountId: number, r: ResourceDef, uuid: string): Promise<void> {
  if (hasNul(uuid)) throw notFound(r, uuid);
  const changes = await pg.write((tx) =>
    tx.run(`DELETE FROM ${r.table} WHERE account_id = ? AND uuid = ?`, [accountId, uuid]),
  );
  if (changes === 0) throw notFound(r, uuid);
}

/** The columns of the records a create body links to (a property's contact), each found by one field. */
async function resolveLinks(pg: Pg, accountId: number, r: ResourceDef, body: ValidBody, bag: ErrorBag): Promise<Row> {
  const out: Row = {};
  for (const link of r.linkOnCreate ?? []) {
    const by = body.links[link.name];
    if (!by) continue;
    const [key, value] = Object.entries(by)[0] as [string, string];
    const target = resourceByPath(link.target);
    // SQLite's NOCASE: ASCII letters alone are folded, which lower() does under the C collation.
    const rows = hasNul(value)
      ? []
      : await pg.query(
          `SELECT id FROM ${target.table} WHERE account_id = ? AND lower("${key}" COLLATE "C") = lower(?::text COLLATE "C") LIMIT 2`,
          [accountId, value],
        );
    if (rows.length === 1) out[link.column] = (rows[0] as Row).id;
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
 * Runs a write; a clash with one of the description's unique keys (its constraint, checked by
 * PostgreSQL as the row is written: two writers at once cannot both pass) becomes the 409 the
 * SQLite store answers. `current` is the stored row on update.
 */
async function uniqueOr409<T>(
  r: ResourceDef,
  cols: Row,
  current: Row | undefined,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (e) {
    const err = e as { code?: string; constraint?: string };
    if (err.code !== '23505' || !r.unique?.length || !err.constraint?.startsWith(`${r.table}_unique`)) throw e;
    const key = r.unique[0] as readonly string[];
    const values = key.map((k) => (k in cols ? cols[k] : current?.[k]));
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

/** A value of a unique key's scope, as a 409 message names it: an entity type as its resource's records. */
function valueInWords(r: ResourceDef, name: string, value: unknown): string {
  const f = fieldOf(r, name);
  if (f?.codes === ENTITY_TYPES) return ownerOfEntity(value as number)?.plural ?? `entity type ${value}`;
  if (f?.codes) return `${name} ${f.codes[value as number] ?? value}`;
  return `${name} "${value}"`;
}

// ------------------------------------------------------------------ custom values

/** Sets (or, for a null value, clears) the custom values a body gives a record; errors go to `bag`. */
async function setCustomValues(
  pg: Pg,
  accountId: number,
  r: ResourceDef,
  ownerId: number,
  body: ValidBody,
  bag: ErrorBag,
): Promise<void> {
  if (!body.customValues || !r.customValues) return;
  const { column: col, entity } = r.customValues;
  const resolved: [number, string | null][] = [];
  for (const [i, cv] of body.customValues.entries()) {
    const key = cv.name !== undefined ? FIELD.name : 'uuid';
    const wanted = cv.name ?? cv.uuid;
    const row = hasNul(wanted)
      ? undefined
      : (
          await pg.query(`SELECT id FROM ${FIELDS} WHERE account_id = ? AND ${FIELD.entity} = ? AND ${key} = ?`, [
            accountId,
            entity,
            wanted,
          ])
        )[0];
    if (!row)
      bag.add(
        `${CUSTOM_VALUES_KEY}.${i}.${key}`,
        `No ${r.singular} custom field has ${key} "${wanted}"; create it with ${FIELD.entity} ${entity}.`,
      );
    else resolved.push([row.id as number, cv.value]);
  }
  if (!bag.empty) return;
  for (const [fieldId, value] of resolved) {
    if (value === null) await pg.run(`DELETE FROM custom_values WHERE field_id = ? AND ${col} = ?`, [fieldId, ownerId]);
    else
      await pg.run(
        `INSERT INTO custom_values (field_id, ${col}, value, value_fold) VALUES (?, ?, ?, ?)
         ON CONFLICT (field_id, ${col}) DO UPDATE SET value = excluded.value, value_fold = excluded.value_fold`,
        [fieldId, ownerId, value, fold(value)],
      );
  }
}

/**
 * The escape hatch of CUSTOM_FIELDS, as the SQLite store has it (../sqlite/custom-values.ts): a
 * given name must be an identifier; a missing one is generated from the label on create and kept
 * on update; the entity type cannot change while values of the field are stored.
 */
async function beforeCustomFieldWrite(pg: Pg, accountId: number, cols: Row, current?: Row): Promise<void> {
  if (current && cols[FIELD.entity] !== undefined && cols[FIELD.entity] !== current[FIELD.entity]) {
    const used = await pg.query('SELECT 1 FROM custom_values WHERE field_id = ? LIMIT 1', [current._id]);
    if (used.length)
      throw new ValidationError({
        [FIELD.entity]: ['The entity type cannot change while values of this field are stored.'],
      });
  }
  const given = cols[FIELD.name];
  if (typeof given === 'string') {
    if (!NAME_RE.test(given))
      throw new ValidationError({
        [FIELD.name]: [
          'The name field must start with a letter and hold only lower-case letters, digits and underscores.',
        ],
      });
    return;
  }
  if (current) {
    delete cols[FIELD.name];
    return;
  }
  const entity = cols[FIELD.entity];
  const base = nameFromLabel(String(cols[FIELD.label]));
  // The names taken that a generated one could clash with, in one query.
  const taken = new Set(
    (
      await pg.query(
        `SELECT ${FIELD.name} AS name FROM ${FIELDS} WHERE account_id = ? AND ${FIELD.entity} = ? AND (${FIELD.name} = ? OR ${FIELD.name} LIKE ? ESCAPE '\\')`,
        [accountId, entity, base, `${base.replace(/[\\%_]/g, (c) => `\\${c}`)}\\_%`],
      )
    ).map((x) => x.name as string),
  );
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  cols[FIELD.name] = name;
}
