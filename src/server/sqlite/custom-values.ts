/**
 * Custom field values: the custom_values table, which ties a value to a custom field (a record of
 * CUSTOM_FIELDS) and to the record of the resource it was given on (`customValues` of that
 * resource's description names the column). Setting them on a write, showing them
 * (embed=custom_fields), filtering by them (custom_fields[...]); and the one escape hatch of the
 * custom fields themselves: a name generated from the label, and an entity type fixed once values
 * refer to it.
 */
import { type ErrorBag, ValidationError } from '../../core/errors.js';
import type { Condition } from '../../core/query.js';
import { NAME_RE, nameFromLabel, type ValidBody } from '../../core/validate.js';
import { CUSTOM_FIELDS, CUSTOM_VALUES_KEY } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import type { ApiRecord } from '../store.js';
import { fold } from './fold.js';
import type { Row } from './rows.js';
import type { Sql } from './statements.js';

/** The columns of a custom field (fields of CUSTOM_FIELDS) that its values are found and shown by. */
const FIELD = { entity: 'entity_type', name: 'name', label: 'label' } as const;
const FIELDS = CUSTOM_FIELDS.table;

/** SQL for a custom_fields[...] filter on the records of `r` aliased `alias`, pushing its values. */
export function customValuesCondition(
  r: ResourceDef,
  alias: string,
  c: Extract<Condition, { kind: 'custom' }>,
  accountId: number,
  params: unknown[],
): string {
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
    parts.push('instr(cv.value_fold, ?) > 0');
    params.push(fold(c.value));
  }
  return `${alias}.id IN (SELECT cv.${r.customValues?.column} FROM custom_values cv JOIN ${FIELDS} cf ON cf.id = cv.field_id WHERE ${parts.join(' AND ')})`;
}

/** Sets (or, for a null value, clears) the custom values a body gives a record; errors go to `bag`. */
export function setCustomValues(
  sql: Sql,
  accountId: number,
  r: ResourceDef,
  ownerId: number,
  body: ValidBody,
  bag: ErrorBag,
): void {
  if (!body.customValues || !r.customValues) return;
  const { column: col, entity } = r.customValues;
  const resolved: [number, string | null][] = [];
  body.customValues.forEach((cv, i) => {
    const key = cv.name !== undefined ? FIELD.name : 'uuid';
    const row = sql
      .stmt(`SELECT id FROM ${FIELDS} WHERE account_id = ? AND ${FIELD.entity} = ? AND ${key} = ?`)
      .get(accountId, entity, cv.name ?? cv.uuid) as { id: number } | undefined;
    if (!row)
      bag.add(
        `${CUSTOM_VALUES_KEY}.${i}.${key}`,
        `No ${r.singular} custom field has ${key} "${cv.name ?? cv.uuid}"; create it with ${FIELD.entity} ${entity}.`,
      );
    else resolved.push([row.id, cv.value]);
  });
  if (!bag.empty) return;
  for (const [fieldId, value] of resolved) {
    if (value === null) sql.stmt(`DELETE FROM custom_values WHERE field_id = ? AND ${col} = ?`).run(fieldId, ownerId);
    else
      sql
        .stmt(
          `INSERT INTO custom_values (field_id, ${col}, value, value_fold) VALUES (?, ?, ?, ?)
           ON CONFLICT (field_id, ${col}) DO UPDATE SET value = excluded.value, value_fold = excluded.value_fold`,
        )
        .run(fieldId, ownerId, value, fold(value));
  }
}

/** Shows each record's custom values, as `custom_fields: {data: [{uuid, name, label, value}]}`. */
export function embedCustomValues(sql: Sql, r: ResourceDef, rows: Row[], records: ApiRecord[]): void {
  const col = r.customValues?.column;
  const ids = rows.map((row) => row._id as number);
  const byOwner = new Map<number, ApiRecord[]>();
  if (ids.length) {
    const values = sql
      .stmt(
        `SELECT cv.${col} AS owner, cf.uuid, cf.${FIELD.name} AS name, cf.${FIELD.label} AS label, cv.value
         FROM custom_values cv JOIN ${FIELDS} cf ON cf.id = cv.field_id
         WHERE cv.${col} IN (SELECT value FROM json_each(?)) ORDER BY cf.created_at, cf.id`,
      )
      .all(JSON.stringify(ids)) as Row[];
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

/**
 * The escape hatch of CUSTOM_FIELDS, before a write of one (its clash with another's name is the
 * unique key's, checked after): a given name must be an identifier; on create, a missing one is
 * generated from the label, free in the account and entity type (`favourite_colour`, then
 * `favourite_colour_2`); on update, a missing one keeps the stored name. The entity type cannot
 * change while values of the field are stored. `current` is the stored row on update.
 */
export function beforeCustomFieldWrite(sql: Sql, accountId: number, cols: Row, current?: Row): void {
  if (current && cols[FIELD.entity] !== undefined && cols[FIELD.entity] !== current[FIELD.entity]) {
    const used = sql.stmt('SELECT 1 FROM custom_values WHERE field_id = ? LIMIT 1').get(current._id);
    if (used)
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
  const taken = (name: string) =>
    sql
      .stmt(`SELECT 1 FROM ${FIELDS} WHERE account_id = ? AND ${FIELD.entity} = ? AND ${FIELD.name} = ?`)
      .get(accountId, entity, name) !== undefined;
  const base = nameFromLabel(String(cols[FIELD.label]));
  let name = base;
  for (let i = 2; taken(name); i++) name = `${base}_${i}`;
  cols[FIELD.name] = name;
}
