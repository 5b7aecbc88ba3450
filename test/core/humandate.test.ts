/**
 * Dates as people write them: each form, on a fixed clock, in several zones (two of them across
 * a change of the clocks), to the exact ISO text sent; and what is refused, with what was read.
 */
import { afterEach, describe, expect, test } from 'vitest';
import {
  DATE_EXAMPLES,
  HumanDateError,
  parseHumanDuration,
  parseHumanInstant,
  parseHumanRange,
} from '../../src/core/humandate.js';

const SAT = Date.parse('2026-11-21T12:00:00Z'); // Saturday 21 November 2026
/** Europe/London: the clocks go back at 02:00 BST on Sunday 25 October 2026. */
const BEFORE_AUTUMN = Date.parse('2026-10-24T12:00:00Z'); // Saturday, 13:00 BST
/** Europe/London: the clocks go forward at 01:00 GMT on Sunday 29 March 2026. */
const BEFORE_SPRING = Date.parse('2026-03-28T12:00:00Z'); // Saturday, 12:00 GMT
/** America/New_York: the clocks go back at 02:00 EDT on Sunday 1 November 2026. */
const NY_BEFORE_CHANGE = Date.parse('2026-10-31T12:00:00Z'); // Saturday, 08:00 EDT
const NY_LATE_FRIDAY = Date.parse('2026-11-21T03:00:00Z'); // Friday 20 November, 22:00 EST
const KOLKATA_SMALL_HOURS = Date.parse('2026-11-21T20:00:00Z'); // Sunday 22 November, 01:30 IST

type InstantRow = [zone: string, now: number, input: string, iso: string, dateOnly: boolean];

const at = (zone: string, now: number, input: string, iso: string): InstantRow => [zone, now, input, iso, false];
const day = (zone: string, now: number, input: string, iso: string): InstantRow => [zone, now, input, iso, true];

