/**
 * Validation of write bodies, derived from the resource descriptions. Used by the server (as the
 * authority) and by the CLI (to fail before sending). Messages follow Laravel's wording.
 */
import { CUSTOM_VALUES_KEY, inputFields, resourceByPath, writableLinks } from '../resources/index.js';
import type { LinkDef, ResourceDef, SetDef } from '../resources/types.js';
import { isDateOnly } from './datetime.js';
import { isObject } from './json.js';
import { ErrorBag } from './errors.js';
import { fieldKind, INVALID, label, type Report, wellFormed } from './kinds.js';

export type Mode = 'create' | 'update';

/** A custom field value given on a property or contact write. */
export interface CustomValueInput {
  readonly name?: string;
  readonly uuid?: string;
  readonly value: string | null;
}

/** A record named by one of its fields: `{"uuid": "..."}`, `{"label": "For Let"}`. */
export type Named = Readonly<Record<string, string>>;

/** Records one write may put in a set. */
export const MAX_SET_ITEMS = 100;

export interface ValidBody {
  /** Normalized values of the description's input fields, keyed by wire name. */
  readonly values: Record<string, string | number | boolean | null>;
  /** Links to other records (a property's contact, its status), each as the field naming it, or null to clear it. */
  readonly links: Record<string, Named | null>;
  /** Sets of records to hold (a contact's competencies), each named by one field: the whole set. */
  readonly sets: Record<string, Named[]>;
  /** Custom field values to set. */
  readonly customValues: readonly CustomValueInput[] | undefined;
}

/** Custom field values one write may set, and the characters of each. */
export const MAX_CUSTOM_VALUES = 100;
export const MAX_CUSTOM_VALUE_CHARS = 65535;

