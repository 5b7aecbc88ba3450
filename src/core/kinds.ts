/**
 * Field kinds and filter kinds, each defined once (docs/architecture.md lists what each says).
 * A value a person types is read the same way wherever it is typed (a flag, FIELD=VALUE, a CSV
 * cell). Pure: dates in words ("tomorrow 9am") come in through the client's context, so that the
 * date libraries load only when they are used.
 */
import type { FieldDef, FieldKind, FilterKind, FilterRelation, ResourceDef } from '../resources/types.js';
import {
  DatetimeParseError,
  formatDate,
  formatTimestamp,
  instantMillis,
  isDateOnly,
  parseRange,
  type Range,
} from './datetime.js';
import { isObject } from './json.js';
import { MAX_SEARCH_VALUE } from './limits.js';

const UUID_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Where a uuid has hyphens: what a prefix of one must have at those places. */
const UUID_TEMPLATE = '00000000-0000-0000-0000-000000000000';
/** The fewest characters of a uuid that name a record by its beginning (as git's short hashes: 8). */
export const MIN_UUID_PREFIX = 8;

/** Whether text is a whole uuid, in any case (RFC 4122's form). */
export const isWholeUuid = (text: string): boolean => UUID_FORM.test(text.trim().toLowerCase());

/**
 * A uuid a person typed, checked (RFC 4122's form) before it is sent, in lower case (the case a
 * server writes them in; any case is the same uuid): a typo is a usage error, not an empty answer.
 */
export function uuidOf(text: string): string {
  const v = text.trim().toLowerCase();
  if (!UUID_FORM.test(v))
    throw new KindError(`must be a uuid such as 3f2a9c1e-5b7d-4c1a-9e0f-2b6d8a4c7e15, not "${text}".`);
  return v;
}

/**
 * The first characters of a uuid, in lower case: at least MIN_UUID_PREFIX of them, hyphens where
 * a uuid has them (3f2a9c1e, 3f2a9c1e-5b7d); a whole uuid is a prefix of itself.
 */
export function uuidPrefixOf(text: string): string {
  const v = text.trim().toLowerCase();
  const fits =
    v.length <= UUID_TEMPLATE.length &&
    [...v].every((ch, i) => (UUID_TEMPLATE[i] === '-' ? ch === '-' : /[0-9a-f]/.test(ch)));
  if (!fits || v === '')
    throw new KindError(`must be a uuid or its first ${MIN_UUID_PREFIX} characters or more (3f2a9c1e), not "${text}".`);
  if (v.length < MIN_UUID_PREFIX)
    throw new KindError(
      `is too short: give at least the first ${MIN_UUID_PREFIX} characters of the uuid, not "${text}".`,
    );
  return v;
}

/** A uuid standing for every uuid that begins with `prefix` (its other digits 0), to check what a query would be. */
export const uuidFrom = (prefix: string): string => prefix + UUID_TEMPLATE.slice(prefix.length);

/** The last uuid that begins with `prefix` (its other digits f): with uuidFrom, the range of its uuids. */
export const lastUuidFrom = (prefix: string): string => prefix + UUID_TEMPLATE.slice(prefix.length).replace(/0/g, 'f');

/** A `code` field's value as the API shows it: {"code": 2, "name": "Property"}. */
export const isCodeValue = (v: unknown): v is { code: unknown; name?: unknown } => isObject(v) && 'code' in v;