describe('parseHumanInstant', () => {
  test.each<InstantRow>([
    // The contract's ISO forms, sent as given.
    day('UTC', SAT, '2026-12-01', '2026-12-01'),
    at('UTC', SAT, '2026-12-01T14:00', '2026-12-01T14:00'),
    at('America/New_York', SAT, '2026-12-01T14:00:00Z', '2026-12-01T14:00:00Z'),
    at('America/New_York', SAT, '2026-12-01T14:00:00+05:30', '2026-12-01T14:00:00+05:30'),
    day('Asia/Kolkata', SAT, ' 2026-12-01 ', '2026-12-01'),
    // What people type, UTC.
    at('UTC', SAT, 'tomorrow 9am', '2026-11-22T09:00:00Z'),
    day('UTC', SAT, 'next monday', '2026-11-23'),
    day('UTC', SAT, 'in 3 days', '2026-11-24'),
    at('UTC', SAT, '+2h', '2026-11-21T14:00:00Z'),
    at('UTC', SAT, '-30m', '2026-11-21T11:30:00Z'),
    at('UTC', SAT, '+1d2h', '2026-11-22T14:00:00Z'),
    at('UTC', SAT, '2026-12-01 14:00', '2026-12-01T14:00:00Z'),
    day('UTC', SAT, 'today', '2026-11-21'),
    day('UTC', SAT, 'Tomorrow', '2026-11-22'),
    day('UTC', SAT, 'yesterday', '2026-11-20'),
    at('UTC', SAT, 'now', '2026-11-21T12:00:00Z'),
    at('UTC', SAT + 999, 'now', '2026-11-21T12:00:00Z'),
    day('UTC', SAT, 'friday', '2026-11-27'),
    day('UTC', SAT, 'saturday', '2026-11-21'),
    day('UTC', SAT, 'by friday', '2026-11-27'),
    at('UTC', SAT, 'saturday 9am', '2026-11-28T09:00:00Z'),
    at('UTC', SAT, 'on monday at 10am', '2026-11-23T10:00:00Z'),
    at('UTC', SAT, '9am', '2026-11-22T09:00:00Z'),
    at('UTC', SAT, '5pm', '2026-11-21T17:00:00Z'),
    at('UTC', SAT, 'dec 1 3pm', '2026-12-01T15:00:00Z'),
    day('UTC', SAT, '1 december', '2026-12-01'),
    day('UTC', SAT, '13/04/2026', '2026-04-13'),
    at('UTC', SAT, 'in 2 hours', '2026-11-21T14:00:00Z'),
    at('UTC', SAT, 'in an hour', '2026-11-21T13:00:00Z'),
    day('UTC', SAT, '3 days ago', '2026-11-18'),
    day('UTC', SAT, 'a week from now', '2026-11-28'),
    at('UTC', SAT, 'tomorrow 9am EST', '2026-11-22T14:00:00Z'),
    // Europe/London, the day before the clocks go back (13:00 BST now, GMT tomorrow).
    at('Europe/London', BEFORE_AUTUMN, 'tomorrow 9am', '2026-10-25T09:00:00Z'),
    at('Europe/London', BEFORE_AUTUMN, 'today 9am', '2026-10-24T08:00:00Z'),
    at('Europe/London', BEFORE_AUTUMN, '2026-10-24 14:00', '2026-10-24T13:00:00Z'),
    at('Europe/London', BEFORE_AUTUMN, '+1d', '2026-10-25T13:00:00Z'),
    at('Europe/London', BEFORE_AUTUMN, '+24h', '2026-10-25T12:00:00Z'),
    day('Europe/London', BEFORE_AUTUMN, 'tomorrow', '2026-10-25'),
    at('Europe/London', BEFORE_AUTUMN, '2026-10-25 01:30+01:00', '2026-10-25 01:30+01:00'),
    // Europe/London, the day before the clocks go forward.
    at('Europe/London', BEFORE_SPRING, 'tomorrow 9am', '2026-03-29T08:00:00Z'),
    at('Europe/London', BEFORE_SPRING, '2026-03-29 02:30', '2026-03-29T01:30:00Z'),
    // America/New_York, across its change a week later.
    at('America/New_York', NY_BEFORE_CHANGE, 'tomorrow 9am', '2026-11-01T14:00:00Z'),
    at('America/New_York', NY_BEFORE_CHANGE, 'today 5pm', '2026-10-31T21:00:00Z'),
    at('America/New_York', NY_BEFORE_CHANGE, 'monday 9am', '2026-11-02T14:00:00Z'),
    at('America/New_York', NY_BEFORE_CHANGE, '+1d', '2026-11-01T13:00:00Z'),
    day('America/New_York', NY_BEFORE_CHANGE, 'today', '2026-10-31'),
    // America/New_York late on a Friday: still Friday there, Saturday in UTC.
    day('America/New_York', NY_LATE_FRIDAY, 'today', '2026-11-20'),
    day('America/New_York', NY_LATE_FRIDAY, 'friday', '2026-11-20'),
    at('America/New_York', NY_LATE_FRIDAY, 'tomorrow 9am', '2026-11-21T14:00:00Z'),
    at('America/New_York', NY_LATE_FRIDAY, '2026-12-01 14:00', '2026-12-01T19:00:00Z'),
    // Asia/Kolkata (+05:30) in the small hours: already Sunday there.
    day('Asia/Kolkata', KOLKATA_SMALL_HOURS, 'today', '2026-11-22'),
    day('Asia/Kolkata', KOLKATA_SMALL_HOURS, 'yesterday', '2026-11-21'),
    at('Asia/Kolkata', KOLKATA_SMALL_HOURS, 'tomorrow 9am', '2026-11-23T03:30:00Z'),
    at('Asia/Kolkata', KOLKATA_SMALL_HOURS, '9am', '2026-11-22T03:30:00Z'),
    at('Asia/Kolkata', KOLKATA_SMALL_HOURS, '2026-12-01 14:00', '2026-12-01T08:30:00Z'),
    at('Asia/Kolkata', KOLKATA_SMALL_HOURS, '-30m', '2026-11-21T19:30:00Z'),
  ])('%s at %s: %j -> %s', (zone, now, input, iso, dateOnly) => {
    expect(parseHumanInstant(input, { now, zone })).toEqual({ iso, dateOnly });
  });

  const refused = (input: string, zone = 'UTC', now = SAT): string => {
    try {
      parseHumanInstant(input, { now, zone });
    } catch (e) {
      expect(e).toBeInstanceOf(HumanDateError);
      return (e as Error).message;
    }
    throw new Error(`"${input}" was accepted`);
  };

  test.each([
    ['next blursday', '"next blursday" is not a date I understand; try "tomorrow 9am", "2026-12-01", "in 3 days"'],
    ['soon-ish', '"soon-ish" is not a date I understand; try "tomorrow 9am", "2026-12-01", "in 3 days"'],
    [
      'tomorrow blursday',
      '"tomorrow blursday" is not a date I understand: I could read only "tomorrow" (Sunday 22 November 2026); try "tomorrow 9am", "2026-12-01", "in 3 days"',
    ],
    [
      'Monday or Tuesday',
      '"Monday or Tuesday" is not a date I understand: I could read only "monday" (Monday 23 November 2026) and "tuesday" (Tuesday 24 November 2026); try "tomorrow 9am", "2026-12-01", "in 3 days"',
    ],
    [
      '03/04',
      '"03/04" is ambiguous: 3 April (2026-04-03) or 4 March (2026-03-04)? Write the date as YYYY-MM-DD, or with the month\'s name ("3 apr")',
    ],
    [
      '5.6.2027 10am',
      '"5.6.2027" is ambiguous: 5 June (2027-06-05) or 6 May (2027-05-06)? Write the date as YYYY-MM-DD, or with the month\'s name ("5 jun")',
    ],
    [
      'this week',
      '"this week" is a span of time, not a date; give a day ("next monday", "in 7 days") or a time ("tomorrow 9am")',
    ],
    [
      'last 7 days',
      '"last 7 days" is a span of time, not a date; give a day ("next monday", "in 7 days") or a time ("tomorrow 9am")',
    ],
    [
      'next week',
      '"next week" is a span of time, not a date; give a day ("next monday", "in 7 days") or a time ("tomorrow 9am")',
    ],
    ['dec 1 - dec 5', '"dec 1 - dec 5" is a range (Tuesday 1 December 2026 to Saturday 5 December 2026), not one date'],
    [
      '2026-13-01',
      '"2026-13-01" is not a valid ISO 8601 date or datetime; write 2026-12-01, 2026-12-01 14:00 (local) or 2026-12-01T14:00:00Z',
    ],
    ['P7D', '"P7D" is a length of time, not a date; for a time from now write "+2h", "+7d" or "in 3 days"'],
    ['   ', 'is empty; try "tomorrow 9am", "2026-12-01", "in 3 days"'],
  ])('%j is refused, saying what was read', (input, message) => {
    expect(refused(input)).toBe(message);
  });

  test('a local time the clocks pass twice is ambiguous; one they skip does not exist', () => {
    expect(refused('2026-10-25 01:30', 'Europe/London', BEFORE_AUTUMN)).toBe(
      '2026-10-25 01:30 happens twice in Europe/London (the clocks go back); add the offset: ' +
        '2026-10-25T01:30+01:00 (the first) or 2026-10-25T01:30+00:00 (the second)',
    );
    expect(refused('2026-03-29 01:30', 'Europe/London', BEFORE_SPRING)).toBe(
      '2026-03-29 01:30 does not exist in Europe/London: the clocks go forward then; give another time',
    );
    expect(refused('tomorrow 1:30am', 'America/New_York', NY_BEFORE_CHANGE)).toBe(
      '2026-11-01 01:30 happens twice in America/New_York (the clocks go back); add the offset: ' +
        '2026-11-01T01:30-04:00 (the first) or 2026-11-01T01:30-05:00 (the second)',
    );
  });

  test('an unknown zone is refused', () => {
    expect(refused('tomorrow', 'Mars/Olympus_Mons')).toBe(
      '"Mars/Olympus_Mons" is not a time zone I know; use an IANA name such as Europe/London',
    );
  });
});

