/**
 * Dates and ranges as people write them ("tomorrow 9am", "next monday", "+2h", "last 7 days"),
 * turned into what the API accepts. Pure: the clock and the time zone are passed in.
 *
 * - The API's ISO forms (datetime.ts) pass through unchanged, with the API's meaning:
 *   a datetime without offset is UTC, a bare date is that whole UTC day in a filter.
 * - Everything else is local time in `zone` (an IANA name; the system's when absent), converted
 *   to UTC. `2026-12-01 14:00` (a space, no offset) is how people write a local time; with a `T`
 *   it is the API's UTC datetime.
 * - Natural language is chrono-node's (English), loaded only when a value needs it: it costs
 *   ~20 ms to load and ~20 ms for its first parse, and `pm --version` or an ISO value never pays.
 *   chrono computes in the process's own zone, so it is given a reference whose *local* wall
 *   clock is the user's, and only the wall-clock fields it reads are used; luxon puts them in
 *   the user's zone (a time the clocks skip or repeat there is an error that says so).
 * - Small explicit rules come first, for what chrono reads loosely or not at all: `now`,
 *   `today`, `+2h`/`-30m`, `in 3 days`, `2 hours ago`, `last 7 days`, `this week`, ambiguous
 *   numeric dates (`03/04`).
 */
import { createRequire } from 'node:module';
import type { DateTime, Duration, DurationLikeObject, Zone } from 'luxon';
import { luxon } from './luxon.js';
import { DatetimeParseError, instantMillis, isDateOnly, parseDuration, parseRange } from './datetime.js';

export interface HumanDateOptions {
  /** The current instant, epoch milliseconds. */
  readonly now: number;
  /** IANA time zone of the person typing; the system's when absent. */
  readonly zone?: string | undefined;
}

interface HumanInstant {
  /** What to send: the ISO text as given, `YYYY-MM-DD` for a day, else a UTC `YYYY-MM-DDTHH:MM:SSZ`. */
  readonly iso: string;
  /** No time of day was given: a whole day (an all-day reminder). */
  readonly dateOnly: boolean;
}

/** A value that is not a date or range this module understands; the message says what was read. */
export class HumanDateError extends Error {
  constructor(
    message: string,
    /** A next step, when there is a better one than the message's own examples. */
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'HumanDateError';
  }
}

export interface DateExample {
  readonly input: string;
  readonly meaning: string;
  /** `date`: a single date or time (inputs such as --due-at on create); `range`: a list filter. */
  readonly kind: 'date' | 'range';
}

/** For help text (`pm help dates`); every example here is parsed by the tests. */
export const DATE_EXAMPLES: readonly DateExample[] = [
  { kind: 'date', input: 'tomorrow 9am', meaning: 'tomorrow at 09:00, local time' },
  { kind: 'date', input: 'next monday', meaning: 'the coming Monday, all day' },
  { kind: 'date', input: 'friday 14:30', meaning: 'the next Friday at 14:30 (a weekday alone is never in the past)' },
  { kind: 'date', input: 'in 3 days', meaning: 'the day three days from today, all day' },
  { kind: 'date', input: 'in 2 hours', meaning: 'two hours from now' },
  { kind: 'date', input: '+2h', meaning: 'two hours from now (units: s, m, h, d, w, mo, y; +1d2h)' },
  { kind: 'date', input: '-30m', meaning: 'thirty minutes ago' },
  { kind: 'date', input: 'today', meaning: 'today, all day' },
  { kind: 'date', input: 'now', meaning: 'this moment' },
  { kind: 'date', input: 'dec 1 3pm', meaning: '1 December at 15:00, local time' },
  { kind: 'date', input: '2026-12-01', meaning: '1 December 2026, all day' },
  { kind: 'date', input: '2026-12-01 14:00', meaning: '1 December 2026 at 14:00, local time' },
  { kind: 'date', input: '2026-12-01T14:00:00Z', meaning: 'ISO 8601: 14:00 UTC (no offset means UTC)' },
  { kind: 'range', input: 'today', meaning: 'today, midnight to midnight, local time' },
  { kind: 'range', input: 'yesterday', meaning: 'yesterday, all of it' },
  { kind: 'range', input: 'tomorrow', meaning: 'tomorrow, all of it' },
  { kind: 'range', input: 'this week', meaning: 'Monday 00:00 to next Monday 00:00, local time' },
  { kind: 'range', input: 'last week', meaning: 'the calendar week before this one' },
  { kind: 'range', input: 'this month', meaning: 'the 1st of this month to the 1st of the next' },
  { kind: 'range', input: 'last 7 days', meaning: 'the seven days up to now (as -P7D)' },
  { kind: 'range', input: 'next 2 weeks', meaning: 'now to two weeks from now (as P2W)' },
  { kind: 'range', input: '+2h', meaning: 'now to two hours from now' },
  { kind: 'range', input: 'next monday', meaning: 'the coming Monday, all of it' },
  { kind: 'range', input: 'dec 1 - dec 5', meaning: '1 December 00:00 to 6 December 00:00, local time' },
  { kind: 'range', input: '2026-12-01', meaning: 'ISO 8601: 1 December 2026, the whole UTC day' },
  { kind: 'range', input: '2026-12-01/P1W', meaning: 'ISO 8601 interval: a week from 1 December, UTC' },
  { kind: 'range', input: '-P7D', meaning: 'ISO 8601 duration: the past seven days' },
];

