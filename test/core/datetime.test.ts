import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { instantMillis, parseInstant } from '../../src/core/datetime.js';

/** What luxon makes of an ISO instant, read in UTC unless it has an offset: its milliseconds, or undefined. */
function byLuxon(text: string): number | undefined {
  const s = text.trim();
  // The shapes pm accepts (luxon reads more, such as week dates, which pm does not).
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}(:\d{2}(:\d{2}([.,]\d+)?)?)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/i.test(s)) return undefined;
  const offset = /([+-])(\d{2}):?(\d{2})?$/.exec(s.slice(10));
  if (offset && (Number(offset[2]) > 14 || Number(offset[3] ?? 0) > 59)) return undefined;
  const dt = DateTime.fromISO(s.replace(' ', 'T'), { zone: 'utc', setZone: false });
  return dt.isValid ? dt.toMillis() : undefined;
}

/** A deterministic stream of numbers in [0, 1) (a linear congruential generator). */
function numbers(seed: number): () => number {
  let x = seed;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

describe('instantMillis (an ISO instant read without luxon)', () => {
  it('reads the same instant as luxon, and refuses what luxon refuses, over generated values', () => {
    const next = numbers(20261127);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
    const two = (max: number) => String(Math.floor(next() * max)).padStart(2, '0');
    let valid = 0;
    let invalid = 0;
    for (let i = 0; i < 20_000; i++) {
      const year = pick(['0000', '0050', '0099', '1900', '1970', '2000', '2024', '2100', '2400', '9999']);
      let text = `${year}-${two(14)}-${two(33)}`;
      if (next() < 0.8) {
        text += `${pick(['T', ' ', 't'])}${pick([two(26), '24', '23', '00'])}`;
        if (next() < 0.8) text += `:${pick([two(62), '00', '59', '60'])}`;
        if (next() < 0.6 && text.includes(':')) text += `:${pick([two(62), '00', '59', '60'])}`;
        if (next() < 0.4 && text.split(':').length === 3)
          text += `${pick(['.', ','])}${pick(['0', '5', '123', '999', '9999', '000001', '5000'])}`;
      }
      if (next() < 0.6)
        text += pick([
          'Z',
          'z',
          '+00:00',
          '-00:00',
          '+01',
          '-0530',
          '+05:30',
          '+14:00',
          '-14:00',
          '+14:59',
          '+15:00',
          '+01:60',
        ]);
      // luxon reads 24:00 of the years 0 to 99 as that day's midnight, not the next day's (as it does for
      // other years, and as ISO 8601 says): the edges below check those.
      if (/^00\d\d-\d\d-\d\d.24/.test(text)) continue;
      const expected = byLuxon(text);
      expect([text, instantMillis(text)]).toEqual([text, expected]);
      if (expected === undefined) invalid++;
      else valid++;
    }
    // The corpus has plenty of both.
    expect(valid).toBeGreaterThan(3000);
    expect(invalid).toBeGreaterThan(3000);
  });

  it('reads the edges as ISO 8601 does', () => {
    expect(instantMillis('2020-02-29')).toBe(Date.UTC(2020, 1, 29));
    expect(instantMillis('2021-02-29')).toBeUndefined();
    expect(instantMillis('1900-02-29')).toBeUndefined();
    expect(instantMillis('2000-02-29')).toBe(Date.UTC(2000, 1, 29));
    expect(instantMillis('2020-12-31T24:00Z')).toBe(Date.UTC(2021, 0, 1));
    expect(instantMillis('2020-12-31T24:00:01Z')).toBeUndefined();
    expect(instantMillis('0050-01-01')).toBe(new Date('0050-01-01T00:00:00Z').getTime());
    expect(instantMillis('0050-06-05T24:00Z')).toBe(new Date('0050-06-06T00:00:00Z').getTime());
    expect(instantMillis('2026-11-27T10:00:00+05:30')).toBe(Date.UTC(2026, 10, 27, 4, 30));
    expect(instantMillis(' 2026-11-27T10:00:00.1239Z ')).toBe(Date.UTC(2026, 10, 27, 10, 0, 0, 123));
    expect(instantMillis('2026-11-27T10:00:00+99:99')).toBeUndefined();
    expect(instantMillis('27/11/2026')).toBeUndefined();
    expect(instantMillis('')).toBeUndefined();
  });

  it('gives parseInstant the same instant, in UTC', () => {
    const dt = parseInstant('2026-11-27T10:00:00+01:00');
    expect(dt?.toISO()).toBe('2026-11-27T09:00:00.000Z');
    expect(parseInstant('2026-13-01')).toBeUndefined();
  });
});
