/**
 * Records with an agenda (reminders) as an iCalendar calendar (RFC 5545): `-o ics` and the
 * calendar feeds that `pm serve` answers. The text is ical-generator's (CRLF line ends, lines
 * folded at 75 octets, TEXT escaped), loaded on first use: nothing else pays for it.
 */
import type { ResourceDef } from '../resources/types.js';
import { fieldOf } from '../resources/index.js';

type Rec = Record<string, unknown>;

export interface CalendarOptions {
  /** The calendar's name, as calendar apps show it (X-WR-CALNAME). */
  readonly name?: string | undefined;
  /** An event's DTSTAMP when its record has no updated_at (ms). */
  readonly now: number;
  /** How often a subscriber should fetch it again (REFRESH-INTERVAL, X-PUBLISHED-TTL), in seconds. */
  readonly refreshSeconds?: number | undefined;
}

export interface Calendar {
  readonly text: string;
  /** Records left out: those without a due date. */
  readonly undated: number;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * RFC 5545 TEXT holds no control characters but tab and line breaks (which are escaped); any
 * other is dropped rather than written into a calendar an app may refuse whole.
 */
const text = (v: unknown): string =>
  String(v).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '');

/**
 * The calendar of `records` of `r` (which has an agenda): one event per record that has a due
 * date, its UID the record's uuid (an app that imports it again updates rather than duplicates);
 * an all-day one (a date, or the all-day flag set) as DTSTART;VALUE=DATE, a timed one in UTC.
 */
export async function calendarOf(r: ResourceDef, records: Iterable<Rec>, opts: CalendarOptions): Promise<Calendar> {
  const agenda = r.agenda;
  if (!agenda) throw new Error(`${r.plural} have no agenda to make a calendar of`);
  const { default: ical } = await import('ical-generator');
  const allDayFlag = fieldOf(r, agenda.due)?.allDayFlag;
  const cal = ical({ prodId: { company: 'pm', product: 'pm', language: 'EN' } });
  if (opts.name !== undefined) cal.name(text(opts.name));
  if (opts.refreshSeconds !== undefined) cal.ttl(opts.refreshSeconds);
  const stamp = new Date(opts.now);
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
    const revised = updated && !Number.isNaN(updated.getTime()) ? updated : undefined;
    cal.createEvent({
      id: String(rec.uuid),
      summary: text(rec[agenda.title] ?? ''),
      ...(details === undefined || details === null || details === '' ? {} : { description: text(details) }),
      // A calendar without a METHOD: DTSTAMP is when the event was last revised (RFC 5545 3.8.7.2),
      // so the same records make the same text.
      stamp: revised ?? stamp,
      ...(revised ? { lastModified: revised } : {}),
      // All day on the date it is due by, in UTC, as `pm reminders due` counts it.
      start: allDay ? new Date(`${(due as string).slice(0, 10)}T00:00:00Z`) : at,
      allDay,
    });
  }
  // Every content line ends with CRLF, the last one too (RFC 5545 3.1).
  return { text: `${cal.toString()}\r\n`, undated };
}
