/**
 * Custom field values (custom_values, its owner's column named by `customValues` of the resource):
 * set on a write, shown as embed=custom_fields (filtered in where.ts); and a custom field's escape
 * hatch: a name generated from its label, an entity type fixed once values refer to it.
 */
import { type ErrorBag, ValidationError } from '../../core/errors.js';
import { NAME_RE, nameFromLabel, type ValidBody } from '../../core/validate.js';
import { CUSTOM_FIELD_KEYS, customFields, CUSTOM_VALUES_KEY } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import { fold } from '../columns.js';
import type { ApiRecord } from '../store.js';
import { type Dialect, get, type Row, rows, run, type Steps } from './steps.js';

const FIELDS = customFields.table;

/** PostgreSQL's text holds no NUL, and no text SQLite keeps has one: a value with one names nothing. */
export const hasNul = (v: unknown) => typeof v === 'string' && v.includes('\u0000');

/** Text in a LIKE pattern taken literally: its %, _ and \ escaped with a backslash. */
export const likeEscaped = (v: string) => v.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Sets (or, for a null value, clears) the custom values a body gives a record; errors go to `bag`. */
export function* setCustomValues(
  accountId: number,
  r: ResourceDef,
  ownerId: number,
  body: ValidBody,
  bag: ErrorBag,
): Steps<void> {
  if (!body.customValues || !r.customValues) return;
  const { column: col, entity } = r.customValues;
  const resolved: [number, string | null][] = [];
  for (const [i, cv] of body.customValues.entries()) {
    const key = cv.name !== undefined ? CUSTOM_FIELD_KEYS.name : 'uuid';
    // A uuid in any case is the same uuid (stored in lower case).
    const wanted = cv.name ?? cv.uuid?.toLowerCase();
    const sql = `SELECT id FROM ${FIELDS} WHERE account_id = ? AND ${CUSTOM_FIELD_KEYS.entity} = ? AND ${key} = ?`;
    const row = hasNul(wanted) ? undefined : ((yield get(sql, [accountId, entity, wanted])) as Row | undefined);
    if (!row)
      bag.add(
        `${CUSTOM_VALUES_KEY}.${i}.${key}`,
        `No ${r.singular} custom field has ${key} "${wanted}"; create it with ${CUSTOM_FIELD_KEYS.entity} ${entity}.`,
      );
    else resolved.push([row.id as number, cv.value]);
  }
  if (!bag.empty) return;
  for (const [fieldId, value] of resolved) {
    if (value === null) yield run(`DELETE FROM custom_values WHERE field_id = ? AND ${col} = ?`, [fieldId, ownerId]);
    else
      yield run(
        `INSERT INTO custom_values (field_id, ${col}, value, value_fold) VALUES (?, ?, ?, ?)
           ON CONFLICT (field_id, ${col}) DO UPDATE SET value = excluded.value, value_fold = excluded.value_fold`,
        [fieldId, ownerId, value, fold(value)],
      );
  }
}

/** Shows each record's custom values, as `custom_fields: {data: [{uuid, name, label, value}]}`. */
export function* embedCustomValues(d: Dialect, r: ResourceDef, owners: Row[], records: ApiRecord[]): Steps<void> {
  const col = r.customValues?.column;
  const ids = owners.map((row) => row._id as number);
  const byOwner = new Map<number, ApiRecord[]>();
  if (ids.length) {
    const values = (yield rows(
      `SELECT cv.${col} AS owner, cf.uuid, cf.${CUSTOM_FIELD_KEYS.name} AS name, cf.${CUSTOM_FIELD_KEYS.label} AS label, cv.value
         FROM custom_values cv JOIN ${FIELDS} cf ON cf.id = cv.field_id
         WHERE ${d.inIds(`cv.${col}`)} ORDER BY cf.created_at, cf.id`,
      [d.ids(ids)],
    )) as Row[];
    for (const v of values) {
      const list = byOwner.get(v.owner as number) ?? [];
      list.push({ uuid: v.uuid, name: v.name, label: v.label, value: v.value });
      byOwner.set(v.owner as number, list);
    }
  }
  owners.forEach((row, i) => {
    (records[i] as ApiRecord)[CUSTOM_VALUES_KEY] = { data: byOwner.get(row._id as number) ?? [] };
  });
}

/**
 * The escape hatch of customFields, before a write of one (its clash with another's name is the
 * unique key's, checked after): a given name must be an identifier; on create, a missing one is
 * generated from the label, free in the account and entity type (`favourite_colour`, then
 * `favourite_colour_2`); on update, a missing one keeps the stored name. The entity type cannot
 * change while values of the field are stored. `current` is the stored row on update.
 */
export function* beforeCustomFieldWrite(d: Dialect, accountId: number, cols: Row, current?: Row): Steps<void> {
  if (
    current &&
    cols[CUSTOM_FIELD_KEYS.entity] !== undefined &&
    cols[CUSTOM_FIELD_KEYS.entity] !== current[CUSTOM_FIELD_KEYS.entity]
  ) {
    const used = yield get('SELECT 1 FROM custom_values WHERE field_id = ? LIMIT 1', [current._id]);
    if (used)
      throw new ValidationError({
        [CUSTOM_FIELD_KEYS.entity]: ['The entity type cannot change while values of this field are stored.'],
      });
  }
  const given = typeof cols[CUSTOM_FIELD_KEYS.name] === 'string';
  if (given && !NAME_RE.test(cols[CUSTOM_FIELD_KEYS.name] as string))
    throw new ValidationError({
      [CUSTOM_FIELD_KEYS.name]: [
        'The name field must start with a letter and hold only lower-case letters, digits and underscores.',
      ],
    });
  if (!given && current) {
    delete cols[CUSTOM_FIELD_KEYS.name];
    return;
  }
  if (d.lockNames) yield d.lockNames(accountId);
  if (given) return;
  const entity = cols[CUSTOM_FIELD_KEYS.entity];
  const base = nameFromLabel(String(cols[CUSTOM_FIELD_KEYS.label]));
  // The names taken that a generated one could clash with, in one query.
  const found = (yield rows(
    `SELECT ${CUSTOM_FIELD_KEYS.name} AS name FROM ${FIELDS} WHERE account_id = ? AND ${CUSTOM_FIELD_KEYS.entity} = ? AND (${CUSTOM_FIELD_KEYS.name} = ? OR ${CUSTOM_FIELD_KEYS.name} LIKE ? ESCAPE '\\')`,
    [accountId, entity, base, `${likeEscaped(base)}\\_%`],
  )) as Row[];
  const taken = new Set(found.map((x) => x.name as string));
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  cols[CUSTOM_FIELD_KEYS.name] = name;
}