function isBlank(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

function checkCustomValues(v: unknown, bag: ErrorBag): CustomValueInput[] | undefined {
  if (!Array.isArray(v)) {
    bag.add(CUSTOM_VALUES_KEY, 'The custom fields field must be a list of {name or uuid, value} objects.');
    return undefined;
  }
  if (v.length > MAX_CUSTOM_VALUES) {
    bag.add(CUSTOM_VALUES_KEY, `The custom fields field must not have more than ${MAX_CUSTOM_VALUES} items.`);
    return undefined;
  }
  const out: CustomValueInput[] = [];
  v.forEach((o, i) => {
    const at = `${CUSTOM_VALUES_KEY}.${i}`;
    const fail = (key: string, rule: string) => bag.add(`${at}${key}`, `The ${at}${key} field ${rule}.`);
    if (!isObject(o)) return fail('', 'must be an object with name or uuid, and value');
    for (const k of Object.keys(o)) if (k !== 'name' && k !== 'uuid' && k !== 'value') fail(`.${k}`, 'is not allowed');
    const name = o.name;
    const uuid = o.uuid;
    if ((name === undefined) === (uuid === undefined)) return fail('', 'must have either a name or a uuid');
    if (name !== undefined && typeof name !== 'string') return fail('.name', 'must be a string');
    if (uuid !== undefined && typeof uuid !== 'string') return fail('.uuid', 'must be a string');
    if (!('value' in o)) return fail('.value', 'is required');
    const value = o.value;
    if (value !== null && typeof value !== 'string') return fail('.value', 'must be a string or null');
    if (typeof value === 'string' && !wellFormed(value)) return fail('.value', 'must be valid Unicode text');
    // As a text field: a NUL is no text (PostgreSQL's text cannot hold one; SQLite's LIKE stops at it).
    if (typeof value === 'string' && value.includes('\u0000')) return fail('.value', 'must not contain NUL characters');
    if (typeof value === 'string' && [...value].length > MAX_CUSTOM_VALUE_CHARS)
      return fail('.value', `must not be greater than ${MAX_CUSTOM_VALUE_CHARS} characters`);
    out.push({ ...(name !== undefined ? { name } : { uuid: uuid as string }), value: value as string | null });
  });
  return out;
}

/**
 * Checks a write body against the resource's description. Throws ValidationError (422) naming
 * every bad field; returns normalized values, with create defaults applied.
 */
export function validateBody(resource: ResourceDef, body: unknown, mode: Mode): ValidBody {
  const bag = new ErrorBag();
  const report: Report = (field, message) => {
    bag.add(field, message);
    return INVALID;
  };
  const fieldError = (name: string, rule: string) => bag.add(name, `The ${label(name)} field ${rule}.`);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    bag.add('body', 'The request body must be a JSON object.');
    bag.throwIfAny();
  }
  const input = body as Record<string, unknown>;
  const fields = inputFields(resource);
  const values: Record<string, string | number | boolean | null> = {};
  const links = new Map(writableLinks(resource, mode).map((l) => [l.name, l]));
  const sets = new Map((resource.sets ?? []).map((x) => [x.name, x]));
  const named: Record<string, Named | null> = {};
  const setValues: Record<string, Named[]> = {};
  let customValues: CustomValueInput[] | undefined;

  for (const key of Object.keys(input)) {
    const f = resource.fields.find((x) => x.name === key);
    if (f?.readOnly) fieldError(key, 'is read-only');
    else if (f) continue;
    else if (key === CUSTOM_VALUES_KEY && resource.customValues) customValues = checkCustomValues(input[key], bag);
    else if (links.has(key)) {
      const link = links.get(key) as LinkDef;
      const v = input[key];
      if (v === undefined || (v === null && mode === 'create')) continue;
      if (v === null) named[key] = null;
      else {
        const n = namedRecord(v, link, key, bag);
        if (n) named[key] = n;
      }
    } else if (sets.has(key)) {
      const set = sets.get(key) as SetDef;
      const v = input[key];
      if (!Array.isArray(v))
        bag.add(key, `The ${label(key)} field must be a list such as [{"${set.by[1] ?? set.by[0]}": "..."}].`);
      else if (v.length > MAX_SET_ITEMS)
        bag.add(key, `The ${label(key)} field must not have more than ${MAX_SET_ITEMS} items.`);
      else {
        const list = v.map((item, i) => namedRecord(item, set, `${key}.${i}`, bag));
        if (list.every((n) => n !== undefined)) setValues[key] = list as Named[];
      }
    } else fieldError(key, 'is not allowed');
  }

  for (const f of fields) {
    const present = Object.hasOwn(input, f.name);
    const v = input[f.name];
    const required = mode === 'create' ? f.requiredOnCreate : f.requiredOnUpdate;
    // An update may leave out what create requires, but never blank it: a record must never
    // reach a state that create refuses.
    const blanked = mode === 'update' && f.requiredOnCreate && present && isBlank(v);
    if ((required && isBlank(v)) || blanked) {
      fieldError(f.name, 'is required');
      continue;
    }
    if (!present) {
      if (mode === 'create' && f.default !== undefined) values[f.name] = f.default;
      continue;
    }
    if (v === null) {
      if (f.nullable) values[f.name] = null;
      // An update may not null what create would have defaulted.
      else if (mode === 'create' && f.default !== undefined) values[f.name] = f.default;
      else fieldError(f.name, 'must not be null');
      continue;
    }
    const value = fieldKind(f).check(f, v, report);
    if (value !== INVALID) values[f.name] = value;
  }

  // A date without time is due all day; a datetime is not, unless the body says so.
  for (const f of fields) {
    if (!f.allDayFlag || typeof values[f.name] !== 'string') continue;
    const given = input[f.allDayFlag];
    const allDay = isDateOnly(values[f.name] as string);
    if (allDay && given === false) fieldError(f.allDayFlag, `cannot be false when ${f.name} is a date without a time`);
    else if (given === undefined || given === null) values[f.allDayFlag] = allDay;
  }
  bag.throwIfAny();
  return { values, links: named, sets: setValues, customValues };
}

/** A body's object naming one record by one of `rel.by` (`{"label": "For Let"}`); errors go to `bag` under `at`. */
function namedRecord(v: unknown, rel: LinkDef | SetDef, at: string, bag: ErrorBag): Named | undefined {
  const entries = isObject(v) ? Object.entries(v) : [];
  const [k = '', value] = entries[0] ?? [];
  if (entries.length === 1 && rel.by.includes(k) && typeof value === 'string' && value.trim() !== '') {
    if (value.includes('\u0000') || !wellFormed(value)) bag.add(at, `The ${label(at)}.${k} field must be valid text.`);
    else return { [k]: value };
  } else
    bag.add(
      at,
      `The ${label(at)} field must name one ${resourceByPath(rel.target).singular} by ${rel.by.join(' or ')}, e.g. {"${rel.by[0]}": "..."}.`,
    );
  return undefined;
}

/** `"Favourite Colour"` -> `favourite_colour`: the generated name of a custom field. */
export function nameFromLabel(text: string): string {
  const base = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return base === '' ? 'field' : /^[0-9]/.test(base) ? `field_${base}` : base;
}

export const NAME_RE = /^[a-z][a-z0-9_]*$/;