type RangeRow = [zone: string, now: number, input: string, sent: string];

describe('parseHumanRange', () => {
  test.each<RangeRow>([
    // The contract's forms go to the server as they are.
    ['UTC', SAT, '2026-12-01', '2026-12-01'],
    ['America/New_York', SAT, '2026-12-01', '2026-12-01'],
    ['UTC', SAT, '2026-12-01/12-08', '2026-12-01/12-08'],
    ['UTC', SAT, '2026-12-01T09:00/17:00', '2026-12-01T09:00/17:00'],
    ['Asia/Kolkata', SAT, '2026-11-01T09:30+01:00', '2026-11-01T09:30+01:00'],
    ['UTC', SAT, 'P7D', 'P7D'],
    ['UTC', SAT, '-P7D', '-P7D'],
    ['UTC', SAT, 'P4H30M', 'P4H30M'],
    // Words, UTC.
    ['UTC', SAT, 'today', '2026-11-21T00:00:00Z/2026-11-22T00:00:00Z'],
    ['UTC', SAT, 'yesterday', '2026-11-20T00:00:00Z/2026-11-21T00:00:00Z'],
    ['UTC', SAT, 'tomorrow', '2026-11-22T00:00:00Z/2026-11-23T00:00:00Z'],
    ['UTC', SAT, 'this week', '2026-11-16T00:00:00Z/2026-11-23T00:00:00Z'],
    ['UTC', SAT, 'last week', '2026-11-09T00:00:00Z/2026-11-16T00:00:00Z'],
    ['UTC', SAT, 'next week', '2026-11-23T00:00:00Z/2026-11-30T00:00:00Z'],
    ['UTC', SAT, 'this month', '2026-11-01T00:00:00Z/2026-12-01T00:00:00Z'],
    ['UTC', SAT, 'last month', '2026-10-01T00:00:00Z/2026-11-01T00:00:00Z'],
    ['UTC', SAT, 'this year', '2026-01-01T00:00:00Z/2027-01-01T00:00:00Z'],
    ['UTC', SAT, 'last 7 days', '2026-11-14T12:00:00Z/2026-11-21T12:00:00Z'],
    ['UTC', SAT, 'past week', '2026-11-14T12:00:00Z/2026-11-21T12:00:00Z'],
    ['UTC', SAT, 'past 24 hours', '2026-11-20T12:00:00Z/2026-11-21T12:00:00Z'],
    ['UTC', SAT, 'next 2 weeks', '2026-11-21T12:00:00Z/2026-12-05T12:00:00Z'],
    ['UTC', SAT, 'Next Three Days', '2026-11-21T12:00:00Z/2026-11-24T12:00:00Z'],
    ['UTC', SAT, '+2h', '2026-11-21T12:00:00Z/2026-11-21T14:00:00Z'],
    ['UTC', SAT, '-30m', '2026-11-21T11:30:00Z/2026-11-21T12:00:00Z'],
    ['UTC', SAT, 'next monday', '2026-11-23T00:00:00Z/2026-11-24T00:00:00Z'],
    ['UTC', SAT, 'in 3 days', '2026-11-24T00:00:00Z/2026-11-25T00:00:00Z'],
    ['UTC', SAT, 'tomorrow 9am', '2026-11-22T09:00:00Z/2026-11-22T09:01:00Z'],
    ['UTC', SAT, 'noon', '2026-11-21T12:00:00Z/2026-11-21T13:00:00Z'],
    ['UTC', SAT, '2026-12-01 14:00', '2026-12-01T14:00:00Z/2026-12-01T14:01:00Z'],
    ['UTC', SAT, '2026-12-01 14:00:30', '2026-12-01T14:00:30Z/2026-12-01T14:00:31Z'],
    ['UTC', SAT, 'dec 1 - dec 5', '2026-12-01T00:00:00Z/2026-12-06T00:00:00Z'],
    ['UTC', SAT, 'tomorrow 9am to 5pm', '2026-11-22T09:00:00Z/2026-11-22T17:00:00Z'],
    // Europe/London: the day the clocks go back has 25 hours, the day they go forward 23.
    ['Europe/London', BEFORE_AUTUMN, 'today', '2026-10-23T23:00:00Z/2026-10-24T23:00:00Z'],
    ['Europe/London', BEFORE_AUTUMN, 'tomorrow', '2026-10-24T23:00:00Z/2026-10-26T00:00:00Z'],
    ['Europe/London', BEFORE_AUTUMN, 'this week', '2026-10-18T23:00:00Z/2026-10-26T00:00:00Z'],
    ['Europe/London', BEFORE_AUTUMN, 'next 2 days', '2026-10-24T12:00:00Z/2026-10-26T13:00:00Z'],
    ['Europe/London', BEFORE_AUTUMN, 'last 7 days', '2026-10-17T12:00:00Z/2026-10-24T12:00:00Z'],
    ['Europe/London', BEFORE_SPRING, 'tomorrow', '2026-03-29T00:00:00Z/2026-03-29T23:00:00Z'],
    ['Europe/London', BEFORE_SPRING, '2026-03-29 09:00', '2026-03-29T08:00:00Z/2026-03-29T08:01:00Z'],
    // America/New_York.
    ['America/New_York', NY_BEFORE_CHANGE, 'today', '2026-10-31T04:00:00Z/2026-11-01T04:00:00Z'],
    ['America/New_York', NY_BEFORE_CHANGE, 'tomorrow', '2026-11-01T04:00:00Z/2026-11-02T05:00:00Z'],
    ['America/New_York', NY_BEFORE_CHANGE, 'this month', '2026-10-01T04:00:00Z/2026-11-01T04:00:00Z'],
    ['America/New_York', NY_LATE_FRIDAY, 'today', '2026-11-20T05:00:00Z/2026-11-21T05:00:00Z'],
    ['America/New_York', NY_LATE_FRIDAY, 'this week', '2026-11-16T05:00:00Z/2026-11-23T05:00:00Z'],
    // Asia/Kolkata.
    ['Asia/Kolkata', KOLKATA_SMALL_HOURS, 'today', '2026-11-21T18:30:00Z/2026-11-22T18:30:00Z'],
    ['Asia/Kolkata', KOLKATA_SMALL_HOURS, 'this week', '2026-11-15T18:30:00Z/2026-11-22T18:30:00Z'],
    ['Asia/Kolkata', KOLKATA_SMALL_HOURS, 'this month', '2026-10-31T18:30:00Z/2026-11-30T18:30:00Z'],
    ['Asia/Kolkata', KOLKATA_SMALL_HOURS, 'last 7 days', '2026-11-14T20:00:00Z/2026-11-21T20:00:00Z'],
  ])('%s at %s: %j -> %s', (zone, now, input, sent) => {
    expect(parseHumanRange(input, { now, zone })).toBe(sent);
  });

  const refused = (input: string): HumanDateError => {
    try {
      parseHumanRange(input, { now: SAT, zone: 'UTC' });
    } catch (e) {
      expect(e).toBeInstanceOf(HumanDateError);
      return e as HumanDateError;
    }
    throw new Error(`"${input}" was accepted`);
  };

  test('words it cannot read are refused, with what it read', () => {
    expect(refused('next blursday').message).toBe(
      '"next blursday" is not a date or range I understand; try "last 7 days", "this week", "today", "2026-12-01/P1W"',
    );
    expect(refused('since tuesday-ish').message).toBe(
      '"since tuesday-ish" is not a date or range I understand: I could read only "tuesday" (Tuesday 24 November 2026); try "last 7 days", "this week", "today", "2026-12-01/P1W"',
    );
    expect(refused('03/04').message).toMatch(/^"03\/04" is ambiguous: 3 April \(2026-04-03\) or 4 March/);
  });

  test('a broken ISO value keeps the contract parser’s message, with the forms as a hint', () => {
    for (const [input, message] of [
      ['2026-13-01', '"2026-13-01" is not a valid date.'],
      ['2026-11', '"2026-11" is not an ISO 8601 date, datetime, interval or duration.'],
      ['2026-11-08/2026-11-01', '"2026-11-08/2026-11-01" ends before it starts.'],
      ['P1D/P2D', '"P1D/P2D" has a duration on both sides of "/".'],
    ] as const) {
      const e = refused(input);
      expect(e.message).toBe(message);
      expect(e.hint).toMatch(/^Give a date \(2026-12-01\), a datetime/);
    }
  });
});

