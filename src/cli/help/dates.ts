/**
 * `pm help dates`: every ISO 8601 form src/core/datetime.ts accepts, and the forms people write
 * that src/core/humandate.ts reads ("tomorrow 9am", "last 7 days"), from its own list of
 * examples. test/cli/help.test.ts parses every example on this page, so it cannot drift from the
 * parsers.
 */
import { DATE_EXAMPLES, type DateExample } from '../../core/humandate.js';

/** Filter values and what they match, for `now` = 2026-11-21T12:00:00Z. Checked by the tests. */
export const RANGE_EXAMPLES: readonly { value: string; means: string; start: string; end: string }[] = [
  { value: '2026-11-01', means: 'that whole day', start: '2026-11-01T00:00:00Z', end: '2026-11-02T00:00:00Z' },
  {
    value: '2026-11-01T09',
    means: 'that hour, 09:00 to 10:00',
    start: '2026-11-01T09:00:00Z',
    end: '2026-11-01T10:00:00Z',
  },
  { value: '2026-11-01T09:30', means: 'that minute', start: '2026-11-01T09:30:00Z', end: '2026-11-01T09:31:00Z' },
  { value: '2026-11-01T09:30:15Z', means: 'that second', start: '2026-11-01T09:30:15Z', end: '2026-11-01T09:30:16Z' },
  {
    value: '2026-11-01T09:30+01:00',
    means: 'that minute at UTC+1 (08:30 UTC)',
    start: '2026-11-01T08:30:00Z',
    end: '2026-11-01T08:31:00Z',
  },
  {
    value: '2026-11-01/2026-11-08',
    means: 'from 1 November up to 8 November, which is not included',
    start: '2026-11-01T00:00:00Z',
    end: '2026-11-08T00:00:00Z',
  },
  {
    value: '2026-11-01/11-08',
    means: 'the same: an end may leave out what it shares with the start',
    start: '2026-11-01T00:00:00Z',
    end: '2026-11-08T00:00:00Z',
  },
  { value: '2026-11-01/08', means: 'the same again', start: '2026-11-01T00:00:00Z', end: '2026-11-08T00:00:00Z' },
  {
    value: '2026-11-01T09:00/17:00',
    means: '09:00 to 17:00 that day',
    start: '2026-11-01T09:00:00Z',
    end: '2026-11-01T17:00:00Z',
  },
  {
    value: '2026-11-01/P1W',
    means: 'a start and a duration: the week from 1 November',
    start: '2026-11-01T00:00:00Z',
    end: '2026-11-08T00:00:00Z',
  },
  {
    value: 'P1W/2026-12-01',
    means: 'a duration and an end: the week before 1 December',
    start: '2026-11-24T00:00:00Z',
    end: '2026-12-01T00:00:00Z',
  },
  { value: 'P7D', means: 'from now to 7 days ahead', start: '2026-11-21T12:00:00Z', end: '2026-11-28T12:00:00Z' },
  { value: '-P7D', means: 'the past 7 days, up to now', start: '2026-11-14T12:00:00Z', end: '2026-11-21T12:00:00Z' },
  { value: 'PT12H', means: 'the next 12 hours', start: '2026-11-21T12:00:00Z', end: '2026-11-22T00:00:00Z' },
  { value: '-P1M', means: 'the past month', start: '2026-10-21T12:00:00Z', end: '2026-11-21T12:00:00Z' },
];

/** Values that are refused, and why. Checked by the tests. */
export const REFUSED_EXAMPLES: readonly { value: string; means: string }[] = [
  { value: '2026-11', means: 'a reduced date (give a day, or an interval: 2026-11-01/P1M)' },
  { value: '2026-02-30', means: 'a date that does not exist' },
  { value: '2026-11-08/2026-11-01', means: 'an end before the start' },
  { value: '2026-11-01/', means: 'an empty side' },
  { value: 'P1D/P2D', means: 'a duration on both sides' },
];

