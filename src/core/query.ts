/**
 * The list query of a resource, both ways: query string -> filter model (server), and flag values
 * -> query string (client). Every accepted parameter comes from the resource's description.
 */
import { fieldOf, filterFields, resourceByPath } from '../resources/index.js';
import type { FieldDef, RelationDef, ResourceDef } from '../resources/types.js';
import { DatetimeParseError, parseRange, type Range } from './datetime.js';
import { ErrorBag, QueryError } from './errors.js';

import { DEFAULT_PER_PAGE, MAX_PER_PAGE, MAX_QUERY_PARAMS, MAX_QUERY_VALUE } from './limits.js';

export { DEFAULT_PER_PAGE, MAX_PER_PAGE, MAX_QUERY_PARAMS, MAX_QUERY_VALUE };

export type Condition =
  | { readonly kind: 'in'; readonly field: FieldDef; readonly values: readonly string[] }
  | { readonly kind: 'int'; readonly field: FieldDef; readonly values: readonly number[] }
  | { readonly kind: 'bool'; readonly field: FieldDef; readonly value: boolean }
  | { readonly kind: 'fuzzy'; readonly field: FieldDef; readonly value: string }
  | { readonly kind: 'range'; readonly field: FieldDef; readonly range: Range }
  | {
      readonly kind: 'relation';
      readonly relation: RelationDef;
      readonly target: ResourceDef;
      readonly conditions: readonly Condition[];
    }
  | {
      readonly kind: 'custom';
      readonly entity: number;
      readonly name?: string;
      readonly uuids?: readonly string[];
      readonly value?: string;
    };

export interface ListQuery {
  readonly conditions: readonly Condition[];
  readonly page: number;
  readonly perPage: number;
  readonly embed: readonly string[];
}

/** `property[uuid][]` -> { base: 'property', path: ['uuid'], array: true } */
interface Key {
  readonly raw: string;
  readonly base: string;
  readonly path: readonly string[];
  readonly array: boolean;
}

const KEY_RE = /^([a-z_][a-z0-9_]*)((?:\[[a-z_][a-z0-9_]*\])*)(\[\])?$/;

function parseKey(raw: string): Key | undefined {
  const m = KEY_RE.exec(raw);
  if (!m) return undefined;
  const path = m[2] ? m[2].slice(1, -1).split('][') : [];
  return { raw, base: m[1] as string, path, array: m[3] !== undefined };
}

const CUSTOM_KEYS = ['name', 'uuid', 'value'] as const;

/** Every top-level query parameter a resource's list accepts, for messages and completion. */
export function listParameters(resource: ResourceDef): string[] {
  const out = filterFields(resource).map((f) => f.name);
  for (const r of resource.parents ?? []) out.push(`${r.name}[...]`);
  if (resource.customValues) out.push('custom_fields[name|uuid|value]');
  out.push('page', 'per_page');
  if (resource.embeds?.length) out.push('embed');
  return out;
}

function unknown(resource: ResourceDef, raw: string, hint?: string): QueryError {
  return new QueryError(
    raw,
    hint ?? `Unknown query parameter "${raw}". ${resource.path} accepts: ${listParameters(resource).join(', ')}.`,
  );
}

/** Parses one filter value of a field into a condition; `values` has several for a `[]` key. */
function fieldCondition(field: FieldDef, key: Key, values: string[], now: number): Condition {
  const kind = field.filter;
  const arrayable = kind === 'exact' || kind === 'int' || kind === 'code';
  if (key.array && !arrayable) throw new QueryError(key.raw, `${field.name} does not take several values.`);
  if (!key.array && values.length > 1)
    throw new QueryError(
      key.raw,
      `${key.raw} is given more than once${arrayable ? `; use ${field.name}[] for several values` : ''}.`,
    );
  const one = values[0] ?? '';
  switch (kind) {
    case 'exact':
      return { kind: 'in', field, values };
    case 'int':
    case 'code': {
      const nums = values.map((v) => {
        if (!/^-?\d{1,9}$/.test(v.trim())) throw new QueryError(key.raw, `${key.raw} must be an integer, not "${v}".`);
        return Number(v);
      });
      return { kind: 'int', field, values: nums };
    }
    case 'bool': {
      const v = one.trim().toLowerCase();
      if (v === 'true' || v === '1') return { kind: 'bool', field, value: true };
      if (v === 'false' || v === '0') return { kind: 'bool', field, value: false };
      throw new QueryError(key.raw, `${key.raw} must be true, false, 1 or 0, not "${one}".`);
    }
    case 'fuzzy':
    case 'postcode': {
      if (one.trim() === '') throw new QueryError(key.raw, `${key.raw} must not be empty.`);
      return { kind: 'fuzzy', field, value: one };
    }
    case 'datetime':
      try {
        return { kind: 'range', field, range: parseRange(one, now) };
      } catch (e) {
        if (e instanceof DatetimeParseError) throw new QueryError(key.raw, `Invalid ${key.raw}: ${e.message}.`);
        throw e;
      }
    default:
      throw new QueryError(key.raw, `${key.raw} cannot be filtered on.`);
  }
}

