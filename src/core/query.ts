/**
 * The list query of a resource, both ways: a filter model -> query string (encodeListQuery, the
 * client), and query string -> conditions (parseListQuery, the server). Every accepted parameter
 * comes from the resource's description; what each filter kind accepts is kinds.ts.
 */
import {
  CUSTOM_VALUES_KEY,
  embedNames,
  fieldOf,
  filterFields,
  filterRelationsOf,
  namedBy,
  resourceByPath,
} from '../resources/index.js';
import type { FieldDef, FilterRelation, ResourceDef } from '../resources/types.js';
import { ErrorBag, QueryError } from './errors.js';
import { type Condition, type CustomFilter, filterKind, KindError, prefixParameter } from './kinds.js';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE, MAX_QUERY_PARAMS, MAX_QUERY_VALUE, MAX_SEARCH_VALUE } from './limits.js';

export type { Condition };
export { MAX_QUERY_PARAMS, MAX_QUERY_VALUE, MAX_SEARCH_VALUE };

/** A text filter's value, at most MAX_SEARCH_VALUE characters (code points): else a 400 naming it. */
function searchValue(raw: string, value: string): string {
  let n = 0;
  for (const _ of value)
    if (++n > MAX_SEARCH_VALUE)
      throw new QueryError(
        raw,
        `The value of ${raw} is too long to search for: at most ${MAX_SEARCH_VALUE} characters.`,
      );
  return value;
}

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

/** The fields of `resource` whose filter kind has a prefix parameter (uuid: uuid_prefix). */
export const prefixFields = (resource: ResourceDef): FieldDef[] =>
  filterFields(resource).filter((f) => filterKind(f)?.prefix);

/** Every top-level query parameter a resource's list accepts, for messages and completion. */
function listParameters(resource: ResourceDef): string[] {
  const out = filterFields(resource).map((f) => f.name);
  out.push(...prefixFields(resource).map(prefixParameter));
  for (const r of filterRelationsOf(resource)) out.push(namedBy(r) ? `${r.name}[${r.by.join('|')}]` : `${r.name}[...]`);
  if (resource.customValues) out.push(`${CUSTOM_VALUES_KEY}[name|uuid|value]`);
  out.push('page', 'per_page');
  if (embedNames(resource).length) out.push('embed');
  return out;
}

function unknown(resource: ResourceDef, raw: string): QueryError {
  const accepted = listParameters(resource).join(', ');
  return new QueryError(raw, `Unknown query parameter "${raw}". ${resource.path} accepts: ${accepted}.`);
}

/** Parses one filter parameter of a field into a condition; `values` has several for a `[]` key. */
function fieldCondition(field: FieldDef, key: Key, values: string[], now: number): Condition {
  const kind = filterKind(field);
  if (!kind) throw new QueryError(key.raw, `${key.raw} cannot be filtered on.`);
  if (key.array && !kind.arrayable) throw new QueryError(key.raw, `${field.name} does not take several values.`);
  if (!key.array && values.length > 1)
    throw new QueryError(
      key.raw,
      `${key.raw} is given more than once${kind.arrayable ? `; use ${field.name}[] for several values` : ''}.`,
    );
  try {
    const c = kind.decode(field, values, now);
    if (c.kind === 'fuzzy') searchValue(key.raw, c.value);
    return c;
  } catch (e) {
    if (e instanceof KindError) throw new QueryError(key.raw, `${key.raw} ${e.message}`);
    throw e;
  }
}

/** A prefix parameter's condition (uuid_prefix=3f2a9c1e): one value, read by its kind. */
function prefixCondition(field: FieldDef, raw: string, values: string[]): Condition {
  const prefix = filterKind(field)?.prefix;
  if (!prefix) throw new Error(`${field.name} has no prefix filter`);
  if (values.length > 1) throw new QueryError(raw, `${raw} is given more than once.`);
  try {
    return { kind: 'prefix', field, value: prefix.read(values[0] ?? '') };
  } catch (e) {
    if (e instanceof KindError) throw new QueryError(raw, `${raw} ${e.message}`);
    throw e;
  }
}

