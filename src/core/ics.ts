/**
 * Records with an agenda (reminders) as an iCalendar calendar (RFC 5545): `-o ics` and the
 * calendar feeds that `pm serve` answers. The text is ical.js's (Mozilla's iCalendar library:
 * CRLF line ends, TEXT escaped, lines folded by their UTF-8 octets), loaded on first use:
 * nothing else pays for it.
 */
import type { ResourceDef } from '../resources/types.js';
import { fieldOf } from '../resources/index.js';
import { periodParts } from './kinds.js';

type Rec = Record<string, unknown>;

interface CalendarOptions {
  /** The calendar's name, as calendar apps show it (X-WR-CALNAME). */
  readonly name?: string | undefined;
  /** An event's DTSTAMP when its record has no updated_at (ms). */
  readonly now: number;
  /** How often a subscriber should fetch it again (REFRESH-INTERVAL, X-PUBLISHED-TTL), in seconds. */
  readonly refreshSeconds?: number | undefined;
}

interface Calendar {
  readonly text: string;
  /** Records left out: those without a due date. */
  readonly undated: number;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * RFC 5545 TEXT holds no control characters but tab and line breaks (which are escaped, each
 * CRLF or CR as one LF); any other is dropped rather than written into a calendar an app may
 * refuse whole.
 */
const text = (v: unknown): string =>
  String(v)
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '');

/**
 * A calendar written a piece at a time, so that one of many records is never held whole: its
 * head (BEGIN:VCALENDAR and the calendar's properties), each record's event, and its end. The
 * pieces put together are the text calendarOf makes.
 */
export interface CalendarWriter {
  readonly head: string;
  /** The text of a record's event, CRLF-ended; undefined when it has no due date, null when it is done (left out). */
  event(rec: Rec): string | undefined | null;
  readonly end: string;
}

/** The calendar's writer for records of `r` (which has an agenda). */
export async function calendarWriter(r: ResourceDef, opts: CalendarOptions): Promise<CalendarWriter> {
  if (!r.agenda) throw new Error(`${r.plural} have no agenda to make a calendar of`);
  const ICAL = (await import('ical.js')).default;
  // ical.js folds a line after this many octets, and a continuation line starts with a space:
  // 74 keeps every line within RFC 5545's 75.
  ICAL.foldLength = 74;
  // The calendar as jCal (RFC 7265), which ical.js writes as iCalendar: each property is
  // [name, parameters, value type, value].
  const props: Prop[] = [
    ['version', {}, 'text', '2.0'],
    ['prodid', {}, 'text', '-//pm//pm//EN'],
    ['calscale', {}, 'text', 'GREGORIAN'],
  ];
  if (opts.name !== undefined)
    props.push(['name', {}, 'text', text(opts.name)], ['x-wr-calname', {}, 'text', text(opts.name)]);
  if (opts.refreshSeconds !== undefined) {
    const every = ICAL.Duration.fromSeconds(opts.refreshSeconds).toString();
    props.push(['refresh-interval', {}, 'duration', every], ['x-published-ttl', {}, 'unknown', every]);
  }
  // Every content line ends with CRLF, the last one too (RFC 5545 3.1). The calendar without
  // events is its head and its end; each event goes between them, as ical.js writes a subcomponent.
  const empty = ICAL.stringify.component(['vcalendar', props, []], ICAL.design.icalendar);
  const END = 'END:VCALENDAR';
  const event = eventOf(ICAL, r, opts);
  return {
    head: empty.slice(0, -END.length),
    event(rec) {
      const e = event(rec);
      return e && `${ICAL.stringify.component(['vevent', e, []], ICAL.design.icalendar)}\r\n`;
    },
    end: `${END}\r\n`,
  };
}

/**
 * The calendar of `records` of `r` (which has an agenda), whole: one event per record that has
 * a due date.
 */
export async function calendarOf(r: ResourceDef, records: Iterable<Rec>, opts: CalendarOptions): Promise<Calendar> {
  const w = await calendarWriter(r, opts);
  const parts = [w.head];
  let undated = 0;
  for (const rec of records) {
    const e = w.event(rec);
    if (e === undefined) undated++;
    else if (e !== null) parts.push(e);
  }
  parts.push(w.end);
  return { text: parts.join(''), undated };
}

/**
 * A record's event as jCal (undefined when it has no due date), its UID the record's uuid (an
 * app that imports it again updates rather than duplicates); an all-day one (a date, or the
 * all-day flag set) as DTSTART;VALUE=DATE, a timed one in UTC. A done one is over: null, left
 * out (VEVENT has no COMPLETED status; that is a to-do's, and an app would still show it due).
 */
