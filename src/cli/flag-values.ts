/**
 * Flag values -> what the API takes: list filters -> query parameters, input flags -> bodies.
 * Loaded when a command runs (dates need the date libraries), while flags.ts, which only
 * declares the flags, is loaded to build the program.
 */
import {
  CUSTOM_VALUES_KEY,
  fieldOf,
  filterFields,
  filterRelationsOf,
  inputFields,
  namedBy,
  resourceByPath,
  whereRelationsOf,
  writableLinks,
} from '../resources/index.js';
import type { FieldDef, FilterKind, ResourceDef, SetDef } from '../resources/types.js';
import { HumanDateError, type HumanDateOptions, parseHumanInstant, parseHumanRange } from '../core/humandate.js';
import {
  blankValue,
  type ClientContext,
  FIELD_KINDS,
  FILTER_KINDS,
  isBlank,
  KindError,
  uuidPrefixOf,
} from '../core/kinds.js';
import { sameText } from '../core/match.js';
import { encodeListQuery } from '../core/query.js';
import { usageError } from './errors.js';
import { checkUuid, clearFlag, flagWord, isUuid, kebab, knownBy, type Named, optKey, setChangeFlags } from './flags.js';

/**
 * What the kinds read values a person typed with: the clock and zone (the user's, Deps.timeZone;
 * absent, the system's) that "tomorrow 9am" needs, and dates in words.
 */
function clientContext(when: HumanDateOptions): ClientContext {
  return {
    range: (text) => parseHumanRange(text, when),
    instant: (text) => parseHumanInstant(text, when).iso,
  };
}

/** A value typed for --flag, read by `read`; a value that does not fit is a usage error naming the flag. */
export function typed<T>(flag: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof KindError) throw usageError(`--${flag} ${e.message}`);
    if (e instanceof HumanDateError) throw usageError(`--${flag}: ${e.message}`, e.hint);
    throw e;
  }
}

/** One filter flag's values as the query carries them (a switch gives true or false). */
function filterValues(f: FieldDef, raw: unknown, flag: string, ctx: ClientContext): string[] {
  const kind = FILTER_KINDS[f.filter as FilterKind];
  const values = Array.isArray(raw) ? raw : [raw];
  return values.map((v) => typed(flag, () => kind.encode(f, String(v), ctx)));
}

/**
 * The field of `n.by` a value typed for its flag names a record by: uuid when it looks like one,
 * else the other (a label, an email).
 */
function byFieldOf(n: Named, text: string): string {
  const other = n.by.find((b) => b !== 'uuid') ?? 'uuid';
  if (!n.by.includes('uuid')) return other;
  if (isUuid(text) || other === 'uuid') return 'uuid';
  // Records known by a label are named by it; others (a contact, by email) by their uuid's beginning too.
  return knownBy(n) === undefined && isUuidStart(text) ? 'uuid' : other;
}

/** Whether text is a uuid's first 8 characters or more. */
function isUuidStart(text: string): boolean {
  try {
    uuidPrefixOf(text);
    return true;
  } catch {
    return false;
  }
}

/** What a value typed for a link's or a set's flag names, as a body says it: {"uuid": …} or {"label": …}. */
export function nameOf(n: Named, text: string, flag = flagWord(n)): Record<string, string> {
  const v = text.trim();
  if (!v) throw usageError(`--${kebab(flag)} needs a ${n.by.join(' or ')}, not an empty value.`);
  const by = byFieldOf(n, v);
  // A uuid in any case is the same uuid: sent as servers write them, in lower case; its
  // beginning is resolved when the command runs (resolveLinkUuids).
  return { [by]: by === 'uuid' ? checkUuid(v, `--${kebab(flag)}`) : v };
}

/**
 * The filters of links and sets (--status, --competency): several values, any of them, all of
 * one field (uuids or labels: the server reads two fields as both).
 */
function namedFilters(r: ResourceDef, opts: Record<string, unknown>): Record<string, Record<string, string[]>> {
  const out: Record<string, Record<string, string[]>> = {};
  for (const rel of filterRelationsOf(r).filter(namedBy)) {
    const values = (opts[optKey(flagWord(rel))] as string[] | undefined) ?? [];
    const inner: Record<string, string[]> = {};
    for (const v of values) {
      const [[field, value]] = Object.entries(nameOf(rel, v)) as [[string, string]];
      inner[field] = [...(inner[field] ?? []), value];
    }
    if (Object.keys(inner).length > 1)
      throw usageError(`--${kebab(flagWord(rel))}: give every value by ${rel.by.join(' or by ')}, not some of each.`);
    if (values.length) out[rel.name] = inner;
  }
  return out;
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
  const ctx = clientContext({ now, zone });
  const fields: Record<string, string[]> = {};
  for (const f of filterFields(r)) {
    const raw = opts[optKey(f.name)];
    if (raw !== undefined) fields[f.name] = filterValues(f, raw, kebab(f.name), ctx);
  }
  const relations: Record<string, Record<string, string[]>> = namedFilters(r, opts);
  for (const rel of whereRelationsOf(r)) {
    const target = resourceByPath(rel.target);
    const uuids = opts[optKey(rel.name)] as string[] | undefined;
    const wheres = (opts[optKey(`${rel.name}_where`)] as string[] | undefined) ?? [];
    const inner: Record<string, string[]> = {};
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
      // Several values of a kind that takes several: any of them; of any other kind, the last.
      inner[f.name] = FILTER_KINDS[f.filter].arrayable ? [...(inner[f.name] ?? []), value] : [value];
    }
    const encoded: Record<string, string[]> = {};
    // The uuids came from --property, the rest from --property-where.
    for (const [name, values] of Object.entries(inner))
      encoded[name] = filterValues(
        fieldOf(target, name) as FieldDef,
        values,
        name === 'uuid' && uuids?.length ? rel.name : `${rel.name}-where ${name}`,
        ctx,
      );
    if (Object.keys(encoded).length) relations[rel.name] = encoded;
  }
  let custom: { name?: string; value?: string } | undefined;
  if (r.customValues) {
    const pair = opts.customField as string | undefined;
    if (pair !== undefined) {
      const [name, value] = splitPair('custom-field', pair);
      custom = { name, ...(value !== '' ? { value } : {}) };
    }
    const any = opts.customValue as string | undefined;
    if (any !== undefined) {
      if (custom?.value !== undefined)
        throw usageError('--custom-value cannot be combined with --custom-field NAME=VALUE; use one of them.');
      custom = { ...custom, value: any };
    }
  }
  return encodeListQuery(r, { fields, relations, ...(custom ? { custom } : {}) });
}