const DATE_TRY = 'try "tomorrow 9am", "2026-12-01", "in 3 days"';
const RANGE_TRY = 'try "last 7 days", "this week", "today", "2026-12-01/P1W"';

// ------------------------------------------------------------------ zone and wall clock

/** The zone, and now in it to the second. */
function clockOf(opts: HumanDateOptions): { zone: Zone; now: DateTime } {
  const id = opts.zone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const zone = luxon().DateTime.fromMillis(0, { zone: id }).zone;
  if (!zone.isValid)
    throw new HumanDateError(`"${id}" is not a time zone I know; use an IANA name such as Europe/London`);
  return { zone, now: luxon().DateTime.fromMillis(Math.floor(opts.now / 1000) * 1000, { zone }) };
}

type Wall = Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', number>;

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const wallText = (w: Wall) =>
  `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)}${w.second ? `:${pad(w.second)}` : ''}`;

/**
 * The instant a wall-clock time names in a zone. A time the clocks skip (spring forward) or
 * pass twice (fall back) is an error: the first does not exist, the second is ambiguous.
 */
function wallToMillis(w: Wall, zone: Zone): number {
  // luxon moves a skipped time forward (its wall clock then differs), and lists both readings of a repeated one.
  const dt = luxon().DateTime.fromObject(w, { zone });
  const fits = dt.getPossibleOffsets();
  const at = wallText(w);
  if (fits.length === 1 && wallText(dt) === at) return dt.toMillis();
  if (fits.length === 1)
    throw new HumanDateError(`${at} does not exist in ${zone.name}: the clocks go forward then; give another time`);
  const [a, b] = fits.sort((x, y) => x.toMillis() - y.toMillis()).map((d) => d.toFormat('ZZ'));
  throw new HumanDateError(
    `${at} happens twice in ${zone.name} (the clocks go back); add the offset: ` +
      `${at.replace(' ', 'T')}${a} (the first) or ${at.replace(' ', 'T')}${b} (the second)`,
  );
}

/** `YYYY-MM-DDTHH:MM:SSZ`: what is sent for a local time, converted. */
export function utcText(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

const interval = (start: number, end: number): string => `${utcText(start)}/${utcText(end)}`;

/** A local day, in the user's words, for "what was understood". */
const sayDay = (d: DateTime) => d.toFormat('cccc d LLLL yyyy');
const sayTime = (d: DateTime) => `${sayDay(d)} ${d.toFormat('HH:mm')} ${d.zoneName}`;

// ------------------------------------------------------------------ the explicit rules

/** The words of each unit, in the order a pattern tries them. */
const UNIT_WORDS: Record<string, string> = Object.fromEntries(
  Object.entries({
    seconds: ['s', 'secs', 'sec', 'seconds', 'second'],
    minutes: ['m', 'mins', 'min', 'minutes', 'minute'],
    hours: ['h', 'hrs', 'hr', 'hours', 'hour'],
    days: ['d', 'days', 'day'],
    weeks: ['w', 'wks', 'wk', 'weeks', 'week'],
    months: ['mo', 'months', 'month'],
    years: ['y', 'yrs', 'yr', 'years', 'year'],
  }).flatMap(([unit, words]) => words.map((w) => [w, unit])),
);
const CLOCK_UNITS = new Set<string>(['seconds', 'minutes', 'hours']);
const UNIT = `(${Object.keys(UNIT_WORDS).join('|')})`;
const COUNT_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  ...Object.fromEntries(
    ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'].map((w, i) => [w, i + 1]),
  ),
  twelve: 12,
};
const COUNT = `(\\d+|${Object.keys(COUNT_WORDS).join('|')})`;
const count = (s: string): number => COUNT_WORDS[s] ?? Number(s);
/** The days named by a word, from today. */
const DAYS: Record<string, number> = { yesterday: -1, today: 0, tomorrow: 1 };