/** Whether a string is valid Unicode: no surrogate half without its other half. */
export function wellFormed(s: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

/** A value that does not fit its kind; the message has no subject ("must be a whole number..."). */
export class KindError extends Error {
  override name = 'KindError';
}

/**
 * The one rule for a value given blank, the same for a CSV cell, a JSON string and a flag (`""`;
 * blank space too where the kind is not text): it clears a field that may be empty (null), or
 * puts back the default of one that has a default (bedrooms 0, has_garage false); a field that
 * may not be empty (a required one) cannot be blank (KindError). A value not given leaves the
 * field as it is.
 */
export function isBlank(f: FieldDef, text: string): boolean {
  return f.kind === 'text' ? text === '' : text.trim() === '';
}

export function blankValue(f: FieldDef): string | number | boolean | null {
  if (f.nullable) return null;
  if (f.default !== undefined) return f.default;
  const required = f.requiredOnCreate || f.requiredOnUpdate;
  throw new KindError(`cannot be blank: ${required ? 'it is required' : 'it cannot be empty'}`);
}

/** What the client reads values a person typed with: dates in words, by the user's clock and zone. */
export interface ClientContext {
  /** "last 7 days", "this week", an ISO range: the ISO interval to send. Throws with a message. */
  readonly range: (text: string) => string;
  /** "tomorrow 9am", "2026-12-01": the ISO datetime (or date, all day) to send. */
  readonly instant: (text: string) => string;
}

/** A value completion offers, with what it means. */
export interface Candidate {
  readonly value: string;
  readonly description?: string;
}

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it) of a value on the wire. */
export type Schema = Record<string, unknown>;

/** A stored column a field needs. */
interface ColumnDef {
  readonly name: string;
  readonly type: 'TEXT' | 'INTEGER';
  readonly notNull: boolean;
}

// ------------------------------------------------------------------ the shared parsers

/**
 * Words for a boolean, in any case. A query string takes the API's four (true, false, 1, 0:
 * anything else is a 400); a person may also write yes/no or y/n (a flag value, a CSV cell), which
 * the client sends as true or false.
 */
const BOOL_WORDS = {
  query: { true: ['true', '1'], false: ['false', '0'], expected: 'must be true, false, 1 or 0' },
  person: {
    true: ['true', 'yes', 'y', '1'],
    false: ['false', 'no', 'n', '0'],
    expected: 'must be true or false (or yes/no, 1/0)',
  },
};

/** A boolean in the words of a query or of a person. */
function boolOf(text: string, words: keyof typeof BOOL_WORDS = 'person'): boolean {
  const s = text.trim().toLowerCase();
  if (BOOL_WORDS[words].true.includes(s)) return true;
  if (BOOL_WORDS[words].false.includes(s)) return false;
  throw new KindError(`${BOOL_WORDS[words].expected}, not "${text}".`);
}

/** A whole number as the API takes one in a query: optional minus, at most nine digits, nothing else. */
function parseWhole(text: string): number | undefined {
  return /^-?\d{1,9}$/.test(text) ? Number(text) : undefined;
}

/** A whole number a person typed (spaces around it forgiven: the client sends it without). */
function wholeOf(f: FieldDef, text: string): number {
  const n = parseWhole(text.trim());
  if (n === undefined) throw new KindError(`must be a whole number, not "${text}".`);
  if (f.min !== undefined && n < f.min) throw new KindError(`must be at least ${f.min}, not ${n}.`);
  if (f.max !== undefined && n > f.max) throw new KindError(`must be at most ${f.max}, not ${n}.`);
  return n;
}

/** A code of a `code` field, by its number or its name ("2" or "property"), any case. */
function codeOf(f: FieldDef, text: string): number {
  const s = text.trim();
  const codes = f.codes ?? {};
  const byName = Object.entries(codes).find(([, name]) => name.toLowerCase() === s.toLowerCase());
  if (byName) return Number(byName[0]);
  if (Object.hasOwn(codes, s)) return Number(s);
  throw new KindError(
    `must be one of ${Object.entries(codes)
      .map(([code, name]) => `${code} (${name.toLowerCase()})`)
      .join(', ')}, not "${text}".`,
  );
}

/** The codes as completion offers them: names first, then numbers. */
function codeCandidates(f: FieldDef): Candidate[] {
  const codes = Object.entries(f.codes ?? {});
  return [
    ...codes.map(([, name]) => ({ value: name.toLowerCase(), description: f.description })),
    ...codes.map(([code, name]) => ({ value: code, description: name })),
  ];
}