function groupByKey(params: URLSearchParams): Map<string, string[]> {
  const grouped = new Map<string, string[]>();
  let count = 0;
  for (const [k, v] of params) {
    count++;
    if (count > MAX_QUERY_PARAMS)
      throw new QueryError(k, `Too many query parameters: at most ${MAX_QUERY_PARAMS} are accepted.`);
    if (v.length > MAX_QUERY_VALUE)
      throw new QueryError(k, `The value of ${k} is too long: at most ${MAX_QUERY_VALUE} characters.`);
    // SQLite's LIKE stops at a NUL, so "a\0b" would match as "a": refuse it, as bodies do.
    if (v.includes('\u0000')) throw new QueryError(k, `The value of ${k} must not contain NUL characters.`);
    const list = grouped.get(k) ?? [];
    list.push(v);
    grouped.set(k, list);
  }
  return grouped;
}

function positiveInt(bag: ErrorBag, name: string, raw: string | undefined, fallback: number, max?: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d{1,9}$/.test(raw.trim())) {
    bag.add(name, `The ${name} field must be an integer.`);
    return fallback;
  }
  const n = Number(raw);
  if (n < 1) bag.add(name, `The ${name} field must be at least 1.`);
  else if (max !== undefined && n > max) bag.add(name, `The ${name} field must not be greater than ${max}.`);
  return n;
}

/**
 * Parses a list endpoint's query string. Throws QueryError (400) naming the parameter, or a
 * ValidationError (422) for page and per_page out of range.
 */
export function parseListQuery(resource: ResourceDef, params: URLSearchParams, now: number): ListQuery {
  const grouped = groupByKey(params);
  const conditions: Condition[] = [];
  const relationKeys = new Map<string, { rel: RelationDef; keys: [Key, string[]][] }>();
  const custom: { name?: string; uuids?: string[]; value?: string } = {};
  let hasCustom = false;
  let embed: string[] = [];
  const bag = new ErrorBag();
  let page = 1;
  let perPage = DEFAULT_PER_PAGE;

  for (const [raw, values] of grouped) {
    if (raw === 'page' || raw === 'per_page') {
      if (values.length > 1) throw new QueryError(raw, `${raw} is given more than once.`);
      if (raw === 'page') page = positiveInt(bag, 'page', values[0], 1);
      else perPage = positiveInt(bag, 'per_page', values[0], DEFAULT_PER_PAGE, MAX_PER_PAGE);
      continue;
    }
    if (raw === 'embed' && resource.embeds?.length) {
      embed = values
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter(Boolean);
      for (const e of embed)
        if (!resource.embeds.includes(e))
          throw new QueryError(
            'embed',
            `Unknown embed "${e}". ${resource.path} can embed: ${resource.embeds.join(', ')}.`,
          );
      continue;
    }
    const key = parseKey(raw);
    if (!key) throw unknown(resource, raw);
    const field = fieldOf(resource, key.base);
    if (field?.filter && key.path.length === 0) {
      conditions.push(fieldCondition(field, key, values, now));
      continue;
    }
    const rel = resource.parents?.find((r) => r.name === key.base);
    if (rel && key.path.length === 1) {
      const entry = relationKeys.get(rel.name) ?? { rel, keys: [] };
      entry.keys.push([key, values]);
      relationKeys.set(rel.name, entry);
      continue;
    }
    if (key.base === 'custom_fields' && resource.customValues && key.path.length === 1) {
      const sub = key.path[0] as (typeof CUSTOM_KEYS)[number];
      if (!CUSTOM_KEYS.includes(sub))
        throw new QueryError(raw, `Unknown filter "${raw}": custom_fields takes [name], [uuid] or [value].`);
      hasCustom = true;
      if (sub === 'uuid') {
        if (!key.array && values.length > 1)
          throw new QueryError(raw, `${raw} is given more than once; use custom_fields[uuid][] for several values.`);
        custom.uuids = [...(custom.uuids ?? []), ...values];
      } else {
        if (key.array || values.length > 1) throw new QueryError(raw, `${raw} takes one value.`);
        if ((values[0] ?? '').trim() === '') throw new QueryError(raw, `${raw} must not be empty.`);
        custom[sub] = values[0] as string;
      }
      continue;
    }
    if (key.base === 'value')
      throw unknown(resource, raw, `"value" is valid only inside a relational filter, as custom_fields[value].`);
    throw unknown(resource, raw);
  }
  bag.throwIfAny();

  for (const { rel, keys } of relationKeys.values()) {
    const target = resourceByPath(rel.target);
    const inner: Condition[] = [];
    for (const [key, values] of keys) {
      const name = key.path[0] as string;
      const f = fieldOf(target, name);
      if (!f?.filter)
        throw new QueryError(
          key.raw,
          `Unknown filter "${key.raw}": ${rel.name}[...] takes ${filterFields(target)
            .map((x) => x.name)
            .join(', ')}.`,
        );
      inner.push(fieldCondition(f, { ...key, base: name, path: [] }, values, now));
    }
    conditions.push({ kind: 'relation', relation: rel, target, conditions: inner });
  }
  if (hasCustom && resource.customValues)
    conditions.push({ kind: 'custom', entity: resource.customValues.entity, ...custom });
  return { conditions, page, perPage, embed };
}