/** `+2h`, `-30m`, `+1d2h`, `+ 90 s`: an exact offset from now. */
const SHORTHAND = new RegExp(`^([+-])\\s*((?:\\d+\\s*${UNIT}\\s*)+)$`);
const SHORTHAND_PART = new RegExp(`(\\d+)\\s*${UNIT}`, 'g');
/** `in 3 days`, `in an hour`, `3 days from now`, `3 days ago`. */
const COUNTED = new RegExp(`^(?:in\\s+${COUNT}\\s+${UNIT}|${COUNT}\\s+${UNIT}\\s+(?:from\\s+(?:now|today)|ago))$`);
/** `last 7 days`, `past 24 hours`, `next 2 weeks`, `past week`: rolling, from or to now. */
const ROLLING = new RegExp(`^(last|past|previous|next|coming)\\s+(?:${COUNT}\\s+)?${UNIT}$`);
/** `this week`, `last month`, `next year`: calendar periods. */
const CALENDAR = /^(this|current|last|previous|next)\s+(day|week|month|year)$/;
/** Which way each first word of ROLLING and CALENDAR points from now. */
const DIRECTION: Record<string, number> = { this: 0, current: 0, last: -1, past: -1, previous: -1, next: 1, coming: 1 };

/** `in 3 days`, `2 hours ago`: the instant it names, and whether its unit is a clock's (no whole day). */
function countFromNow(s: string, now: DateTime): { to: DateTime; clock: boolean } | undefined {
  const m = COUNTED.exec(s);
  if (!m) return undefined;
  const n = count((m[1] ?? m[3]) as string) * (s.endsWith(' ago') ? -1 : 1);
  const unit = UNIT_WORDS[(m[2] ?? m[4]) as string] as string;
  return { to: now.plus({ [unit]: n }), clock: CLOCK_UNITS.has(unit) };
}

function shorthand(sign: string, body: string): DurationLikeObject {
  const d: Record<string, number> = {};
  for (const m of body.matchAll(SHORTHAND_PART)) {
    const unit = UNIT_WORDS[m[2] as string] as string;
    d[unit] = (d[unit] ?? 0) + (sign === '-' ? -1 : 1) * Number(m[1]);
  }
  return d as DurationLikeObject;
}

/** Numeric dates whose order people disagree on: 03/04 is 3 April to some, March 4 to others. */
const NUMERIC_DATE = /\b(\d{1,2})([/.])(\d{1,2})(?:\2(\d{2}|\d{4}))?\b/;

function checkNumericOrder(text: string, now: DateTime): void {
  const m = NUMERIC_DATE.exec(text);
  if (!m) return;
  const [a, b] = [Number(m[1]), Number(m[3])];
  if (a === b || a > 12 || b > 12 || a === 0 || b === 0) return;
  let year = m[4] ? Number(m[4]) : now.year;
  if (year < 100) year += 2000;
  const dayFirst = luxon().DateTime.fromObject({ year, month: b, day: a });
  const monthFirst = luxon().DateTime.fromObject({ year, month: a, day: b });
  const one = (d: DateTime) => `${d.toFormat('d LLLL')} (${d.toISODate()})`;
  throw new HumanDateError(
    `"${m[0]}" is ambiguous: ${one(dayFirst)} or ${one(monthFirst)}? Write the date as YYYY-MM-DD, or with the month's name ("${dayFirst.toFormat('d LLL').toLowerCase()}")`,
  );
}

