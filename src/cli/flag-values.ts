/**
 * Flag values -> what the API takes: list filters -> query parameters, input flags -> bodies.
 * Loaded when a command runs (dates need the date libraries), while flags.ts, which only
 * declares the flags, is loaded to build the program.
 */
import { fieldOf, filterFields, inputFields, resourceByPath } from '../resources/index.js';
import type { FieldDef, ResourceDef } from '../resources/types.js';
import { HumanDateError, parseHumanInstant, parseHumanRange } from '../core/humandate.js';
import { usageError } from './errors.js';
import { kebab, optKey } from './flags.js';

function intValue(flag: string, v: string, f?: FieldDef): number {
  if (!/^-?\d+$/.test(v.trim())) throw usageError(`--${flag} must be a whole number, not "${v}".`);
  const n = Number(v);
  if (f?.min !== undefined && n < f.min) throw usageError(`--${flag} must be at least ${f.min}, not ${n}.`);
  if (f?.max !== undefined && n > f.max) throw usageError(`--${flag} must be at most ${f.max}, not ${n}.`);
  return n;
}

/** A code flag takes the number or the name: --entity-type 2 or --entity-type property. */
function codeValue(flag: string, v: string, f: FieldDef): number {
  const codes = f.codes ?? {};
  const byName = Object.entries(codes).find(([, name]) => name.toLowerCase() === v.trim().toLowerCase());
  if (byName) return Number(byName[0]);
  if (/^\d+$/.test(v.trim()) && v.trim() in codes) return Number(v.trim());
  throw usageError(
    `--${flag} must be one of ${Object.entries(codes)
      .map(([c, n]) => `${c} (${n.toLowerCase()})`)
      .join(', ')}, not "${v}".`,
  );
}

/**
 * The clock and zone that dates people type are read against: "tomorrow 9am" needs both. `zone`
 * is the user's IANA zone (Deps.timeZone); absent, the system's (TZ).
 */
export interface DateContext {
  readonly now: number;
  readonly zone?: string | undefined;
}

function dateError(flag: string, e: unknown): unknown {
  return e instanceof HumanDateError ? usageError(`--${flag}: ${e.message}`, e.hint) : e;
}

/** A datetime filter value: ISO forms as given, words ("last 7 days") as an explicit UTC interval. */
function rangeValue(flag: string, v: string, when: DateContext): string {
  try {
    return parseHumanRange(v, when);
  } catch (e) {
    throw dateError(flag, e);
  }
}

/** Appends one filter field's flag value to the query, validating it. */
function appendFilter(
  q: URLSearchParams,
  f: FieldDef,
  raw: unknown,
  flag: string,
  when: DateContext,
  prefix?: string,
): void {
  if (raw === undefined) return;
  const key = prefix ? `${prefix}[${f.name}]` : f.name;
  const values = Array.isArray(raw) ? (raw as string[]) : [raw];
  switch (f.filter) {
    case 'bool':
      q.append(key, typeof raw === 'boolean' ? String(raw) : String(boolValue(flag, String(raw))));
      return;
    case 'exact':
    case 'int':
    case 'code': {
      const vals = values.map((v) =>
        f.filter === 'int'
          ? String(intValue(flag, String(v)))
          : f.filter === 'code'
            ? String(codeValue(flag, String(v), f))
            : String(v),
      );
      if (vals.length === 1) q.append(key, vals[0] as string);
      else for (const v of vals) q.append(`${key}[]`, v);
      return;
    }
    case 'datetime':
      q.append(key, rangeValue(flag, String(raw), when));
      return;
    default:
      if (String(raw).trim() === '') throw usageError(`--${flag} must not be empty.`);
      q.append(key, String(raw));
  }
}

function boolValue(flag: string, v: string): boolean {
  const s = v.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(s)) return true;
  if (['false', '0', 'no'].includes(s)) return false;
  throw usageError(`--${flag} must be true or false, not "${v}".`);
}

function splitPair(flag: string, text: string): [string, string] {
  const i = text.indexOf('=');
  if (i <= 0) throw usageError(`--${flag} takes FIELD=VALUE, not "${text}".`);
  return [text.slice(0, i).trim(), text.slice(i + 1)];
}