function eventOf(
  ICAL: typeof import('ical.js').default,
  r: ResourceDef,
  opts: CalendarOptions,
): (rec: Rec) => Prop[] | undefined | null {
  const agenda = r.agenda as NonNullable<ResourceDef['agenda']>;
  const allDayFlag = fieldOf(r, agenda.due)?.allDayFlag;
  return (rec) => {
    if (agenda.done !== undefined && rec[agenda.done] !== null && rec[agenda.done] !== undefined) return null;
    const due = rec[agenda.due];
    const at = typeof due === 'string' ? new Date(DATE_ONLY.test(due) ? `${due}T00:00:00Z` : due) : undefined;
    if (!at || Number.isNaN(at.getTime())) return undefined;
    const allDay = DATE_ONLY.test(due as string) || (allDayFlag !== undefined && rec[allDayFlag] === true);
    const details = agenda.details === undefined ? undefined : rec[agenda.details];
    const updated = typeof rec.updated_at === 'string' ? new Date(rec.updated_at) : undefined;
    const revised = updated && !Number.isNaN(updated.getTime()) ? utc(updated) : undefined;
    const event: Prop[] = [
      ['uid', {}, 'text', String(rec.uuid)],
      // A calendar without a METHOD: DTSTAMP is when the event was last revised (RFC 5545
      // 3.8.7.2), so the same records make the same text.
      ['dtstamp', {}, 'date-time', revised ?? utc(new Date(opts.now))],
      // All day on the date it is due by, in UTC, as `pm reminders due` counts it.
      allDay ? ['dtstart', {}, 'date', (due as string).slice(0, 10)] : ['dtstart', {}, 'date-time', utc(at)],
      ['summary', {}, 'text', text(rec[agenda.title] ?? '')],
    ];
    // A timed one lasts EVENT_LENGTH, so that every app draws it alike.
    if (!allDay) event.push(['duration', {}, 'duration', EVENT_LENGTH]);
    if (details !== undefined && details !== null && details !== '')
      event.push(['description', {}, 'text', text(details)]);
    const place = agenda.where === undefined ? undefined : whereOf(rec[agenda.where]);
    if (place) event.push(['location', {}, 'text', text(place)]);
    const repeat = agenda.repeat === undefined ? undefined : rec[agenda.repeat];
    if (typeof repeat === 'string') {
      const rule = recurrence(ICAL, repeat);
      if (rule) event.push(['rrule', {}, 'recur', rule]);
    }
    if (revised) event.push(['last-modified', {}, 'date-time', revised]);
    return event;
  };
}

type Prop = [name: string, parameters: Record<string, string>, type: string, value: string | object];

/** How long a timed event lasts in a calendar (a reminder has a time, not a length). */
const EVENT_LENGTH = 'PT30M';

/** The words of an embedded linked record (`{"data": {address, postcode}}`) that say where: its address and postcode. */
function whereOf(v: unknown): string | undefined {
  const data = typeof v === 'object' && v !== null ? (v as { data?: unknown }).data : undefined;
  if (typeof data !== 'object' || data === null) return undefined;
  const words = Object.entries(data as Rec)
    .filter(([k, x]) => k !== 'uuid' && typeof x === 'string' && x.trim() !== '')
    .map(([, x]) => String(x));
  return words.length ? words.join(', ') : undefined;
}

/**
 * An ISO 8601 period of whole days, weeks, months or years (P1Y, P6M, P2W, P10D) as the jCal of
 * an RRULE (ical.js's Recur): FREQ of its one unit, INTERVAL its count. A period of several units
 * (P1Y6M) is said in months, or in days.
 */
function recurrence(ICAL: typeof import('ical.js').default, period: string): object | undefined {
  const p = periodParts(period);
  if (!p) return undefined;
  const { years: y, months: mo, weeks: w, days: d } = p;
  const units: [string, number][] =
    y + mo > 0 && w + d === 0
      ? mo === 0
        ? [['YEARLY', y]]
        : [['MONTHLY', y * 12 + mo]]
      : y + mo === 0
        ? d === 0
          ? [['WEEKLY', w]]
          : [['DAILY', w * 7 + d]]
        : [];
  const [freq, interval] = units[0] ?? [];
  if (!freq || !interval) return undefined;
  return new ICAL.Recur({ freq: freq as 'YEARLY', interval }).toJSON();
}

/** A jCal date-time in UTC: 2027-01-15T10:30:00Z (to the second, as iCalendar has it). */
const utc = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;