/** Case folding for substring matches: every letter, not only ASCII (unlike SQL's lower()). */
export function foldText(value: string): string {
  return value.toLowerCase();
}

// ------------------------------------------------------------------ filter kinds

/**
 * What a filter asks of the store, once decoded: the few shapes every store compiles (to SQL, or
 * anything else). Each filter kind decodes to one of the first five.
 */
export type Condition =
  | { readonly kind: 'in'; readonly field: FieldDef; readonly values: readonly string[] }
  | { readonly kind: 'int'; readonly field: FieldDef; readonly values: readonly number[] }
  | { readonly kind: 'bool'; readonly field: FieldDef; readonly value: boolean }
  | { readonly kind: 'fuzzy'; readonly field: FieldDef; readonly value: string }
  | { readonly kind: 'range'; readonly field: FieldDef; readonly range: Range }
  /** Text beginning with the value (a uuid's first characters, in the case it is stored in). */
  | { readonly kind: 'prefix'; readonly field: FieldDef; readonly value: string }
  /** Text equal to one of the values, ASCII case aside: a record named as a body names it (a status by label). */
  | { readonly kind: 'same'; readonly field: FieldDef; readonly values: readonly string[] }
  | {
      readonly kind: 'relation';
      readonly relation: FilterRelation;
      readonly target: ResourceDef;
      readonly conditions: readonly Condition[];
    }
  | ({ readonly kind: 'custom'; readonly entity: number } & CustomFilter);

/** A filter on custom field values: the field by name or uuids, and text the value contains. */
export type CustomFilter = { readonly name?: string; readonly uuids?: readonly string[]; readonly value?: string };

interface FilterKindDef {
  /** Takes several values (`name[]=a&name[]=b`, any of them matches); the flag is repeatable. */
  readonly arrayable: boolean;
  /** The list flag's value placeholder; none for a switch (--has-garage / --no-has-garage). */
  readonly placeholder?: (f: FieldDef) => string;
  /** The list flag's help. */
  readonly help: (f: FieldDef) => string;
  /** A value a person typed (a flag, FIELD=VALUE) -> the query parameter's value. */
  readonly encode: (f: FieldDef, value: string, ctx: ClientContext) => string;
  /** The query parameter's values (several only if arrayable) -> the condition the store applies. */
  readonly decode: (f: FieldDef, values: readonly string[], now: number) => Condition;
  /** How stored text and the searched text are both folded before a substring match. */
  readonly fold?: (value: string) => string;
  /** Values completion offers for the flag. */
  readonly complete?: (f: FieldDef, now: number) => Candidate[];
  /** The schema of one query value (the OpenAPI document's parameter). */
  readonly schema: (f: FieldDef) => Schema;
  /**
   * A second parameter of the field, `<name>_prefix` (prefixParameter): the records whose value
   * begins with the one given. A uuid's: its first 8 characters or more, any case.
   */
  readonly prefix?: {
    readonly help: (f: FieldDef) => string;
    /** The value given -> the prefix the store matches; throws KindError. */
    readonly read: (value: string) => string;
    readonly schema: Schema;
  };
}

/** The query parameter of a field's prefix filter, where its kind has one: uuid_prefix. */
export const prefixParameter = (f: FieldDef): string => `${f.name}_prefix`;

function nonEmpty(value: string): string {
  if (value.trim() === '') throw new KindError('must not be empty.');
  return value;
}

const fuzzy = (fold: (v: string) => string, spaces: string): FilterKindDef => ({
  arrayable: false,
  placeholder: () => 'text',
  help: (f) => `${f.description} contains TEXT, ignoring case${spaces}`,
  encode: (_f, v) => nonEmpty(v),
  decode: (f, values) => ({ kind: 'fuzzy', field: f, value: nonEmpty(values[0] ?? '') }),
  fold,
  schema: () => ({ type: 'string', pattern: '\\S', maxLength: MAX_SEARCH_VALUE }),
});

