/**
 * Flag values -> what the API takes: list filters -> query parameters, input flags -> bodies.
 * Loaded when a command runs (dates need the date libraries), while flags.ts, which only
 * declares the flags, is loaded to build the program.
 */
import { CUSTOM_VALUES_KEY, fieldOf, filterFields, inputFields, resourceByPath } from '../resources/index.js';
import type { FieldDef, FilterKind, ResourceDef } from '../resources/types.js';
import { HumanDateError, type HumanDateOptions, parseHumanInstant, parseHumanRange } from '../core/humandate.js';
import { type ClientContext, FIELD_KINDS, FILTER_KINDS, KindError } from '../core/kinds.js';
import { encodeListQuery } from '../core/query.js';
import { usageError } from './errors.js';
import { kebab, optKey } from './flags.js';

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
  const relations: Record<string, Record<string, string[]>> = {};
  for (const rel of r.parents ?? []) {
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
    // A switch (--has-garage, --no-has-garage) gives true or false itself.
    body[f.name] = typeof v === 'boolean' ? v : typed(kebab(f.name), () => kind.fromText(f, String(v), ctx));
  }
  if (mode === 'create')
    for (const link of r.links ?? []) {
      const v = opts[optKey(link.name)] as string | undefined;
      if (v === undefined) continue;
      const key = v.includes('@') && link.by.includes('email') ? 'email' : 'uuid';
      body[link.name] = { [key]: v };
    }
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
