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

/** Parses one ISO date or datetime, in UTC unless it carries an offset. */
export function parseInstant(text: string): DateTime | undefined {
  const s = text.trim();
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}(:\d{2}(:\d{2}([.,]\d+)?)?)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/i.test(s)) return undefined;
  // An offset is at most 14 hours (UTC+14:00 is the farthest zone), its minutes under 60:
  // +99:99 would shift the instant by days.
  const offset = /([+-])(\d{2}):?(\d{2})?$/.exec(s.slice(10));
  if (offset && (Number(offset[2]) > 14 || Number(offset[3] ?? 0) > 59)) return undefined;
  const dt = luxon().DateTime.fromISO(s.replace(' ', 'T'), UTC);
  return dt.isValid ? dt.toUTC() : undefined;
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