/** The body fields given by flags. `when` reads dates in words ("tomorrow 9am"). */
export function bodyFromFlags(
  r: ResourceDef,
  opts: Record<string, unknown>,
  mode: 'create' | 'update',
  when: HumanDateOptions,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const ctx = clientContext(when);
  for (const f of inputFields(r)) {
    const v = opts[optKey(f.name)];
    if (v === undefined) continue;
    const kind = FIELD_KINDS[f.kind];
    // A switch (--has-garage, --no-has-garage) gives true or false itself; "" clears (isBlank).
    body[f.name] =
      typeof v === 'boolean'
        ? v
        : typed(kebab(f.name), () => (isBlank(f, String(v)) ? blankValue(f) : kind.fromText(f, String(v), ctx)));
  }
  Object.assign(body, namedBody(r, opts, mode));
  if (r.customValues) {
    const pairs = (opts.customField as string[] | undefined) ?? [];
    if (pairs.length)
      body[CUSTOM_VALUES_KEY] = pairs.map((p) => {
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

/**
 * The body fields the link and set flags give (--status, --no-status, --competency): records
 * named as a body names them, `{"uuid": …}` once the run has resolved the flags (uuids.ts).
 */
export function namedBody(r: ResourceDef, opts: Record<string, unknown>, mode: 'create' | 'update') {
  const body: Record<string, unknown> = {};
  for (const link of writableLinks(r, mode)) {
    const v = opts[optKey(link.name)] as string | undefined;
    if (v !== undefined) body[link.name] = nameOf(link, v);
    else if (opts[optKey(clearFlag(link))] === true) body[link.name] = null;
  }
  for (const set of r.sets ?? []) {
    const values = opts[optKey(set.one)] as string[] | undefined;
    if (values) body[set.name] = values.map((v) => nameOf(set, v));
  }
  return body;
}

/** A create's body with what pm sends when it is left out (clientDefault: a custom field's type), in place. */
export function withClientDefaults(r: ResourceDef, body: Record<string, unknown>, when: HumanDateOptions) {
  for (const f of inputFields(r))
    if (f.clientDefault !== undefined && body[f.name] === undefined)
      body[f.name] = FIELD_KINDS[f.kind].fromText(f, f.clientDefault, clientContext(when));
  return body;
}

/** The changes --add-competency and --remove-competency make to a set: records named, as a body names them. */
export interface SetChange {
  readonly set: SetDef;
  readonly add: readonly Record<string, string>[];
  readonly remove: readonly Record<string, string>[];
}

/** The sets whose add and remove flags were given, with what they name. */
export function setChanges(r: ResourceDef, opts: Record<string, unknown>): SetChange[] {
  return (r.sets ?? []).flatMap((set) => {
    const flags = setChangeFlags(set);
    const named = (flag: string) =>
      ((opts[optKey(flag)] as string[] | undefined) ?? []).map((v) => nameOf(set, v, flag));
    const change = { set, add: named(flags.add), remove: named(flags.remove) };
    return change.add.length || change.remove.length ? [change] : [];
  });
}

/** Whether `rec` (an embedded {uuid, label}) is the record `name` names: a uuid exactly, text ignoring ASCII case. */
const isNamed = (name: Record<string, string>, rec: Record<string, unknown>): boolean =>
  Object.entries(name).every(([k, v]) =>
    k === 'uuid' ? rec[k] === v : typeof rec[k] === 'string' && sameText(rec[k], v),
  );

/**
 * The whole set after a change, as a body gives it: the records held now (by uuid) less those
 * removed, then those added that it does not hold yet (each once).
 */
export function changedSet(change: SetChange, held: readonly Record<string, unknown>[]): Record<string, string>[] {
  const kept = held.filter((rec) => !change.remove.some((n) => isNamed(n, rec)));
  const added: Record<string, string>[] = [];
  for (const n of change.add) if (![...kept, ...added].some((rec) => isNamed(n, rec))) added.push(n);
  return [...kept.map((rec) => ({ uuid: String(rec.uuid) })), ...added];
}