/** A query integer: digits, an optional minus, nothing else (parseWhole). */
const WHOLE_SCHEMA: Schema = { type: 'integer', minimum: -999_999_999, maximum: 999_999_999 };

const integers = (f: FieldDef, values: readonly string[]): Condition => ({
  kind: 'int',
  field: f,
  values: values.map((v) => {
    const n = parseWhole(v);
    if (n === undefined) throw new KindError(`must be an integer, not "${v}".`);
    return n;
  }),
});

export const FILTER_KINDS: Readonly<Record<FilterKind, FilterKindDef>> = {
  // A record's uuid, in any case; checked before it is sent: a typo is a usage error, not an empty list.
  uuid: {
    arrayable: true,
    placeholder: () => 'uuid',
    help: () => 'only this record (repeatable: any of them)',
    encode: (_f, v) => uuidOf(v),
    decode: (f, values) => ({ kind: 'in', field: f, values: values.map((v) => v.trim().toLowerCase()) }),
    schema: () => ({ type: 'string', format: 'uuid' }),
    prefix: {
      help: () =>
        `only the records whose uuid begins with this: its first ${MIN_UUID_PREFIX} characters or more, any case (how pm finds the record a short uuid names)`,
      read: uuidPrefixOf,
      schema: {
        type: 'string',
        pattern: `^[0-9a-fA-F]{${MIN_UUID_PREFIX}}[0-9a-fA-F-]{0,${UUID_TEMPLATE.length - MIN_UUID_PREFIX}}$`,
      },
    },
  },
  fuzzy: fuzzy(foldText, ''),
  postcode: fuzzy((v) => foldText(v).replace(/\s+/g, ''), ' and spaces'),
  int: {
    arrayable: true,
    placeholder: () => 'n',
    help: (f) => `${f.description} is N (repeatable: any of them)`,
    encode: (f, v) => String(wholeOf(f, v)),
    decode: integers,
    schema: () => WHOLE_SCHEMA,
  },
  code: {
    arrayable: true,
    placeholder: () => 'code',
    help: (f) => `${f.description}, by code or name (repeatable: any of them)`,
    encode: (f, v) => String(codeOf(f, v)),
    // The query takes the number alone (any integer: an unknown code matches nothing).
    decode: integers,
    complete: codeCandidates,
    schema: (f) => ({ ...WHOLE_SCHEMA, examples: Object.keys(f.codes ?? {}).map(Number) }),
  },
  bool: {
    arrayable: false,
    help: (f) => `only those where "${f.description}" is true`,
    encode: (_f, v) => String(boolOf(v)),
    decode: (f, values) => ({ kind: 'bool', field: f, value: boolOf(values[0] ?? '', 'query') }),
    complete: () => [{ value: 'true' }, { value: 'false' }],
    schema: () => ({ type: 'string', enum: [...BOOL_WORDS.query.true, ...BOOL_WORDS.query.false] }),
  },
  datetime: {
    arrayable: false,
    placeholder: () => 'range',
    help: (f) =>
      `${f.description} within a range: "last 7 days", "this week", "today", 2026-12-01, 2026-12-01/P1W, -P7D`,
    encode: (_f, v, ctx) => ctx.range(v),
    decode: (f, values, now) => {
      try {
        return { kind: 'range', field: f, range: parseRange(values[0] ?? '', now) };
      } catch (e) {
        if (e instanceof DatetimeParseError) throw new KindError(`is invalid: ${e.message}.`);
        throw e;
      }
    },
    complete: (_f, now) => [
      { value: formatDate(now), description: 'today (UTC)' },
      { value: '-P7D', description: 'the past 7 days' },
      { value: 'P7D', description: 'the next 7 days' },
      { value: '-P30D', description: 'the past 30 days' },
      { value: 'P30D', description: 'the next 30 days' },
    ],
    schema: () => ({
      type: 'string',
      description:
        'An instant (that unit: second, minute...), a date (that UTC day), an ISO 8601 interval (start/end, start/duration, duration/end: end excluded) or a duration from now (P7D ahead, -P7D past).',
      examples: ['2026-12-01', '2026-12-01T09:00:00Z', '2026-12-01/2026-12-08', '2026-12-01/P1W', '-P7D'],
    }),
  },
};