/** The API's characters only: such a value that fails is a broken ISO value, not words. */
const ISO_LIKE = /^(?:[-+]?P|\d{4}-)[\dT:+\-.,ZPWYMDHS/ ]*$/i;
/** A local date and time as people write it: a space, no offset. */
const LOCAL_DATETIME = /^(\d{4})-(\d{2})-(\d{2})[ ]+(\d{1,2}):(\d{2})(?::(\d{2}))?$/;

/** The instant of a local date and time, and the length of its last unit (a second or a minute). */
function localDatetime(text: string, zone: Zone): { at: number; unit: number } | undefined {
  const m = LOCAL_DATETIME.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1).map((x) => Number(x ?? 0)) as number[];
  const w = { year, month, day, hour, minute, second } as Wall;
  const check = luxon().DateTime.fromObject(w, { zone: 'utc' });
  if (!check.isValid)
    throw new HumanDateError(`"${text}" is not a valid date and time (${check.invalidExplanation ?? 'out of range'})`);
  return { at: wallToMillis(w, zone), unit: m[6] !== undefined ? 1000 : 60_000 };
}

// ------------------------------------------------------------------ chrono

type Chrono = typeof import('chrono-node/en');
type Result = import('chrono-node/en').ParsedResult;

/** chrono-node's English parser, loaded on first use (synchronously, so flag parsing stays sync). */
function chrono(): Chrono {
  return createRequire(import.meta.url)('chrono-node/en') as Chrono;
}

/** What was read: each end a local day, or an exact instant. */
type Reading = { start: Point; end?: Point };

type Point = { day: DateTime } | { at: number; precision: DurationLikeObject };

const MODIFIER = /\b(this|next|last|past|previous|coming)\b/;
const TIME_OF_DAY = /\b(morning|afternoon|evening|night|tonight|noon|midday|midnight)\b/;

/** Reads one end of a chrono result as a point in `zone`, with the fix-ups chrono's defaults need. */
function point(r: Result, c: Result['start'], now: DateTime, zone: Zone): Point {
  const tags = r.tags();
  const date = { year: c.get('year') as number, month: c.get('month') as number, day: c.get('day') as number };
  let day = luxon().DateTime.fromObject(date, { zone });
  const noDayOrMonth = !c.isCertain('day') && !c.isCertain('month');
  // A weekday with no "next", "last" and such before it.
  const weekdayOnly = noDayOrMonth && c.isCertain('weekday') && !MODIFIER.test(r.text);
  const timeOnly = noDayOrMonth && !c.isCertain('weekday') && ![...tags].some((t) => t.startsWith('casualReference/'));
  const timed = c.isCertain('hour') || TIME_OF_DAY.test(r.text);
  if (!timed) {
    // A weekday alone is the next one (today counts): "friday" on a Saturday is six days ahead.
    if (weekdayOnly && day < now.startOf('day')) day = day.plus({ weeks: 1 });
    return { day };
  }
  const wall: Wall = {
    ...date,
    hour: c.get('hour') ?? 0,
    minute: c.get('minute') ?? 0,
    second: c.get('second') ?? 0,
  };
  // A zone in the text ("9am EST", "+0530"): chrono gives its offset; relative readings carry the
  // process's own offset instead, which is no use here.
  const fixedOffset =
    c.isCertain('timezoneOffset') && ![...tags].some((t) => t.startsWith('result/relative') || t.endsWith('/now'))
      ? (c.get('timezoneOffset') as number)
      : undefined;
  let at =
    fixedOffset === undefined
      ? wallToMillis(wall, zone)
      : Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second) - fixedOffset * 60_000;
  // A time alone, or a weekday and time, already past: the next one.
  if (at < now.toMillis() && (timeOnly || weekdayOnly)) {
    const next = luxon()
      .DateTime.fromMillis(at, { zone })
      .plus(timeOnly ? { days: 1 } : { weeks: 1 });
    at = wallToMillis(next.toObject() as Wall, zone);
  }
  const unit = c.isCertain('second') ? 'seconds' : c.isCertain('minute') ? 'minutes' : 'hours';
  return { at, precision: { [unit]: 1 } };
}

function describePoint(p: Point, zone: Zone): string {
  return 'day' in p ? sayDay(p.day) : sayTime(luxon().DateTime.fromMillis(p.at, { zone }));
}

