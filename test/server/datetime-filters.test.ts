/**
 * Datetime filters (created_at, updated_at, due_at) against records written at times set on the
 * server's injected clock. Ranges are half-open [start, end), all in UTC.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRange } from '../../src/core/datetime.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';
import { create, listKeys, propertyBody, reminderBody } from './fixtures.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
});
afterAll(() => server.close());

/** Creates one property per instant, at that instant; returns uuids keyed by the instant. */
async function propertiesAt(acct: Account, instants: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const at of instants) {
    server.clock.set(at);
    out[at] = (await create(acct.api, '/properties', propertyBody({ address: at }))).uuid;
  }
  return out;
}

const INSTANTS = [
  '2014-12-24T23:59:59Z',
  '2014-12-25T00:00:00Z',
  '2014-12-25T09:00:00Z',
  '2014-12-25T14:25:00Z',
  '2014-12-25T14:25:30Z',
  '2014-12-25T17:00:00Z',
  '2014-12-26T00:00:00Z',
  '2014-12-28T23:59:59Z',
  '2014-12-29T00:00:00Z',
];

describe('created_at', () => {
  let acct: Account;
  beforeAll(async () => {
    acct = await server.newAccount();
    await propertiesAt(acct, INSTANTS);
  });

  /** The addresses (= creation instants) a filter selects, with the clock at `now`. */
  async function select(value: string, now = '2014-12-25T12:00:00Z'): Promise<string[]> {
    server.clock.set(now);
    return (
      await listKeys(acct.api, `/properties?per_page=100&created_at=${encodeURIComponent(value)}`, 'address')
    ).map(String);
  }

  it.each([
    // An exact datetime covers the whole of its last given unit.
    ['2014-12-25T14:25:00+00:00', ['2014-12-25T14:25:00Z']],
    ['2014-12-25T14:25:00Z', ['2014-12-25T14:25:00Z']],
    ['2014-12-25T15:25:00+01:00', ['2014-12-25T14:25:00Z']],
    ['2014-12-25T14:25', ['2014-12-25T14:25:00Z', '2014-12-25T14:25:30Z']],
    ['2014-12-25T14', ['2014-12-25T14:25:00Z', '2014-12-25T14:25:30Z']],
    // A space or a lower-case t for T: the precision is still that of the last unit given.
    ['2014-12-25 14:25', ['2014-12-25T14:25:00Z', '2014-12-25T14:25:30Z']],
    ['2014-12-25t14:25:30z', ['2014-12-25T14:25:30Z']],
    ['2014-12-25 14:25:00', ['2014-12-25T14:25:00Z']],
    ['2014-12-25T14:25:01Z', []],
    // A bare date is that whole UTC day.
    [
      '2014-12-25',
      [
        '2014-12-25T00:00:00Z',
        '2014-12-25T09:00:00Z',
        '2014-12-25T14:25:00Z',
        '2014-12-25T14:25:30Z',
        '2014-12-25T17:00:00Z',
      ],
    ],
    ['2014-12-27', []],
  ])('exact %s', async (value, expected) => {
    expect(await select(value)).toEqual(expected);
  });

  const day25 = INSTANTS.slice(1, 6);

  it.each([
    ['2014-12-25T00:00:00Z/2014-12-26T00:00:00Z', day25],
    ['2014-12-25/2014-12-26', day25],
    ['2014-12-25T00:00:00/P1D', day25],
    ['P1D/2014-12-26T00:00:00Z', day25],
    ['PT24H/2014-12-26', day25],
    // An end that omits leading parts takes them from the start; the end is excluded.
    ['2014-12-25/12-29', [...INSTANTS.slice(1, 8)]],
    ['2014-12-25/29', [...INSTANTS.slice(1, 8)]],
    ['2014-12-25T09:00/17:00', ['2014-12-25T09:00:00Z', '2014-12-25T14:25:00Z', '2014-12-25T14:25:30Z']],
    ['2014-12-25 09:00/17:00', ['2014-12-25T09:00:00Z', '2014-12-25T14:25:00Z', '2014-12-25T14:25:30Z']],
    ['2014-12-25T14:00/PT0,5H', ['2014-12-25T14:25:00Z', '2014-12-25T14:25:30Z']],
    ['2014-12-25T09:00Z/14:25:30', ['2014-12-25T09:00:00Z', '2014-12-25T14:25:00Z']],
    ['2014-12-25T10:00+01:00/17:00', ['2014-12-25T09:00:00Z', '2014-12-25T14:25:00Z', '2014-12-25T14:25:30Z']],
    // Half-open: the start is in, the end is out.
    ['2014-12-24T23:59:59Z/2014-12-25T00:00:00Z', ['2014-12-24T23:59:59Z']],
    ['2014-12-25T00:00:00Z/2014-12-25T00:00:00Z', []],
  ])('interval %s', async (value, expected) => {
    expect(await select(value)).toEqual(expected);
  });

  it.each([
    // now is 2014-12-25T12:00:00Z
    ['P2W', INSTANTS.slice(3)],
    ['-P2W', INSTANTS.slice(0, 3)],
    ['+P1D', ['2014-12-25T14:25:00Z', '2014-12-25T14:25:30Z', '2014-12-25T17:00:00Z', '2014-12-26T00:00:00Z']],
    ['PT5H', ['2014-12-25T14:25:00Z', '2014-12-25T14:25:30Z']],
    ['P4H30M', ['2014-12-25T14:25:00Z', '2014-12-25T14:25:30Z']],
    ['PT4H30M', ['2014-12-25T14:25:00Z', '2014-12-25T14:25:30Z']],
    ['p4h30m', ['2014-12-25T14:25:00Z', '2014-12-25T14:25:30Z']],
    ['-PT3H', ['2014-12-25T09:00:00Z']],
    ['P1DT12H', ['2014-12-25T14:25:00Z', '2014-12-25T14:25:30Z', '2014-12-25T17:00:00Z', '2014-12-26T00:00:00Z']],
  ])('duration %s is relative to now', async (value, expected) => {
    expect(await select(value)).toEqual(expected);
  });

  it('a duration follows the clock', async () => {
    expect(await select('-P1D', '2014-12-29T00:00:01Z')).toEqual(['2014-12-28T23:59:59Z', '2014-12-29T00:00:00Z']);
    expect(await select('P1D', '2014-12-24T23:59:59Z')).toEqual(INSTANTS.slice(0, 6));
  });

  it.each([
    'yesterday',
    '2014-12-32',
    '2014-13-01',
    '2014-12-25T25:00',
    '2014-12-25/',
    '2014-12-25/ ',
    '2014-12',
    '2014',
    '/P1D',
    'P',
    'P1X',
    'P1D/P2D',
    '2014-12-26/2014-12-25',
    '2014-12-25/2014-12-26/2014-12-27',
    '25/12/2014',
    '1419517500',
    ' ',
  ])('unparseable %j is 400 naming created_at', async (value) => {
    server.clock.set('2014-12-25T12:00:00Z');
    const res = await acct.api('GET', `/properties?created_at=${encodeURIComponent(value)}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('created_at');
  });

  it('several values or [] are refused', async () => {
    expect((await acct.api('GET', '/properties?created_at=P1D&created_at=-P1D')).status).toBe(400);
    expect((await acct.api('GET', '/properties?created_at[]=P1D')).status).toBe(400);
  });
});

describe('updated_at', () => {
  it('follows the last write, not the creation', async () => {
    const acct = await server.newAccount();
    const ids = await propertiesAt(acct, ['2020-01-01T10:00:00Z', '2020-01-02T10:00:00Z']);
    server.clock.set('2020-03-05T08:00:00Z');
    const first = ids['2020-01-01T10:00:00Z'] as string;
    const res = await acct.api('PUT', `/properties/${first}`, { address: 'changed', postcode: 'LS1 1AA' });
    expect(res.body.data.updated_at).toBe('2020-03-05T08:00:00+00:00');
    expect(res.body.data.created_at).toBe('2020-01-01T10:00:00+00:00');
    expect(await listKeys(acct.api, '/properties?updated_at=2020-03-05')).toEqual([first]);
    expect(await listKeys(acct.api, '/properties?created_at=2020-03-05')).toEqual([]);
    expect(await listKeys(acct.api, '/properties?updated_at=2020-01-01/2020-02-01')).toEqual([
      ids['2020-01-02T10:00:00Z'],
    ]);
    expect(await listKeys(acct.api, '/properties?updated_at=-P1D')).toEqual([]);
    server.clock.set('2020-03-05T09:00:00Z');
    expect(await listKeys(acct.api, '/properties?updated_at=-PT2H')).toEqual([first]);
  });
});

describe('due_at on reminders', () => {
  it('dates are due at midnight UTC; offsets are converted; no due_at never matches', async () => {
    const acct = await server.newAccount();
    server.clock.set('2026-11-30T12:00:00Z');
    const day = await create(acct.api, '/reminders', reminderBody({ due_at: '2026-12-01' }));
    const timed = await create(acct.api, '/reminders', reminderBody({ due_at: '2026-12-01T10:00:00+02:00' }));
    const late = await create(acct.api, '/reminders', reminderBody({ due_at: '2026-12-01T23:30:00-01:00' }));
    await create(acct.api, '/reminders', reminderBody());
    expect(timed.due_at).toBe('2026-12-01T08:00:00+00:00');
    expect(late.due_at).toBe('2026-12-02T00:30:00+00:00');
    expect(await listKeys(acct.api, '/reminders?due_at=2026-12-01')).toEqual([day.uuid, timed.uuid]);
    expect(await listKeys(acct.api, '/reminders?due_at=2026-12-01T08:00:00Z')).toEqual([timed.uuid]);
    expect(await listKeys(acct.api, '/reminders?due_at=2026-12-02')).toEqual([late.uuid]);
    expect(await listKeys(acct.api, '/reminders?due_at=P1D')).toEqual([day.uuid, timed.uuid]);
    expect(await listKeys(acct.api, '/reminders?due_at=P2D')).toEqual([day.uuid, timed.uuid, late.uuid]);
    expect(await listKeys(acct.api, '/reminders?due_at=-P2D')).toEqual([]);
    const bad = await acct.api('GET', '/reminders?due_at=soon');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('due_at');
  });
});

describe('datetime inside relational filters', () => {
  it('/notes?property[created_at]=... selects by the parent creation time', async () => {
    const acct = await server.newAccount();
    server.clock.set('2019-06-01T00:00:00Z');
    const old = await create(acct.api, '/properties', propertyBody());
    server.clock.set('2019-07-01T00:00:00Z');
    const young = await create(acct.api, '/properties', propertyBody());
    const n1 = await create(acct.api, `/properties/${old.uuid}/notes`, { content: 'a' });
    await create(acct.api, `/properties/${young.uuid}/notes`, { content: 'b' });
    expect(await listKeys(acct.api, '/notes?property[created_at]=2019-06-01')).toEqual([n1.uuid]);
    expect(await listKeys(acct.api, '/notes?created_at=2019-06-01')).toEqual([]);
    const res = await acct.api('GET', '/notes?property[created_at]=june');
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('property[created_at]');
  });
});

describe('any value', () => {
  it('is either a range (200) or a 400 naming the parameter, never a server error', async () => {
    const parts = [
      '2014',
      '-12',
      '-25',
      '-1',
      'T',
      '09',
      ':00',
      ':60',
      'Z',
      '+01:00',
      '-14',
      '/',
      'P',
      '-P',
      '1',
      '99999999',
      'D',
      'W',
      'T',
      'H',
      'M',
      'S',
      'Y',
      '.5',
      ',5',
      ' ',
      '',
      'x',
      '%',
      '0',
    ];
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const { api } = await server.newAccount();
    server.clock.set('2026-01-01T00:00:00Z');
    for (let i = 0; i < 300; i++) {
      const value = Array.from({ length: 1 + rand(7) }, () => parts[rand(parts.length)]).join('');
      let ok = true;
      try {
        parseRange(value, server.clock.ms);
      } catch {
        ok = false;
      }
      const res = await api('GET', `/reminders?due_at=${encodeURIComponent(value)}`);
      expect(res.status, JSON.stringify(value)).toBe(ok ? 200 : 400);
      if (!ok) expect(res.body.message).toContain('due_at');
    }
  });
});