// ------------------------------------------------------------------ field kinds

/** A value that did not pass: the field errors are already reported. */
export const INVALID: unique symbol = Symbol('invalid');

/** Reports a field error (`field`: the name or a path in it, entity_type.code); gives INVALID. */
export type Report = (field: string, message: string) => typeof INVALID;

type WireValue = string | number | boolean | null;

interface FieldKindDef {
  /** The input flag's value placeholder; none for a switch (--has-garage / --no-has-garage). */
  readonly placeholder?: string;
  /** The input flag's help; `note` says "(required)" or the default, where the flag has one. */
  readonly help: (f: FieldDef, note: string) => string;
  /** A value a person typed (a flag, a CSV cell) -> the body value. Throws KindError. */
  readonly fromText: (f: FieldDef, text: string, ctx: ClientContext) => unknown;
  /** The server's check of a body value (not null) -> the normalized value, or INVALID. */
  readonly check: (f: FieldDef, v: unknown, report: Report) => WireValue | typeof INVALID;
  /** The stored columns: the value's own, and any the kind keeps beside it. */
  readonly columns: (f: FieldDef) => ColumnDef[];
  /** A checked value -> its stored columns. */
  readonly store: (f: FieldDef, v: WireValue) => Record<string, unknown>;
  /** Stored columns -> the value the API answers with. */
  readonly load: (f: FieldDef, row: Readonly<Record<string, unknown>>) => unknown;
  /** Whether a value of the field is an instant, which a terminal shows in local, relative time. */
  readonly isTime: (v: string) => boolean;
  /** Values completion offers for the input flag. */
  readonly complete?: (f: FieldDef, now: number) => Candidate[];
  /** The schema of a value (not null): as the API answers it ('out'), or as a body may send it ('in'). */
  readonly schema: (f: FieldDef, dir: 'in' | 'out') => Schema;
}

/** A field's name as a message says it: "due at". */
export const label = (name: string) => name.replace(/_/g, ' ');
/** Reports an error of the field itself: "The <label> field <rule>." */
const fail = (f: FieldDef, report: Report, rule: string): typeof INVALID =>
  report(f.name, `The ${label(f.name)} field ${rule}.`);
/** A timestamp as the API writes one: UTC, to the second. */
const TIMESTAMP: Schema = {
  type: 'string',
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\+00:00$',
};
/** How most kinds keep a value: as it is, in one integer column; and it is no instant. */
const PLAIN: Pick<FieldKindDef, 'columns' | 'store' | 'load' | 'isTime'> = {
  columns: (f) => [{ name: f.name, type: 'INTEGER', notNull: true }],
  store: (f, v) => ({ [f.name]: v }),
  load: (f, row) => row[f.name] ?? null,
  isTime: () => false,
};
/** A checked datetime as it is stored: epoch milliseconds, or null. */
const millisOf = (v: WireValue) => (typeof v === 'string' ? (instantMillis(v) ?? null) : null);

/**
 * An ISO 8601 period of whole days, weeks, months or years, at least one of them not zero (P1Y,
 * P6M, P2W, P10D, P1Y6M): how often a reminder repeats. No time part: a repeat keeps the time.
 */
const PERIOD_RE = /^P(?=\d)(?:(\d{1,4})Y)?(?:(\d{1,4})M)?(?:(\d{1,4})W)?(?:(\d{1,5})D)?$/;