describe('chrono reads in the zone given, whatever the process zone', () => {
  const original = process.env.TZ;
  afterEach(() => {
    if (original === undefined) delete process.env.TZ;
    else process.env.TZ = original;
  });

  // chrono computes in the process's zone; these readings once depended on it (a weekday
  // "today", the day after tomorrow late in the evening, a time alone already past).
  const inputs = ['saturday', 'saturday 9am', 'friday', 'the day after tomorrow', '9am', 'this saturday', 'dec 1'];

  test.each([['UTC'], ['America/New_York'], ['Asia/Kolkata'], ['Pacific/Kiritimati'], ['Pacific/Pago_Pago']])(
    'process TZ=%s',
    (tz) => {
      process.env.TZ = tz;
      const read = (now: number, zone: string) => inputs.map((i) => parseHumanInstant(i, { now, zone }).iso);
      expect(read(SAT, 'Europe/London')).toEqual([
        '2026-11-21',
        '2026-11-28T09:00:00Z',
        '2026-11-27',
        '2026-11-23',
        '2026-11-22T09:00:00Z',
        '2026-11-21',
        '2026-12-01',
      ]);
      // 23:30 on Saturday in Kolkata.
      expect(read(Date.parse('2026-11-21T18:00:00Z'), 'Asia/Kolkata')).toEqual([
        '2026-11-21',
        '2026-11-28T03:30:00Z',
        '2026-11-27',
        '2026-11-23',
        '2026-11-22T03:30:00Z',
        '2026-11-21',
        '2026-12-01',
      ]);
    },
  );
});

