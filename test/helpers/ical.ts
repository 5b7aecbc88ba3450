/**
 * A calendar read back by node-ical: an iCalendar parser independent of the library pm writes
 * with (ical.js), so that a test of pm's calendars does not ask the writer what it meant.
 */
import ical from 'node-ical';

interface ParsedEvent {
  readonly uid: string;
  readonly summary: string;
  readonly description: string | undefined;
  /** A date (2027-01-15) for an all-day event, else the instant in UTC (2027-01-15T10:30:00Z). */
  readonly start: string;
  readonly allDay: boolean;
  readonly stamp: string | undefined;
  readonly lastModified: string | undefined;
  readonly location: string | undefined;
  /** The end (DTEND, or DTSTART + DURATION), as start is written. */
  readonly end: string | undefined;
  /** The RRULE as text (FREQ=YEARLY...), or undefined. */
  readonly rrule: string | undefined;
}

const instant = (d: Date | undefined) => (d ? `${d.toISOString().slice(0, 19)}Z` : undefined);
/** A date-only value, which node-ical makes at local midnight. */
const day = (d: Date) =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
/** A TEXT value: a string, or {val} when the property had parameters. */
const textOf = (v: unknown) =>
  v === undefined ? undefined : typeof v === 'string' ? v : String((v as { val: unknown }).val);

/** The events of a calendar, by uid, in the order the text has them. */
export function eventsOf(text: string): Map<string, ParsedEvent> {
  const out = new Map<string, ParsedEvent>();
  for (const c of Object.values(ical.sync.parseICS(text))) {
    if (c.type !== 'VEVENT') continue;
    const e = c as ical.VEvent & { dtstamp?: Date; lastmodified?: Date };
    const allDay = e.datetype === 'date';
    out.set(e.uid, {
      uid: e.uid,
      summary: textOf(e.summary) as string,
      description: textOf(e.description),
      start: allDay ? day(e.start) : (instant(e.start) as string),
      allDay,
      stamp: instant(e.dtstamp),
      lastModified: instant(e.lastmodified),
      location: textOf(e.location),
      end: e.end ? (allDay ? day(e.end) : instant(e.end)) : undefined,
      rrule: e.rrule ? e.rrule.toString().replace(/^[\s\S]*RRULE:/, '') : undefined,
    });
  }
  return out;
}