/** Such a period's counts of years, months, weeks and days; undefined for anything else, or all zero. */
export function periodParts(v: string): { years: number; months: number; weeks: number; days: number } | undefined {
  const m = PERIOD_RE.exec(v);
  if (!m) return undefined;
  const [years, months, weeks, days] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number];
  return years + months + weeks + days > 0 ? { years, months, weeks, days } : undefined;
}

/** Whether text is such a period, not all zero. */
const isPeriod = (v: string): boolean => periodParts(v) !== undefined;

/** Periods in words: "every year", "yearly", "every 6 months", "2 weeks", "fortnightly". */
const PERIOD_WORDS: Readonly<Record<string, string>> = {
  daily: 'P1D',
  weekly: 'P1W',
  fortnightly: 'P2W',
  monthly: 'P1M',
  quarterly: 'P3M',
  yearly: 'P1Y',
  annually: 'P1Y',
};
const PERIOD_UNITS: Readonly<Record<string, string>> = { day: 'D', week: 'W', month: 'M', year: 'Y' };

/** A period a person typed, as the API takes it: an ISO period as it is (any case), or words. */
function periodOf(text: string): string {
  const s = text.trim().toLowerCase().replace(/\s+/g, ' ');
  const iso = s.toUpperCase();
  if (isPeriod(iso)) return iso;
  const word = PERIOD_WORDS[s.replace(/^every /, '')];
  if (word) return word;
  const m = /^(?:every )?(?:(\d{1,4}|a|an|one) )?(day|week|month|year)s?$/.exec(s);
  const n = m?.[1] === undefined || /^(a|an|one)$/.test(m[1]) ? 1 : Number(m[1]);
  if (m && n > 0) return `P${n}${PERIOD_UNITS[m[2] as string]}`;
  throw new KindError(
    `must be a period such as P1Y, P6M, P2W, P10D, or words such as "every year", "every 6 months", not "${text}".`,
  );
}