/** The list query for the given flag values; `zone` is the user's, for dates in words. */
export function filterQuery(
  r: ResourceDef,
  opts: Record<string, unknown>,
  now: number,
  zone?: string,
): URLSearchParams {
  const q = new URLSearchParams();
  const when: DateContext = { now, zone };
  for (const f of filterFields(r)) appendFilter(q, f, opts[optKey(f.name)], kebab(f.name), when);
  for (const rel of r.parents ?? []) {
    const target = resourceByPath(rel.target);
    const uuids = opts[optKey(rel.name)] as string[] | undefined;
    const wheres = (opts[optKey(`${rel.name}_where`)] as string[] | undefined) ?? [];
    const inner: Record<string, unknown> = {};
    if (uuids?.length) inner.uuid = uuids;
    for (const w of wheres) {
      const [name, value] = splitPair(`${rel.name}-where`, w);
      const f = fieldOf(target, name.replace(/-/g, '_'));
      if (!f?.filter)
        throw usageError(
          `--${rel.name}-where: ${target.path} cannot be filtered on "${name}".`,
          `Fields: ${filterFields(target)
            .map((x) => x.name)
            .join(', ')}.`,
        );
      inner[f.name] =
        f.filter === 'exact' || f.filter === 'int' || f.filter === 'code'
          ? [...((inner[f.name] as string[]) ?? []), value]
          : value;
    }
    for (const [name, v] of Object.entries(inner))
      appendFilter(q, fieldOf(target, name) as FieldDef, v, `${rel.name}-where ${name}`, when, rel.name);
  }
  if (r.customValues) {
    const pair = opts.customField as string | undefined;
    if (pair !== undefined) {
      const [name, value] = splitPair('custom-field', pair);
      q.append('custom_fields[name]', name);
      if (value !== '') q.append('custom_fields[value]', value);
    }
    const any = opts.customValue as string | undefined;
    if (any !== undefined) {
      if (pair !== undefined && splitPair('custom-field', pair)[1] !== '')
        throw usageError('--custom-value cannot be combined with --custom-field NAME=VALUE; use one of them.');
      q.append('custom_fields[value]', any);
    }
  }
  return q;
}

/**
 * The body fields given by flags. `when` reads dates in words ("tomorrow 9am"); callers pass
 * deps.now() and deps.timeZone (until they all do, the system's clock and zone stand in).
 */
export function bodyFromFlags(
  r: ResourceDef,
  opts: Record<string, unknown>,
  mode: 'create' | 'update',
  when: DateContext = { now: Date.now() },
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of inputFields(r)) {
    const v = opts[optKey(f.name)];
    if (v === undefined) continue;
    const flag = kebab(f.name);
    switch (f.kind) {
      case 'bool':
        body[f.name] = v === true;
        break;
      case 'int':
        body[f.name] = intValue(flag, String(v), f);
        break;
      case 'code':
        body[f.name] = { code: codeValue(flag, String(v), f) };
        break;
      case 'date_or_datetime':
        // A day without a time is sent as YYYY-MM-DD: the server makes it all day.
        try {
          body[f.name] = parseHumanInstant(String(v), when).iso;
        } catch (e) {
          throw dateError(flag, e);
        }
        break;
      default:
        body[f.name] = String(v);
    }
  }
  if (mode === 'create')
    for (const link of r.linkOnCreate ?? []) {
      const v = opts[optKey(link.name)] as string | undefined;
      if (v === undefined) continue;
      const key = v.includes('@') && link.by.includes('email') ? 'email' : 'uuid';
      body[link.name] = { [key]: v };
    }
  if (r.customValues) {
    const pairs = (opts.customField as string[] | undefined) ?? [];
    if (pairs.length)
      body.custom_fields = pairs.map((p) => {
        const [name, value] = splitPair('custom-field', p);
        return { name, value: value === '' ? null : value };
      });
  }
  for (const name of (opts.unset as string[] | undefined) ?? []) {
    const f = fieldOf(r, name.replace(/-/g, '_'));
    if (!f || f.readOnly) throw usageError(`--unset: ${r.path} have no field "${name}".`);
    if (!f.nullable) throw usageError(`--unset: ${f.name} cannot be empty.`);
    body[f.name] = null;
  }
  return body;
}
