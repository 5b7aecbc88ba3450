/**
 * Records with an agenda (reminders) as an iCalendar calendar (RFC 5545): `-o ics` and the
 * calendar feeds that `pm serve` answers. The text is ical.js's (Mozilla's iCalendar library:
 * CRLF line ends, TEXT escaped, lines folded by their UTF-8 octets), loaded on first use:
 * nothing else pays for it.
 */
import type { ResourceDef } from '../resources/types.js';
import { fieldOf } from '../resources/index.js';

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
 * The calendar of `records` of `r` (which has an agenda): one event per record that has a due
 * date, its UID the record's uuid (an app that imports it again updates rather than duplicates);
 * an all-day one (a date, or the all-day flag set) as DTSTART;VALUE=DATE, a timed one in UTC.
 */
export async function calendarOf(r: ResourceDef, records: Iterable<Rec>, opts: CalendarOptions): Promise<Calendar> {
  const agenda = r.agenda;
  if (!agenda) throw new Error(`${r.plural} have no agenda to make a calendar of`);
  const ICAL = (await import('ical.js')).default;
  // ical.js folds a line after this many octets, and a continuation line starts with a space:
  // 74 keeps every line within RFC 5545's 75.
  ICAL.foldLength = 74;
  const allDayFlag = fieldOf(r, agenda.due)?.allDayFlag;
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
  const events: unknown[] = [];
  let undated = 0;
  for (const rec of records) {
    const due = rec[agenda.due];
    const at = typeof due === 'string' ? new Date(DATE_ONLY.test(due) ? `${due}T00:00:00Z` : due) : undefined;
    if (!at || Number.isNaN(at.getTime())) {
      undated++;
      continue;
    }
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
    if (details !== undefined && details !== null && details !== '')
      event.push(['description', {}, 'text', text(details)]);
    if (revised) event.push(['last-modified', {}, 'date-time', revised]);
    events.push(['vevent', event, []]);
  }
  // Every content line ends with CRLF, the last one too (RFC 5545 3.1).
  const written = ICAL.stringify(['vcalendar', props, events]);
  return { text: written.endsWith('\r\n') ? written : `${written}\r\n`, undated };
}

type Prop = [name: string, parameters: Record<string, string>, type: string, value: string];

/** A jCal date-time in UTC: 2027-01-15T10:30:00Z (to the second, as iCalendar has it). */
const utc = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;