/** Values of --due-at on `pm reminders create|update`. */
export const DUE_EXAMPLES: readonly { value: string; means: string }[] = [
  { value: '2026-12-01', means: 'all day on 1 December (anytime becomes true)' },
  { value: '2026-12-01T09:30', means: '09:30 UTC (also 2026-12-01T09:30Z, 2026-12-01T09:30:00+00:00)' },
  { value: '2026-12-01T09:30+05:30', means: 'converted to UTC: stored as 2026-12-01T04:00:00+00:00' },
];

/** Values in a column of 24, and what they mean. */
const rows = (list: readonly { value: string; means: string }[]): string =>
  list.map((x) => `  ${x.value.padEnd(24)} ${x.means}`).join('\n');

/** The human forms, without the ISO ones the tables above already show. */
function human(kind: DateExample['kind']): string {
  const list = DATE_EXAMPLES.filter((x) => x.kind === kind && !/^ISO 8601/.test(x.meaning));
  return rows(list.map((x) => ({ value: `"${x.input}"`, means: x.meaning })));
}

export function datesTopic(): string {
  return `DATES AND TIMES

pm reads dates in two places: the datetime filters of list commands (--created-at and
--updated-at on every list, --due-at on reminders list), which take a range; and --due-at of
pm reminders create and update, which takes one date or datetime. Both take ISO 8601 (below),
or words as people write them ("tomorrow 9am", "last 7 days": see Words, further down).

ISO 8601 values are UTC unless they carry an offset (Z, +01:00, -0500). Words, and a date and
time with a space and no offset ("2026-12-01 14:00"), are in your time zone (TZ).

Filters take a range
  A filter matches the records whose time is in a range: from its start, up to but not
  including its end.

${rows(RANGE_EXAMPLES)}

  Durations are ISO 8601: P, then years (Y), months (M), weeks (W) and days (D); then T, and
  hours (H), minutes (M) and seconds (S). P1DT12H is a day and a half; P1W2D nine days;
  decimals are allowed (PT0.5H, PT0,5H). Without a T, an M before any H or S means months:
  P30M is thirty months; write PT30M for thirty minutes (P4H30M is read as PT4H30M). A
  leading minus looks back from now; a leading plus (or none) looks ahead.

  Refused, as a usage error (exit 2) before anything is sent:
${rows(REFUSED_EXAMPLES)}

Reminders take one date or datetime
${rows(DUE_EXAMPLES)}

  A date means all day; a datetime is a moment. Fractions of a second are dropped.
  --unset due_at clears it. A reminder due on a date is due at midnight UTC of that day for
  --due-at filters; a reminder with no due_at never matches one.

Words
  In filters, a range:
${human('range')}

  In --due-at of reminders create and update, one date or time:
${human('date')}

  A numeric date that reads both ways (03/04) is refused: write 2026-04-03 or "3 apr".

How times are shown
  On a terminal, times are shown in your time zone (a single record adds how far away they
  are: "in 2 days"). Piped, and in --json, -o csv and the other formats, times are ISO 8601 in
  UTC as the API sent them: 2026-12-01T09:30:00+00:00 (a reminder due all day: 2026-12-01).

Examples:
  pm reminders list --due-at P7D                        # due in the coming week
  pm reminders list --due-at "this week" --json title,due_at
  pm reminders list --due-at 2026-12-01 -q | wc -l      # how many are due on 1 December
  pm properties list --created-at "last 30 days" -q
  pm notes list --updated-at 2026-11-01/P1M --json uuid,updated_at
  pm notes list --property-where created_at=-P1Y        # notes of properties created this past year
  pm reminders create --title "Renew gas certificate" --due-at 2026-12-01
  pm reminders create --title "Call the plumber" --due-at "tomorrow 9am"
  pm reminders update 9d4e6f21 --due-at 2026-12-01T14:00:00Z
`;
}