export const FIELD_KINDS: Readonly<Record<FieldKind, FieldKindDef>> = {
  text: {
    ...PLAIN,
    placeholder: 'text',
    help: (f, note) => `${f.description}${f.max ? `, up to ${f.max} characters` : ''}${note}`,
    fromText: (_f, text) => text,
    check: (f, v, report) => {
      if (typeof v !== 'string') return fail(f, report, 'must be a string');
      if (f.max !== undefined && [...v].length > f.max)
        return fail(f, report, `must not be greater than ${f.max} characters`);
      if (v.includes('\u0000')) return fail(f, report, 'must not contain NUL characters');
      // A lone surrogate is no character: stored, it would be invalid UTF-8.
      if (!wellFormed(v)) return fail(f, report, 'must be valid Unicode text');
      return v;
    },
    columns: (f) => [{ name: f.name, type: 'TEXT', notNull: !f.nullable }],
    schema: (f, dir) => ({
      type: 'string',
      ...(f.name === 'uuid' ? { format: 'uuid' } : {}),
      ...(f.max !== undefined ? { maxLength: f.max } : {}),
      // A field create requires is never blank (validate.ts).
      ...(dir === 'in' && f.requiredOnCreate ? { pattern: '\\S' } : {}),
    }),
  },
  int: {
    ...PLAIN,
    placeholder: 'n',
    help: (f, note) => `${f.description}, a whole number ${f.min ?? 0}-${f.max ?? '…'}${note}`,
    fromText: (f, text) => wholeOf(f, text),
    check: (f, v, report) => {
      if (typeof v !== 'number' || !Number.isInteger(v)) return fail(f, report, 'must be an integer');
      if (f.min !== undefined && v < f.min) return fail(f, report, `must be at least ${f.min}`);
      if (f.max !== undefined && v > f.max) return fail(f, report, `must not be greater than ${f.max}`);
      return v;
    },
    schema: (f) => ({
      type: 'integer',
      ...(f.min !== undefined ? { minimum: f.min } : {}),
      ...(f.max !== undefined ? { maximum: f.max } : {}),
    }),
  },
  bool: {
    ...PLAIN,
    help: (f, note) => `${f.description}${note}`,
    fromText: (_f, text) => boolOf(text),
    check: (f, v, report) => (typeof v === 'boolean' ? v : fail(f, report, 'must be true or false')),
    store: (f, v) => ({ [f.name]: v ? 1 : 0 }),
    load: (f, row) => row[f.name] === 1,
    complete: () => [{ value: 'true' }, { value: 'false' }],
    schema: () => ({ type: 'boolean' }),
  },
  code: {
    ...PLAIN,
    placeholder: 'code',
    help: (f, note) => `${f.description}, by code or name${note}`,
    fromText: (f, text) => ({ code: codeOf(f, text) }),
    check: (f, v, report) => {
      const n = f.name;
      const failAt = (k: string, rule: string): typeof INVALID => report(`${n}.${k}`, `The ${n}.${k} field ${rule}.`);
      if (!isObject(v)) return fail(f, report, 'must be an object with a code');
      for (const k of Object.keys(v)) if (k !== 'code' && k !== 'name') failAt(k, 'is not allowed');
      const code = v.code;
      const codes = f.codes ?? {};
      if (code === undefined || code === null) return failAt('code', 'is required');
      if (typeof code !== 'number' || !Number.isInteger(code)) return failAt('code', 'must be an integer');
      if (!(code in codes))
        return report(
          `${n}.code`,
          `The selected ${n}.code is invalid: use ${Object.entries(codes)
            .map(([c, name]) => `${c} (${name})`)
            .join(' or ')}.`,
        );
      if (v.name !== undefined && v.name !== codes[code])
        return failAt('name', `must be "${codes[code]}" for code ${code}`);
      return code;
    },
    load: (f, row) => ({ code: row[f.name], name: f.codes?.[row[f.name] as number] ?? null }),
    complete: codeCandidates,
    schema: (f, dir) => {
      const codes = Object.entries(f.codes ?? {});
      const one = ([code, name]: [string, string]) => ({
        type: 'object',
        properties: { code: { const: Number(code) }, name: { const: name } },
        required: dir === 'out' ? ['code', 'name'] : ['code'],
        additionalProperties: false,
      });
      return codes.length === 1 ? one(codes[0] as [string, string]) : { oneOf: codes.map(one) };
    },
  },
  datetime: {
    placeholder: 'datetime',
    help: (f, note) => `${f.description}${note}`,
    fromText: (_f, text, ctx) => ctx.instant(text),
    check: (f, v, report) => {
      const at = typeof v === 'string' ? instantMillis(v) : undefined;
      if (at === undefined) return fail(f, report, 'must be an ISO 8601 datetime');
      return formatTimestamp(at);
    },
    columns: (f) => [{ name: f.name, type: 'INTEGER', notNull: !f.nullable }],
    store: (f, v) => ({ [f.name]: millisOf(v) }),
    load: (f, row) => (typeof row[f.name] === 'number' ? formatTimestamp(row[f.name] as number) : null),
    isTime: () => true,
    schema: (_f, dir) => (dir === 'out' ? TIMESTAMP : { type: 'string', format: 'date-time' }),
  },
  date: {
    placeholder: 'date',
    help: (f, note) => `${f.description}${note}: 2027-03-01, "in 1 year", "next march"`,
    // A date in words may come with a time: the date is its day.
    fromText: (_f, text, ctx) => ctx.instant(text).slice(0, 10),
    check: (f, v, report) => {
      if (typeof v !== 'string' || !isDateOnly(v) || instantMillis(v) === undefined)
        return fail(f, report, `must be a date (YYYY-MM-DD)${typeof v === 'string' ? `, not "${v}"` : ''}`);
      return v.trim();
    },
    // Midnight UTC of the day: date filters take the same ranges as every other date.
    columns: (f) => [{ name: f.name, type: 'INTEGER', notNull: false }],
    store: (f, v) => ({ [f.name]: millisOf(v) }),
    load: (f, row) => (typeof row[f.name] === 'number' ? formatDate(row[f.name] as number) : null),
    isTime: () => false,
    schema: () => ({ type: 'string', format: 'date' }),
  },
  period: {
    placeholder: 'period',
    help: (f, note) => `${f.description}${note}: P1Y, P6M, P2W, P10D, or "every year", "every 6 months"`,
    fromText: (_f, text) => periodOf(text),
    check: (f, v, report) => {
      if (typeof v !== 'string' || !isPeriod(v))
        return fail(
          f,
          report,
          'must be an ISO 8601 period of whole days, weeks, months or years, such as P1Y, P6M, P2W or P10D',
        );
      return v;
    },
    columns: (f) => [{ name: f.name, type: 'TEXT', notNull: false }],
    store: (f, v) => ({ [f.name]: v }),
    load: (f, row) => row[f.name] ?? null,
    isTime: () => false,
    complete: () => [
      { value: 'P1Y', description: 'every year' },
      { value: 'P6M', description: 'every 6 months' },
      { value: 'P1M', description: 'every month' },
      { value: 'P1W', description: 'every week' },
    ],
    schema: () => ({
      type: 'string',
      pattern: PERIOD_RE.source,
      description: 'an ISO 8601 period of whole days, weeks, months or years',
      examples: ['P1Y', 'P6M', 'P2W', 'P10D'],
    }),
  },
  date_or_datetime: {
    placeholder: 'date',
    help: (f, note) => `${f.description}${note}: "tomorrow 9am", "next monday", "+2h", 2026-12-01`,
    // A day without a time is sent as YYYY-MM-DD: the server makes it all day.
    fromText: (_f, text, ctx) => ctx.instant(text),
    check: (f, v, report) => {
      if (typeof v !== 'string') return fail(f, report, 'must be an ISO 8601 date or datetime');
      const at = instantMillis(v);
      if (at === undefined) return fail(f, report, `must be an ISO 8601 date or datetime, not "${v}"`);
      return isDateOnly(v) ? v.trim() : formatTimestamp(at);
    },
    // The instant, and whether it was given as a date (all day).
    columns: (f) => [
      { name: f.name, type: 'INTEGER', notNull: false },
      { name: `${f.name}_is_date`, type: 'INTEGER', notNull: true },
    ],
    store: (f, v) => ({ [f.name]: millisOf(v), [`${f.name}_is_date`]: typeof v === 'string' && isDateOnly(v) ? 1 : 0 }),
    load: (f, row) => {
      const v = row[f.name];
      if (typeof v !== 'number') return null;
      return row[`${f.name}_is_date`] === 1 ? formatDate(v) : formatTimestamp(v);
    },
    isTime: (v) => !isDateOnly(v),
    complete: (_f, now) => {
      const tomorrow = formatDate(now + 86_400_000);
      return [
        { value: formatDate(now), description: 'today, all day' },
        { value: tomorrow, description: 'tomorrow, all day' },
        { value: `${tomorrow}T09:00:00Z`, description: 'tomorrow at 09:00 UTC' },
      ];
    },
    schema: (_f, dir) =>
      dir === 'out'
        ? { anyOf: [{ type: 'string', format: 'date' }, TIMESTAMP] }
        : {
            type: 'string',
            description: 'a date (YYYY-MM-DD: all day) or a datetime (without an offset: UTC)',
            examples: ['2026-12-01', '2026-12-01T09:30:00Z'],
          },
  },
};

/** The kind of a field, and of its filter when it has one. */
export const fieldKind = (f: FieldDef): FieldKindDef => FIELD_KINDS[f.kind];
export const filterKind = (f: FieldDef): FilterKindDef | undefined => (f.filter ? FILTER_KINDS[f.filter] : undefined);
