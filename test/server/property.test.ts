/**
 * Property-based tests (fast-check) of the list query parser and the datetime range parser:
 * random and hostile inputs never give anything but a 400/422 (never a 500, never another
 * exception), and a filter never matches a row it should not: the server's answer is compared
 * with the same filter computed in JavaScript over the same records, written at known instants.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatetimeParseError, parseRange } from '../../src/core/datetime.js';
import { QueryError, ValidationError } from '../../src/core/errors.js';
import { parseListQuery } from '../../src/core/query.js';
import { RESOURCES, properties } from '../../src/resources/index.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';
import { create } from './fixtures.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-03-10T12:00:00Z');

/** Strings that have broken parsers before: SQL, LIKE wildcards, escapes, ISO look-alikes. */
const HOSTILE = [
  "'",
  '"',
  '%',
  '_',
  '\\',
  '\\%',
  '%_%',
  "' OR 1=1 --",
  "'); DROP TABLE properties; --",
  '[]',
  '[',
  ']',
  '&',
  '=',
  '+',
  '%00',
  '%zz',
  '\u0001',
  '\u202e',
  '\ufeff',
  '🏠',
  'P',
  'PT',
  'P1Y2M3W4DT5H6M7.5S',
  '-P99999999Y',
  'P1e308D',
  '2014-13-45',
  '2014-02-30',
  '9999-12-31T23:59:59Z',
  '0000-01-01',
  '+275760-09-13',
  '2014-12-25/',
  '/2014-12-25',
  '2014-12-25//2014-12-26',
  '2014-12-25/12-24',
  'P1D/P1D',
  '2014-12-25T25:00',
  '2014-12-25T14:25:00+25:00',
  'true',
  '1',
  '-1',
  '999999999999',
  ' ',
  '',
];

const hostile = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.array(fc.constantFrom(...HOSTILE), { maxLength: 4 }).map((a) => a.join('')),
);

/** Query keys: real filters, bracketed forms, near misses, and garbage. */
const keyArb = (r: (typeof RESOURCES)[number]) =>
  fc.oneof(
    fc.constantFrom(...r.fields.map((f) => f.name)),
    fc.constantFrom(...r.fields.map((f) => `${f.name}[]`)),
    fc.constantFrom('page', 'per_page', 'embed', 'value', 'custom_fields[name]', 'custom_fields[value]'),
    fc.constantFrom('custom_fields[uuid][]', 'property[city]', 'contact[email]', 'property[uuid][]', 'property[nope]'),
    fc.constantFrom('property[contact][email]', 'a[b][c][d]', '__proto__', 'constructor', 'uuid[][]', '[]'),
    hostile,
  );