/** Reads `text` with chrono; only a reading of the whole text counts. */
function readWithChrono(text: string, raw: string, now: DateTime, zone: Zone, what: string, tryList: string): Reading {
  // chrono works in the process's zone: give it a reference whose local wall clock is the user's.
  const ref = new Date(now.year, now.month - 1, now.day, now.hour, now.minute, now.second);
  const results = chrono().parse(text, ref);
  const whole = results.length === 1 && results[0]?.index === 0 && results[0].text.length === text.length;
  if (!whole) {
    if (!results.length) throw new HumanDateError(`"${raw}" is not ${what} I understand; ${tryList}`);
    const read = results.map((r) => `"${r.text}" (${describePoint(point(r, r.start, now, zone), zone)})`).join(' and ');
    throw new HumanDateError(`"${raw}" is not ${what} I understand: I could read only ${read}; ${tryList}`);
  }
  const r = results[0] as NonNullable<(typeof results)[0]>;
  const start = point(r, r.start, now, zone);
  return r.end ? { start, end: point(r, r.end, now, zone) } : { start };
}

/** Lower case, one space between words, no filler before the date ("on friday", "by 5pm"). */
function normalise(text: string): string {
  return text
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/[.!]$/, '')
    .toLowerCase()
    .replace(/^(?:on|by|at|due|due on|due at|due by) /, '');
}

// ------------------------------------------------------------------ instants

/**
 * One date or datetime, for an input such as a reminder's --due-at. ISO values come back as
 * given; a day without time comes back as `YYYY-MM-DD` with `dateOnly`; any other time as a UTC
 * datetime. Throws HumanDateError saying what was (or was not) understood.
 */
export function parseHumanInstant(text: string, opts: HumanDateOptions): HumanInstant {
  const raw = text.trim();
  if (raw === '') throw new HumanDateError(`is empty; ${DATE_TRY}`);
  // An ISO date or instant needs neither the clock nor the zone (whose reading starts Intl's time
  // zone data): most dates in scripts are these.
  if (!LOCAL_DATETIME.test(raw) && instantMillis(raw) !== undefined) return { iso: raw, dateOnly: isDateOnly(raw) };
  const { zone, now } = clockOf(opts);
  const local = localDatetime(raw, zone);
  if (local) return { iso: utcText(local.at), dateOnly: false };
  if (parseDuration(raw))
    throw new HumanDateError(
      `"${raw}" is a length of time, not a date; for a time from now write "+2h", "+7d" or "in 3 days"`,
    );
  if (ISO_LIKE.test(raw))
    throw new HumanDateError(
      `"${raw}" is not a valid ISO 8601 date or datetime; write 2026-12-01, 2026-12-01 14:00 (local) or 2026-12-01T14:00:00Z`,
    );
  const s = normalise(raw);
  const day = (d: DateTime): HumanInstant => ({ iso: d.toISODate() as string, dateOnly: true });
  const at = (ms: number): HumanInstant => ({ iso: utcText(ms), dateOnly: false });

  if (s === 'now') return at(now.toMillis());
  if (Object.hasOwn(DAYS, s)) return day(now.plus({ days: DAYS[s] as number }));
  const m = SHORTHAND.exec(s);
  if (m) return at(now.plus(shorthand(m[1] as string, m[2] as string)).toMillis());
  const counted = countFromNow(s, now);
  if (counted) return counted.clock ? at(counted.to.toMillis()) : day(counted.to);
  if (ROLLING.test(s) || CALENDAR.test(s))
    throw new HumanDateError(
      `"${raw}" is a span of time, not a date; give a day ("next monday", "in 7 days") or a time ("tomorrow 9am")`,
    );
  checkNumericOrder(s, now);
  const reading = readWithChrono(s, raw, now, zone, 'a date', DATE_TRY);
  if (reading.end)
    throw new HumanDateError(
      `"${raw}" is a range (${describePoint(reading.start, zone)} to ${describePoint(reading.end, zone)}), not one date`,
    );
  const p = reading.start;
  return 'day' in p ? day(p.day) : at(p.at);
}

// ------------------------------------------------------------------ ranges

/**
 * A datetime filter value: the API's ISO forms (date, datetime, interval, duration) as
 * given; anything else as an explicit UTC interval `start/end`, half-open. Throws
 * HumanDateError saying what was (or was not) understood.
 */
