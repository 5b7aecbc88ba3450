/**
 * Flags derived from the resource descriptions: list filters -> query parameters, and input
 * flags -> request bodies. Wire names are snake_case; flags are their kebab-case.
 */
import { Option, type Command } from 'commander';
import { fieldOf, filterFields, inputFields, resourceByPath } from '../resources/index.js';
import type { FieldDef, ResourceDef } from '../resources/types.js';
import { HumanDateError, parseHumanInstant, parseHumanRange } from '../core/humandate.js';
import { usageError } from './errors.js';

export const kebab = (name: string): string => name.replace(/_/g, '-');
/** The key commander stores a flag's value under: has_garage -> hasGarage. */
export const optKey = (name: string): string => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

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

// ------------------------------------------------------------------ list filters

function filterHelp(f: FieldDef): string {
  switch (f.filter) {
    case 'exact':
      return f.name === 'uuid'
        ? 'only this record (repeatable: any of them)'
        : `${f.description} is VALUE (repeatable)`;
    case 'fuzzy':
      return `${f.description} contains TEXT, ignoring case`;
    case 'postcode':
      return `${f.description} contains TEXT, ignoring case and spaces`;
    case 'int':
      return `${f.description} is N (repeatable: any of them)`;
    case 'code':
      return `${f.description}, by code or name (repeatable: any of them)`;
    case 'datetime':
      return `${f.description} within a range: "last 7 days", "this week", "today", 2026-12-01, 2026-12-01/P1W, -P7D`;
    default:
      return f.description;
  }
}

export function addFilterFlags(cmd: Command, r: ResourceDef): void {
  for (const f of filterFields(r)) {
    const flag = kebab(f.name);
    switch (f.filter) {
      case 'bool':
        cmd.option(`--${flag}`, `only those where "${f.description}" is true`);
        cmd.option(`--no-${flag}`, `only those where "${f.description}" is false`);
        break;
      case 'exact':
      case 'int':
      case 'code':
        cmd.option(
          `--${flag} <${f.kind === 'code' ? 'code' : f.kind === 'int' ? 'n' : f.name === 'uuid' ? 'uuid' : 'value'}>`,
          filterHelp(f),
          collect,
        );
        break;
      case 'datetime':
        cmd.option(`--${flag} <range>`, filterHelp(f));
        break;
      default:
        cmd.option(`--${flag} <text>`, filterHelp(f));
    }
  }
  for (const rel of r.relations ?? []) {
    const target = resourceByPath(rel.target);
    cmd.option(`--${rel.name} <uuid>`, `only those of this ${target.singular} (repeatable: any of them)`, collect);
    cmd.option(
      `--${rel.name}-where <field=value>`,
      `only those whose ${target.singular} matches a ${target.path} filter: city=leeds, bedrooms=3 (repeatable: all apply)`,
      collect,
    );
  }
  if (r.customFieldEntity) {
    cmd.option(
      '--custom-field <name=value>',
      'only those whose custom field NAME has a value containing VALUE (NAME=: any value)',
    );
    cmd.option('--custom-value <text>', 'only those with a custom field value containing TEXT');
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
  for (const rel of r.relations ?? []) {
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
  if (r.customFieldEntity) {
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

// ------------------------------------------------------------------ input bodies

export function addInputFlags(cmd: Command, r: ResourceDef, mode: 'create' | 'update'): void {
  for (const f of inputFields(r)) {
    const flag = kebab(f.name);
    const req = mode === 'create' && f.requiredOnCreate ? ' (required)' : '';
    const def =
      mode === 'create' && f.default !== undefined
        ? ` (default: ${f.default === false ? 'no' : f.default === true ? 'yes' : f.default})`
        : '';
    switch (f.kind) {
      case 'bool':
        cmd.option(`--${flag}`, `${f.description}${req}${def}`);
        cmd.option(`--no-${flag}`, `not: ${f.description}`);
        break;
      case 'int':
        cmd.option(`--${flag} <n>`, `${f.description}, a whole number ${f.min ?? 0}-${f.max ?? '…'}${req}${def}`);
        break;
      case 'code':
        cmd.option(`--${flag} <code>`, `${f.description}, by code or name${req}`);
        break;
      case 'date_or_datetime':
        cmd.option(`--${flag} <date>`, `${f.description}${req}: "tomorrow 9am", "next monday", "+2h", 2026-12-01`);
        break;
      default:
        cmd.option(`--${flag} <text>`, `${f.description}${f.max ? `, up to ${f.max} characters` : ''}${req}`);
    }
  }
  if (mode === 'create')
    for (const link of r.linkOnCreate ?? []) {
      const target = resourceByPath(link.target);
      cmd.option(`--${link.name} <${link.by.join('|')}>`, `the ${target.singular}, by ${link.by.join(' or ')}`);
    }
  if (r.customValuesInput)
    cmd.option(
      '--custom-field <name=value>',
      'set the value of the custom field named NAME (repeatable; NAME= clears it)',
      collect,
    );
  if (mode === 'update') cmd.option('--unset <field>', 'clear a field: set it to null (repeatable)', collect);
  cmd.option('--data <json>', 'the body as JSON, @file.json, or - for stdin; flags override its fields');
  cmd.option('--dry-run', 'print the request that would be sent, and send nothing');
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
  if (r.customValuesInput) {
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

export { Option };