function groupByKey(params: URLSearchParams): Map<string, string[]> {
  const grouped = new Map<string, string[]>();
  let count = 0;
  for (const [k, v] of params) {
    if (++count > MAX_QUERY_PARAMS)
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

function positiveInt(bag: ErrorBag, name: string, raw: string, fallback: number, max?: number): number {
  if (!/^\d{1,9}$/.test(raw.trim())) {
    bag.add(name, `The ${name} field must be an integer.`);
    return fallback;
  }
  const n = Number(raw);
  if (n < 1) bag.add(name, `The ${name} field must be at least 1.`);
  else if (max !== undefined && n > max) bag.add(name, `The ${name} field must not be greater than ${max}.`);
  return n;
}

/** The names that `embed` values ask for (each comma-separated), refused unless the resource embeds them. */
export function parseEmbed(resource: ResourceDef, values: readonly string[]): string[] {
  const known = embedNames(resource);
  const embed = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  for (const e of embed)
    if (!known.includes(e))
      throw new QueryError('embed', `Unknown embed "${e}". ${resource.path} can embed: ${known.join(', ')}.`);
  return embed;
}

/**
 * Parses a list endpoint's query string. Throws QueryError (400) naming the parameter, or a
 * ValidationError (422) for page and per_page out of range.
 */
export function parseListQuery(resource: ResourceDef, params: URLSearchParams, now: number): ListQuery {
  const grouped = groupByKey(params);
  const conditions: Condition[] = [];
  const relationKeys = new Map<string, { rel: FilterRelation; keys: [Key, string[]][] }>();
  const custom: { name?: string; uuids?: string[]; value?: string } = {};
  let embed: string[] = [];
  const bag = new ErrorBag();
  let page = 1;
  let perPage = DEFAULT_PER_PAGE;

  for (const [raw, values] of grouped) {
    if (raw === 'page' || raw === 'per_page') {
      if (values.length > 1) throw new QueryError(raw, `${raw} is given more than once.`);
      if (raw === 'page') page = positiveInt(bag, 'page', values[0] as string, 1);
      else perPage = positiveInt(bag, 'per_page', values[0] as string, DEFAULT_PER_PAGE, MAX_PER_PAGE);
      continue;
    }
    if (raw === 'embed' && embedNames(resource).length) {
      embed = parseEmbed(resource, values);
      continue;
    }
    const key = parseKey(raw);
    if (!key) throw unknown(resource, raw);
    const field = fieldOf(resource, key.base);
    if (field?.filter && key.path.length === 0) {
      conditions.push(fieldCondition(field, key, values, now));
      continue;
    }
    const prefixed = key.path.length === 0 && prefixFields(resource).find((f) => prefixParameter(f) === raw);
    if (prefixed) {
      conditions.push(prefixCondition(prefixed, raw, values));
      continue;
    }
    const rel = filterRelationsOf(resource).find((r) => r.name === key.base);
    if (rel && key.path.length === 1) {
      const entry = relationKeys.get(rel.name) ?? { rel, keys: [] };
      entry.keys.push([key, values]);
      relationKeys.set(rel.name, entry);
      continue;
    }
    if (key.base === CUSTOM_VALUES_KEY && resource.customValues && key.path.length === 1) {
      const sub = key.path[0] as (typeof CUSTOM_KEYS)[number];
      if (!CUSTOM_KEYS.includes(sub))
        throw new QueryError(raw, `Unknown filter "${raw}": ${CUSTOM_VALUES_KEY} takes [name], [uuid] or [value].`);
      if (sub === 'uuid') {
        if (!key.array && values.length > 1)
          throw new QueryError(
            raw,
            `${raw} is given more than once; use ${CUSTOM_VALUES_KEY}[uuid][] for several values.`,
          );
        custom.uuids = [...(custom.uuids ?? []), ...values.map((v) => v.trim().toLowerCase())];
      } else {
        if (key.array || values.length > 1) throw new QueryError(raw, `${raw} takes one value.`);
        if ((values[0] ?? '').trim() === '') throw new QueryError(raw, `${raw} must not be empty.`);
        custom[sub] = sub === 'value' ? searchValue(raw, values[0] as string) : (values[0] as string);
      }
      continue;
    }
    if (key.base === 'value')
      throw new QueryError(raw, `"value" is valid only inside a relational filter, as ${CUSTOM_VALUES_KEY}[value].`);
    throw unknown(resource, raw);
  }
  bag.throwIfAny();

  for (const { rel, keys } of relationKeys.values()) {
    const target = resourceByPath(rel.target);
    const inner: Condition[] = [];
    for (const [key, values] of keys) {
      const name = key.path[0] as string;
      const f = fieldOf(target, name);
      if (namedBy(rel)) {
        inner.push(namedCondition(rel, f, key, values));
        continue;
      }
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
  if (Object.keys(custom).length && resource.customValues)
    conditions.push({ kind: 'custom', entity: resource.customValues.entity, ...custom });
  return { conditions, page, perPage, embed };
}

/**
 * A condition on a link's or a set's target by one of the fields it is named by (`status[label]`):
 * the whole value, as a body names it (a uuid exactly, text ASCII case aside); several with `[]`.
 */
function namedCondition(
  rel: FilterRelation & { by: readonly string[] },
  f: FieldDef | undefined,
  key: Key,
  values: string[],
): Condition {
  if (!f || !rel.by.includes(f.name))
    throw new QueryError(key.raw, `Unknown filter "${key.raw}": ${rel.name}[...] takes ${rel.by.join(' or ')}.`);
  if (!key.array && values.length > 1)
    throw new QueryError(key.raw, `${key.raw} is given more than once; use ${key.raw}[] for several values.`);
  if (values.some((v) => v.trim() === '')) throw new QueryError(key.raw, `${key.raw} must not be empty.`);
  return f.filter === 'uuid'
    ? { kind: 'in', field: f, values: values.map((v) => v.trim().toLowerCase()) }
    : { kind: 'same', field: f, values };
}

/** A list query as a model: what encodeListQuery writes and parseListQuery reads back. */
export interface ListFilter {
  /** Filter values by field name, as the query carries them (several where the kind takes several). */
  readonly fields?: Readonly<Record<string, readonly string[]>>;
  /** Prefix filters by field name (uuid: its first characters), where the field's kind has one. */
  readonly prefixes?: Readonly<Record<string, string>>;
  /** Relational filters: relation name -> the target's field filters. */
  readonly relations?: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
  readonly custom?: CustomFilter;
  readonly embed?: readonly string[];
  readonly page?: number;
  readonly perPage?: number;
}

/**
 * The query string of a list filter, in the model's order: one value as `name=v`, several as
 * `name[]=v` each. Throws (a programming error) on a field that cannot be filtered on, or several
 * values where the kind takes one: values a person typed are checked before they get here.
 */
export function encodeListQuery(resource: ResourceDef, filter: ListFilter): URLSearchParams {
  const q = new URLSearchParams();
  const put = (r: ResourceDef, key: string, name: string, values: readonly string[], named = false) => {
    const f = fieldOf(r, name);
    const kind = f && filterKind(f);
    if (!kind) throw new Error(`${r.path} cannot be filtered on ${name}`);
    if (values.length === 1) q.append(key, values[0] as string);
    else if (kind.arrayable || named) for (const v of values) q.append(`${key}[]`, v);
    else if (values.length > 1) throw new Error(`${name} takes one value`);
  };
  for (const [name, values] of Object.entries(filter.fields ?? {})) put(resource, name, name, values);
  for (const [name, value] of Object.entries(filter.prefixes ?? {})) {
    const f = prefixFields(resource).find((x) => x.name === name);
    if (!f) throw new Error(`${resource.path} has no prefix filter on ${name}`);
    q.append(prefixParameter(f), value);
  }
  for (const [name, inner] of Object.entries(filter.relations ?? {})) {
    const rel = filterRelationsOf(resource).find((p) => p.name === name);
    if (!rel) throw new Error(`${resource.path} has no relation ${name}`);
    const target = resourceByPath(rel.target);
    for (const [field, values] of Object.entries(inner)) put(target, `${name}[${field}]`, field, values, namedBy(rel));
  }
  const c = filter.custom ?? {};
  if (c.name !== undefined) q.append(`${CUSTOM_VALUES_KEY}[name]`, c.name);
  if (c.uuids?.length === 1) q.append(`${CUSTOM_VALUES_KEY}[uuid]`, c.uuids[0] as string);
  else for (const u of c.uuids ?? []) q.append(`${CUSTOM_VALUES_KEY}[uuid][]`, u);
  if (c.value !== undefined) q.append(`${CUSTOM_VALUES_KEY}[value]`, c.value);
  if (filter.embed?.length) q.set('embed', filter.embed.join(','));
  if (filter.page !== undefined) q.set('page', String(filter.page));
  if (filter.perPage !== undefined) q.set('per_page', String(filter.perPage));
  return q;
}