export function parseHumanRange(text: string, opts: HumanDateOptions): string {
  const raw = text.trim();
  if (raw === '') throw new HumanDateError(`is empty; ${RANGE_TRY}`);
  const { zone, now } = clockOf(opts);
  const nowMs = now.toMillis();

  const local = localDatetime(raw, zone);
  if (local) return interval(local.at, local.at + local.unit);
  try {
    parseRange(raw, opts.now);
    return raw;
  } catch (e) {
    if (!(e instanceof DatetimeParseError)) throw e;
    if (ISO_LIKE.test(raw))
      throw new HumanDateError(
        `${e.message}.`,
        'Give a date (2026-12-01), a datetime (2026-12-01T09:00:00Z), an interval (2026-12-01/12-08, 2026-12-01/P1W), a duration from now (P7D ahead, -P7D behind), or words ("last 7 days", "this week").',
      );
  }

  const s = normalise(raw);
  const startOf = (p: Point) => ('day' in p ? p.day.startOf('day').toMillis() : p.at);
  const endOf = (p: Point) =>
    'day' in p
      ? p.day.startOf('day').plus({ days: 1 }).toMillis()
      : luxon().DateTime.fromMillis(p.at, { zone }).plus(p.precision).toMillis();
  const wholeDay = (day: DateTime) => interval(startOf({ day }), endOf({ day }));
  const rolling = (to: DateTime) => interval(Math.min(to.toMillis(), nowMs), Math.max(to.toMillis(), nowMs));

  if (Object.hasOwn(DAYS, s)) return wholeDay(now.plus({ days: DAYS[s] as number }));
  if (s === 'now') return interval(nowMs, nowMs + 1000);
  let m = SHORTHAND.exec(s);
  if (m) return rolling(now.plus(shorthand(m[1] as string, m[2] as string)));
  m = ROLLING.exec(s);
  if (m) {
    const unit = UNIT_WORDS[m[3] as string] as string;
    // "last week" without a number is the calendar week; "past week" is the 7 days up to now.
    if (m[2] !== undefined || m[1] === 'past' || m[1] === 'coming')
      return rolling(now.plus({ [unit]: (DIRECTION[m[1] as string] as number) * count(m[2] ?? '1') }));
  }
  m = CALENDAR.exec(s);
  if (m) {
    const unit = m[2] as 'day' | 'week' | 'month' | 'year';
    const start = now.startOf(unit).plus({ [`${unit}s`]: DIRECTION[m[1] as string] });
    return interval(start.toMillis(), start.plus({ [`${unit}s`]: 1 }).toMillis());
  }
  const counted = countFromNow(s, now);
  if (counted) {
    if (!counted.clock) return wholeDay(counted.to);
    const t = Math.floor(counted.to.toMillis() / 60_000) * 60_000;
    return interval(t, t + 60_000);
  }
  checkNumericOrder(s, now);
  const reading = readWithChrono(s, raw, now, zone, 'a date or range', RANGE_TRY);
  const start = startOf(reading.start);
  const end = reading.end ? ('day' in reading.end ? endOf(reading.end) : reading.end.at) : endOf(reading.start);
  if (end <= start)
    throw new HumanDateError(
      `"${raw}" ends before it starts (${describePoint(reading.start, zone)} to ${reading.end ? describePoint(reading.end, zone) : '?'})`,
    );
  return interval(start, end);
}

// ------------------------------------------------------------------ lengths of time

/** A length of time without a sign: `P7D`, `2 weeks`, `a month`, `10d`, `1w2d`, `36 hours`. */
export function parseHumanDuration(text: string): Duration {
  const raw = text.trim();
  const iso = parseDuration(raw);
  if (iso) return iso;
  const s = normalise(raw).replace(/^\+\s*/, '');
  const words = new RegExp(`^${COUNT}\\s*${UNIT}$`).exec(s);
  if (words)
    return luxon().Duration.fromObject({ [UNIT_WORDS[words[2] as string] as string]: count(words[1] as string) });
  if (SHORTHAND.test(`+${s}`)) return luxon().Duration.fromObject(shorthand('+', s));
  throw new HumanDateError(`"${raw}" is not a length of time I understand; try "P7D", "2 weeks", "10d"`);
}