describe('parseHumanDuration', () => {
  test.each([
    ['P7D', { days: 7 }],
    ['2 weeks', { weeks: 2 }],
    ['a month', { months: 1 }],
    ['10d', { days: 10 }],
    ['1w2d', { weeks: 1, days: 2 }],
    ['36 hours', { hours: 36 }],
    ['+3d', { days: 3 }],
  ])('%j', (input, want) => {
    expect(parseHumanDuration(input).toObject()).toEqual(want);
  });

  test('refuses what is not a length of time', () => {
    expect(() => parseHumanDuration('soon')).toThrow(
      '"soon" is not a length of time I understand; try "P7D", "2 weeks", "10d"',
    );
  });
});

describe('DATE_EXAMPLES', () => {
  test('every example is read, as a date or as a range as it says', () => {
    expect(DATE_EXAMPLES.length).toBeGreaterThan(20);
    for (const ex of DATE_EXAMPLES) {
      const read = () =>
        ex.kind === 'date'
          ? parseHumanInstant(ex.input, { now: SAT, zone: 'Europe/London' })
          : parseHumanRange(ex.input, { now: SAT, zone: 'Europe/London' });
      expect(read, ex.input).not.toThrow();
      expect(ex.meaning.length).toBeGreaterThan(5);
    }
  });

  test('the required forms are all listed', () => {
    const listed = (kind: string) => DATE_EXAMPLES.filter((x) => x.kind === kind).map((x) => x.input);
    expect(listed('date')).toEqual(
      expect.arrayContaining([
        'tomorrow 9am',
        'next monday',
        'in 3 days',
        '+2h',
        '-30m',
        '2026-12-01 14:00',
        'today',
        'now',
      ]),
    );
    expect(listed('range')).toEqual(
      expect.arrayContaining([
        'last 7 days',
        'next 2 weeks',
        'this week',
        'this month',
        'today',
        'yesterday',
        'tomorrow',
      ]),
    );
  });
});
