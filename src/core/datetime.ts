/**
 * Datetime values and ranges as the API defines them (docs/api.md, "Datetime filters"), all in UTC:
 * an exact datetime (the whole of its last given unit), a bare date (that day), an ISO 8601
 * interval (start/end, start/duration, duration/end, an end that omits leading parts of the
 * start), or a duration alone relative to now (P2W ahead, -P2W behind). Ranges are half-open.
 * ISO parsing is luxon's; this module adds the forms luxon leaves out.
 */
import type { DateTime, Duration } from 'luxon';
import { luxon } from './luxon.js';

/** A half-open range of instants, in epoch milliseconds: [start, end). */
export interface Range {
  readonly start: number;
  readonly end: number;
}

export class DatetimeParseError extends Error {
  override name = 'DatetimeParseError';
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
/** The offset that ends a datetime: Z, +01, +0100, +01:00. */
const OFFSET_RE = /(Z|[+-]\d{2}(:?\d{2})?)$/i;
const UTC = { zone: 'utc', setZone: false } as const;

/** Reads a duration, accepting the lax `P4H30M` (time units without T) as `PT4H30M`. */
export function parseDuration(text: string): Duration | undefined {
  let s = text.trim();
  if (!/^[-+]?P/i.test(s)) return undefined;
  s = s.toUpperCase().replace(/,/g, '.');
  // Time units written without T (P4H30M): put the T before the first hour or second unit.
  if (!s.includes('T')) s = s.replace(/^([-+]?P(?:\d+(?:[.,]\d+)?[YMWD])*)(?=\d+(?:[.,]\d+)?[HS])/, '$1T');
  if (!/\d/.test(s)) return undefined;
  const negative = s.startsWith('-');
  const d = luxon().Duration.fromISO(negative || s.startsWith('+') ? s.slice(1) : s);
  if (!d.isValid) return undefined;
  return negative ? d.negate() : d;
}

/** The unit of the last component written in a datetime, for its implied extent. */
function precisionOf(text: string): Duration {
  const time = text.split('T')[1] ?? '';
  const clock = time.replace(OFFSET_RE, '');
  const parts = clock.split(':').filter(Boolean).length;
  const unit = clock.includes('.') ? 'milliseconds' : parts >= 3 ? 'seconds' : parts === 2 ? 'minutes' : 'hours';
  return luxon().Duration.fromObject({ [unit]: 1 });
}

/** An ISO date or datetime, its parts in groups: date, time to the fraction, then the offset. */
const INSTANT_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?)?(Z|([+-])(\d{2}):?(\d{2})?)?$/i;

/**
 * The instant of an ISO date or datetime, in epoch milliseconds: in UTC unless it carries an
 * offset; undefined when it is not one, or names no real moment (2021-02-29, 10:60). Read here
 * rather than by luxon, whose loading costs a create with a due date a few milliseconds of its
 * start-up, and checked against luxon by test/core/datetime.test.ts: the same values and the same
 * refusals (24:00 is the next day's midnight, as luxon and ISO 8601 allow; fractions past the
 * millisecond are dropped).
 */
export function instantMillis(text: string): number | undefined {
  const m = INSTANT_RE.exec(text.trim());
  // An offset belongs to a time: a date alone has none.
  if (!m || (m[8] !== undefined && m[4] === undefined)) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((v) => Number(v ?? 0)) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ms = m[7] === undefined ? 0 : Math.floor(Number.parseFloat(`0.${m[7]}`) * 1000);
  // An offset is at most 14 hours (UTC+14:00 is the farthest zone), its minutes under 60: +99:99
  // would shift the instant by days.
  const offsetHours = Number(m[10] ?? 0);
  const offsetMinutes = Number(m[11] ?? 0);
  if (offsetHours > 14 || offsetMinutes > 59) return undefined;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  const midnight = hour === 24 && minute === 0 && second === 0 && ms === 0;
  if ((hour > 23 && !midnight) || minute > 59 || second > 59) return undefined;
  const at = new Date(0);
  // setUTCFullYear, not Date.UTC, which reads the years 0 to 99 as 1900 to 1999.
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second, ms);
  const sign = m[9] === '-' ? -1 : 1;
  return at.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
}

function daysIn(year: number, month: number): number {
  if (month !== 2) return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] as number;
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
}

/** Parses one ISO date or datetime, in UTC unless it carries an offset, as a luxon DateTime (in UTC). */
export function parseInstant(text: string): DateTime | undefined {
  const ms = instantMillis(text);
  return ms === undefined ? undefined : luxon().DateTime.fromMillis(ms, { zone: 'utc' });
}