describe('the query parser, pure', () => {
  it('on any keys and values, parses or throws a QueryError (400) or ValidationError (422), nothing else', () => {
    const query = fc
      .constantFrom(...RESOURCES)
      .chain((r) => fc.tuple(fc.constant(r), fc.array(fc.tuple(keyArb(r), hostile), { maxLength: 12 })));
    fc.assert(
      fc.property(query, ([r, pairs]) => {
        const params = new URLSearchParams();
        for (const [k, v] of pairs) params.append(k, v);
        try {
          parseListQuery(r, params, NOW);
        } catch (e) {
          if (!(e instanceof QueryError) && !(e instanceof ValidationError)) throw e;
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the datetime range parser, pure', () => {
  it('on any string: a range with start <= end, both finite, or a DatetimeParseError', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        try {
          const r = parseRange(text, NOW);
          expect(Number.isFinite(r.start) && Number.isFinite(r.end)).toBe(true);
          expect(r.start).toBeLessThanOrEqual(r.end);
        } catch (e) {
          if (!(e instanceof DatetimeParseError)) throw e;
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('matches an independent oracle on every form it is given (an instant, a day, intervals, durations)', () => {
    fc.assert(
      fc.property(rangeCase, ({ text, start, end }) => {
        expect(parseRange(text, NOW)).toEqual({ start, end });
      }),
      { numRuns: 3000 },
    );
  });
});

// ------------------------------------------------------------------------------------------------
// Generated datetime filter values, each with the range an independent oracle gives it.

interface RangeCase {
  text: string;
  start: number;
  end: number;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const isoSeconds = (ms: number) => new Date(ms).toISOString().slice(0, 19);

/** Whole seconds between 1971 and 2099. */
const instant = fc.integer({ min: 31_536_000, max: 4_070_908_799 }).map((s) => s * 1000);
const offsetMinutes = fc.integer({ min: -14 * 60, max: 14 * 60 }).map((m) => m - (m % 15));

function withOffset(ms: number, minutes: number): string {
  const local = isoSeconds(ms + minutes * 60_000);
  if (minutes === 0) return `${local}+00:00`;
  const sign = minutes < 0 ? '-' : '+';
  const a = Math.abs(minutes);
  return `${local}${sign}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

const rangeCase: fc.Arbitrary<RangeCase> = fc.oneof(
  // An exact datetime to the second covers that second, whatever the offset it is written in.
  fc
    .tuple(instant, offsetMinutes)
    .map(([t, o]) => ({ text: withOffset(t, o), start: t, end: t + 1000 })),
  instant.map((t) => ({ text: `${isoSeconds(t)}Z`, start: t, end: t + 1000 })),
  // To the minute: that minute; to the hour: that hour.
  instant.map((t) => {
    const m = t - (t % 60_000);
    return { text: isoSeconds(m).slice(0, 16), start: m, end: m + 60_000 };
  }),
  instant.map((t) => {
    const h = t - (t % HOUR);
    return { text: `${isoSeconds(h).slice(0, 13)}Z`, start: h, end: h + HOUR };
  }),
  // A bare date: the whole day.
  instant.map((t) => {
    const d = t - (t % DAY);
    return { text: isoDate(d), start: d, end: d + DAY };
  }),
  // start/end, full on both sides.
  fc
    .tuple(instant, instant)
    .map(([a, b]) => {
      const [s, e] = a <= b ? [a, b] : [b, a];
      return { text: `${isoSeconds(s)}Z/${isoSeconds(e)}Z`, start: s, end: e };
    }),
  // start/duration and duration/end, in seconds and days (PT0S makes an empty range).
  fc
    .tuple(instant, fc.integer({ min: 0, max: 10_000_000 }))
    .map(([t, s]) => ({
      text: `${isoSeconds(t)}Z/PT${s}S`,
      start: t,
      end: t + s * 1000,
    })),
  fc.tuple(instant, fc.integer({ min: 1, max: 3000 })).map(([t, d]) => ({
    text: `P${d}D/${isoSeconds(t)}Z`,
    start: t - d * DAY,
    end: t,
  })),
  // A date interval whose end omits the year: start's year.
  fc
    .tuple(instant, fc.integer({ min: 0, max: 200 }))
    .map(([t, d]) => {
      const s = t - (t % DAY);
      const e = s + d * DAY;
      const sameYear = isoDate(e).slice(0, 4) === isoDate(s).slice(0, 4);
      return sameYear
        ? { text: `${isoDate(s)}/${isoDate(e).slice(5)}`, start: s, end: e }
        : { text: `${isoDate(s)}/${isoDate(e)}`, start: s, end: e };
    }),
  // A duration alone: from now forward, or (negative) back to now. Days and weeks are 24 h in UTC.
  fc
    .tuple(fc.integer({ min: 1, max: 500 }), fc.constantFrom('D', 'W'), fc.boolean())
    .map(([n, unit, back]) => {
      const ms = n * (unit === 'W' ? 7 : 1) * DAY;
      return back
        ? { text: `-P${n}${unit}`, start: NOW - ms, end: NOW }
        : { text: `P${n}${unit}`, start: NOW, end: NOW + ms };
    }),
  // The hosted docs' lax P4H30M, as PT4H30M.
  fc
    .tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 1, max: 59 }))
    .map(([h, m]) => ({
      text: `P${h}H${m}M`,
      start: NOW,
      end: NOW + h * HOUR + m * 60_000,
    })),
);

// ------------------------------------------------------------------------------------------------
// Against the server: the same filters, computed in JavaScript over the same records.

interface Prop {
  uuid: string;
  address: string;
  city: string | null;
  postcode: string;
  type: string | null;
  bedrooms: number;
  has_garage: boolean;
  createdAt: number;
}

const asciiLower = (s: string) => s.toLowerCase();
/** The contract's fuzzy match: case-insensitive substring (Unicode lower case, as the server folds). */
const fuzzy = (field: string | null, value: string) => field !== null && asciiLower(field).includes(asciiLower(value));
const postcodeMatch = (field: string, value: string) =>
  asciiLower(field.replaceAll(' ', '')).includes(asciiLower(value.replace(/\s+/g, '')));

const WORDS = [
  'Leeds',
  'leeds',
  'LEEDS',
  'York',
  'New York',
  'Newcastle',
  "O'Hara",
  '100%',
  'a_b',
  'back\\slash',
  'Ümlaut',
  'ümlaut',
];
const POSTCODES = ['LS1 1AA', 'LS11 1AA', 'ls1 2bb', 'M1 1AE', 'YO1 7HH', 'SW1A 1AA'];

let server: TestServer;
let acct: Account;
let other: Account;
let props: Prop[] = [];
const notes: { uuid: string; property: string }[] = [];
const T0 = Date.parse('2026-01-01T00:00:00Z');

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acct = await server.newAccount();
  other = await server.newAccount();
  const seed = fc.sample(
    fc.record({
      city: fc.option(fc.constantFrom(...WORDS), { nil: null }),
      postcode: fc.constantFrom(...POSTCODES),
      type: fc.option(fc.constantFrom('house', 'flat', 'House 50%', 'barn_conversion'), { nil: null }),
      bedrooms: fc.integer({ min: 0, max: 6 }),
      has_garage: fc.boolean(),
      gapMinutes: fc.integer({ min: 0, max: 3 * 24 * 60 }),
    }),
    { numRuns: 40, seed: 42 },
  );
  let at = T0;
  for (const [i, s] of seed.entries()) {
    at += s.gapMinutes * 60_000 + (i % 7) * 1000;
    server.clock.set(at);
    const body = {
      address: `${i} Street`,
      postcode: s.postcode,
      city: s.city,
      type: s.type,
      bedrooms: s.bedrooms,
      has_garage: s.has_garage,
    };
    const rec = await create(acct.api, '/properties', body);
    props.push({ ...body, uuid: rec.uuid, createdAt: at });
    // The other account holds the same data: none of it must ever show.
    const theirs = await create(other.api, '/properties', body);
    if (i % 3 === 0) {
      const note = await create(acct.api, `/properties/${rec.uuid}/notes`, { content: `note ${i}` });
      notes.push({ uuid: note.uuid, property: rec.uuid });
      await create(other.api, `/properties/${theirs.uuid}/notes`, { content: `note ${i}` });
    }
  }
  props = props.sort((a, b) => a.createdAt - b.createdAt);
  server.clock.set(NOW);
});
afterAll(async () => {
  await server.close();
});

/** A filter: its query parameters, and its predicate (undefined when the server must refuse it). */
interface Filter {
  params: [string, string][];
  test: ((p: Prop) => boolean) | undefined;
}

const fuzzyValue = fc.oneof(
  fc.constantFrom(...WORDS, 'ee', 'EE', 'york', 'w y', '%', '_', '\\', "'", '1', ' '),
  fc
    .constantFrom(...WORDS)
    .chain((w) =>
      fc.tuple(fc.nat(w.length), fc.nat(w.length)).map(([a, b]) => w.slice(Math.min(a, b), Math.max(a, b))),
    ),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
);

const filterArb = (): fc.Arbitrary<Filter> =>
  fc.oneof(
    fuzzyValue.map((v) => ({
      params: [['city', v]] as [string, string][],
      test: v.trim() === '' ? undefined : (p: Prop) => fuzzy(p.city, v),
    })),
    fuzzyValue.map((v) => ({
      params: [['type', v]] as [string, string][],
      test: v.trim() === '' ? undefined : (p: Prop) => fuzzy(p.type, v),
    })),
    fc
      .oneof(fc.constantFrom(...POSTCODES), fc.constantFrom('ls1', 'LS1 1', 'ls11aa', ' l s 1 ', '1a', 'sw1a1aa'))
      .map((v) => ({
        params: [['postcode', v]] as [string, string][],
        test: (p: Prop) => postcodeMatch(p.postcode, v),
      })),
    fc.array(fc.integer({ min: -1, max: 7 }), { minLength: 1, maxLength: 3 }).map((ns) => ({
      params: ns.map((n) => [ns.length > 1 ? 'bedrooms[]' : 'bedrooms', String(n)] as [string, string]),
      test: (p: Prop) => ns.includes(p.bedrooms),
    })),
    fc.constantFrom('true', 'false', '1', '0', 'TRUE', ' false ', 'yes', '').map((v) => {
      const t = v.trim().toLowerCase();
      const b = t === 'true' || t === '1' ? true : t === 'false' || t === '0' ? false : undefined;
      return {
        params: [['has_garage', v]] as [string, string][],
        test: b === undefined ? undefined : (p: Prop) => p.has_garage === b,
      };
    }),
    fc.subarray(props, { minLength: 1, maxLength: 3 }).map((ps) => ({
      params: ps.map((p) => ['uuid[]', p.uuid] as [string, string]),
      test: (p: Prop) => ps.some((x) => x.uuid === p.uuid),
    })),
    rangeCase.map((c) => ({
      params: [['created_at', c.text]] as [string, string][],
      test: (p: Prop) => p.createdAt >= c.start && p.createdAt < c.end,
    })),
    // Ranges around the seeded records, so that they select some and not others.
    fc
      .tuple(fc.integer({ min: -DAY, max: 100 * DAY }), fc.integer({ min: 0, max: 30 * DAY }))
      .map(([from, len]) => {
        const s = T0 + from - ((T0 + from) % 1000);
        const e = s + len - (len % 1000);
        return {
          params: [['created_at', `${isoSeconds(s)}Z/${isoSeconds(e)}Z`]] as [string, string][],
          test: (p: Prop) => p.createdAt >= s && p.createdAt < e,
        };
      }),
  );

describe('filters against the server', () => {
  it('the server selects exactly what the same filter selects in JavaScript', async () => {
    // Built here, once the records exist (the uuid filter draws from them).
    // One filter a parameter (the same one twice is 400, or an OR for name[]: tested elsewhere).
    const combos = fc.uniqueArray(filterArb(), {
      selector: (f) => (f.params[0]?.[0] ?? '').replace('[]', ''),
      minLength: 1,
      maxLength: 3,
    });
    let selective = 0;
    await fc.assert(
      fc.asyncProperty(combos, async (filters) => {
        const q = new URLSearchParams({ per_page: '100' });
        for (const f of filters) for (const [k, v] of f.params) q.append(k, v);
        const res = await acct.api('GET', `/properties?${q}`);
        const refused = filters.some((f) => f.test === undefined);
        if (refused) {
          expect([400, 422], res.text).toContain(res.status);
          return;
        }
        expect(res.status, `${q}: ${res.text}`).toBe(200);
        const got = res.body.data.map((p: { uuid: string }) => p.uuid);
        const want = props.filter((p) => filters.every((f) => (f.test as (p: Prop) => boolean)(p))).map((p) => p.uuid);
        expect(got, String(q)).toEqual(want);
        if (want.length > 0 && want.length < props.length) selective++;
        expect(res.body.meta.pagination.total).toBe(want.length);
      }),
      { numRuns: 300 },
    );
    // Many runs select some records and not others: the comparison means something.
    expect(selective).toBeGreaterThan(50);
  });

  it("notes by their property's city: exactly the notes of matching properties, of this account only", async () => {
    await fc.assert(
      fc.asyncProperty(fuzzyValue, async (v) => {
        const q = new URLSearchParams({ per_page: '100', 'property[city]': v });
        const res = await acct.api('GET', `/notes?${q}`);
        if (v.trim() === '') {
          expect(res.status).toBe(400);
          return;
        }
        expect(res.status, res.text).toBe(200);
        const cityOf = new Map(props.map((p) => [p.uuid, p.city]));
        const want = notes.filter((n) => fuzzy(cityOf.get(n.property) ?? null, v)).map((n) => n.uuid);
        expect(res.body.data.map((n: { uuid: string }) => n.uuid).sort()).toEqual(want.sort());
      }),
      { numRuns: 100 },
    );
  });

  it('random raw query strings on every list endpoint: 200, 400 or 422, never a 500', async () => {
    const raw = fc.array(
      fc.tuple(fc.oneof(keyArb(properties), hostile), hostile).map(([k, v]) => `${k}=${v}`),
      { maxLength: 6 },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...RESOURCES), raw, async (r, parts) => {
        // Sent as typed, % signs and all (fetch encodes only what a URL cannot hold).
        const res = await acct.api('GET', `/${r.path}?${parts.join('&')}`);
        expect([200, 400, 422], `${r.path}?${parts.join('&')}: ${res.text}`).toContain(res.status);
        if (res.status !== 200) expect(typeof res.body?.message).toBe('string');
        else
          for (const rec of res.body.data) {
            // Never a record of the other account.
            const mine = await acct.api('GET', `/${r.path}/${rec.uuid}`);
            expect(mine.status).toBe(200);
          }
      }),
      { numRuns: 300 },
    );
    expect(server.loggedErrors).toEqual([]);
  });
});
