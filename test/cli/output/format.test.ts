import { describe, expect, test } from 'vitest';
import { TimeFormatter, cellValue, csvCell, humanValue, relative, tsvCell } from '../../../src/cli/output/format.js';
import { type Column, columnsThatFit, fitWidths } from '../../../src/cli/output/table.js';
import { fieldOf } from '../../../src/resources/index.js';
import { NOW, customFields, properties, reminders } from './helpers.js';

describe('csv and tsv cells', () => {
  test.each([
    ['plain', 'plain'],
    ['', ''],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rhere', '"cr\rhere"'],
    [' spaces kept ', ' spaces kept '],
  ])('csv %j -> %j', (input, want) => {
    expect(csvCell(input)).toBe(want);
  });

  test('tsv: tabs, line breaks and backslashes are escaped', () => {
    expect(tsvCell('a\tb\nc\r\nd\\e "q"')).toBe('a\\tb\\nc\\r\\nd\\\\e "q"');
  });

  test('values as sent: strings, true/false, numbers, codes as numbers, JSON otherwise, null empty', () => {
    expect(cellValue('2026-01-15T09:30:00+00:00')).toBe('2026-01-15T09:30:00+00:00');
    expect(cellValue(false)).toBe('false');
    expect(cellValue(0)).toBe('0');
    expect(cellValue({ code: 1, name: 'Text' })).toBe('1');
    expect(cellValue([1, { a: 'b' }])).toBe('[1,{"a":"b"}]');
    expect(cellValue(null)).toBe('');
    expect(cellValue(undefined)).toBe('');
  });
});

describe('values for people', () => {
  const london = new TimeFormatter('Europe/London');

  test('local times: GMT in winter, BST in summer, UTC when asked', () => {
    expect(london.local('2026-01-15T09:30:00+00:00')).toBe('2026-01-15 09:30');
    expect(london.local('2026-06-01T23:05:00Z')).toBe('2026-06-02 00:05');
    expect(new TimeFormatter('UTC').local('2026-06-01T23:05:00.123456+00:00')).toBe('2026-06-01 23:05');
    expect(new TimeFormatter('America/New_York').local('2026-06-01T03:00:00+00:00')).toBe('2026-05-31 23:00');
  });

  test('what is not a time stays as it is; an unknown zone falls back to the system zone', () => {
    expect(london.local('soon')).toBe('soon');
    expect(new TimeFormatter('Not/AZone').local('2026-01-15T09:30:00Z')).toMatch(/^2026-01-1\d \d\d:\d\d$/);
  });

  test('relative times', () => {
    const at = (iso: string) => relative(iso, NOW, london);
    expect(at('2026-06-10T12:00:20Z')).toBe('now');
    expect(at('2026-06-10T11:15:00Z')).toBe('45 minutes ago');
    expect(at('2026-06-10T15:00:00Z')).toBe('in 3 hours');
    expect(at('2026-06-11T12:00:00Z')).toBe('tomorrow');
    expect(at('2026-06-10')).toBe('today');
    expect(at('2026-06-03')).toBe('7 days ago');
    expect(at('2027-06-10')).toBe('next year');
    expect(at('whenever')).toBeUndefined();
  });

  test('per kind', () => {
    const due = fieldOf(reminders, 'due_at');
    const type = fieldOf(customFields, 'type');
    expect(humanValue(due, '2026-06-12T08:00:00+00:00', london)).toBe('2026-06-12 09:00');
    expect(humanValue(due, '2026-06-12T08:00:00+00:00', undefined)).toBe('2026-06-12T08:00:00+00:00');
    expect(humanValue(due, '2026-06-12', london)).toBe('2026-06-12');
    expect(humanValue(fieldOf(reminders, 'anytime'), true, london)).toBe('yes');
    expect(humanValue(type, { code: 1, name: 'Text' }, london)).toBe('Text');
    expect(humanValue(type, { code: 1 }, london)).toBe('Text');
    expect(humanValue(type, { code: 9 }, london)).toBe('9');
    expect(humanValue(fieldOf(properties, 'city'), null, london)).toBe('');
    expect(humanValue(fieldOf(properties, 'city'), 'a\x1b[31mb\x07', london)).toBe('a [31mb ');
    expect(humanValue(undefined, { a: 1 }, london)).toBe('{"a":1}');
  });
});

describe('fitting columns to the terminal', () => {
  const col = (headerWidth: number, shrinkable: boolean, priority = 1): Column => ({
    header: 'x'.repeat(headerWidth),
    headerWidth,
    right: false,
    shrinkable,
    priority,
  });

  test('columns of lower priority are hidden, highest number and last first, until the rest fit', () => {
    // uuid 36, text 40, 8, 9, 9: 36 + 10 (readable) + 8 + 9 + 9 + 8 gaps = 80 fits 80 exactly.
    const cols = [col(4, false), col(7, true), col(8, false, 3), col(9, false, 5), col(9, false, 5)];
    expect(columnsThatFit([36, 40, 8, 9, 9], cols, 80)).toEqual([0, 1, 2, 3, 4]);
    expect(columnsThatFit([36, 40, 8, 9, 9], cols, 79)).toEqual([0, 1, 2, 3]);
    expect(columnsThatFit([36, 40, 8, 9, 9], cols, 60)).toEqual([0, 1, 2]);
    // Priority 1 is never hidden, even when nothing else is left to hide.
    expect(columnsThatFit([36, 40, 8, 9, 9], cols, 30)).toEqual([0, 1]);
  });

  test('natural widths when they fit', () => {
    expect(fitWidths([10, 20], [col(4, true), col(4, true)], 32)).toEqual([10, 20]);
  });

  test('the wide text column gives way; fixed ones keep their width', () => {
    // 36 + 2 + 50 + 2 + 10 = 100 > 80: 30 left for the text column.
    expect(fitWidths([36, 50, 10], [col(4, false), col(5, true), col(6, false)], 80)).toEqual([36, 30, 10]);
  });

  test('narrow columns keep theirs, wide ones share the rest', () => {
    expect(fitWidths([5, 40, 40], [col(3, true), col(3, true), col(3, true)], 49)).toEqual([5, 20, 20]);
  });

  test('never below a few characters, nor shrinking what cannot be', () => {
    expect(fitWidths([36, 40], [col(4, false), col(5, true)], 30)).toEqual([36, 6]);
    expect(fitWidths([36, 40], [col(4, false), col(5, false)], 30)).toEqual([36, 40]);
  });
});