/**
 * Completes an interval's end that omits leading parts (`2014-12-25/12-29`, `…T09:00/17:00`)
 * from its start, as ISO 8601 allows.
 */
function completeEnd(start: string, end: string): string {
  if (/^\d{4}-/.test(end)) return end;
  const [startDate = '', startTime] = start.split('T');
  const offset = (startTime && OFFSET_RE.exec(startTime)?.[0]) || '';
  let endDate = '';
  let endTime: string | undefined;
  if (end.includes('T')) [endDate, endTime] = end.split('T') as [string, string];
  else if (end.includes(':')) endTime = end;
  else endDate = end;
  const date = endDate ? startDate.slice(0, startDate.length - endDate.length) + endDate : startDate;
  if (endTime === undefined) return date;
  return `${date}T${endTime}${OFFSET_RE.test(endTime) ? '' : offset}`;
}

/**
 * Parses a datetime filter value into a half-open range. `now` anchors durations given alone.
 * Throws DatetimeParseError with a sentence saying what was wrong.
 */
export function parseRange(value: string, now: number): Range {
  // A space or a lower-case t between date and time (ISO allows the first by agreement) is a T,
  // so that the precision and the end completion below see one form.
  const text = value.trim().replace(/(\d-\d{2})[ t](?=\d{2})/gi, '$1T');
  if (text === '') throw new DatetimeParseError('is empty');
  const slash = text.split('/');
  if (slash.length > 2) throw new DatetimeParseError(`"${value}" has more than one "/"`);
  if (slash.length === 1) {
    const d = parseDuration(text);
    if (d) {
      const other = luxon().DateTime.fromMillis(now, UTC).plus(d).toMillis();
      return ordered(Math.min(now, other), Math.max(now, other), value);
    }
    if (DATE_RE.test(text)) {
      const day = parseInstant(text);
      if (!day) throw new DatetimeParseError(`"${value}" is not a valid date`);
      return { start: day.toMillis(), end: day.plus({ days: 1 }).toMillis() };
    }
    const at = parseInstant(text);
    if (!at) throw new DatetimeParseError(`"${value}" is not an ISO 8601 date, datetime, interval or duration`);
    return { start: at.toMillis(), end: at.plus(precisionOf(text)).toMillis() };
  }
  const [a = '', b = ''] = (slash as [string, string]).map((s) => s.trim());
  if (a === '' || b === '') throw new DatetimeParseError(`"${value}" lacks ${a === '' ? 'a start' : 'an end'}`);
  const da = parseDuration(a);
  const db = parseDuration(b);
  if (da && db) throw new DatetimeParseError(`"${value}" has a duration on both sides of "/"`);
  if (da) {
    const end = parseInstant(b);
    if (!end) throw new DatetimeParseError(`"${b}" is not a valid end of an interval`);
    return ordered(end.minus(da).toMillis(), end.toMillis(), value);
  }
  const start = parseInstant(a);
  if (!start) throw new DatetimeParseError(`"${a}" is not a valid start of an interval`);
  if (db) return ordered(start.toMillis(), start.plus(db).toMillis(), value);
  const end = parseInstant(completeEnd(a, b));
  if (!end) throw new DatetimeParseError(`"${b}" is not a valid end of an interval`);
  return ordered(start.toMillis(), end.toMillis(), value);
}

function ordered(a: number, b: number, value: string): Range {
  if (!Number.isFinite(a) || !Number.isFinite(b)) throw new DatetimeParseError(`"${value}" is out of range`);
  if (a > b) throw new DatetimeParseError(`"${value}" ends before it starts`);
  return { start: a, end: b };
}

/** The API's timestamp format: YYYY-MM-DDTHH:MM:SS+00:00. */
export function formatTimestamp(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}+00:00`;
}

/** A date-only value (all-day) in ISO form. */
export function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function isDateOnly(text: string): boolean {
  return DATE_RE.test(text.trim());
}

/**
 * An instant (ms) moved on by an ISO 8601 period of whole days, weeks, months or years, on the UTC
 * calendar (luxon's Duration): the time of day kept, and a month's end clamped (31 Jan + P1M is
 * the last day of February).
 */
export function plusPeriod(ms: number, period: string): number {
  const { DateTime, Duration } = luxon();
  return DateTime.fromMillis(ms, { zone: 'utc' }).plus(Duration.fromISO(period)).toMillis();
}
