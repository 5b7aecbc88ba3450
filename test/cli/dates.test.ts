/**
 * Dates as people write them, through the flags, against the real server on a fixed clock:
 * what is stored for `--due-at "tomorrow 9am"` in a given zone, all-day reminders from a date
 * without time, list filters in words, usage errors; and that chrono-node is loaded only when a
 * value needs it.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunOptions, runPm, tempHome } from '../helpers/cli.js';
import { type Account, Clock, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
/** Saturday 21 November 2026, 12:00 UTC: 07:00 in New York, 17:30 in Kolkata. */
const NOW = Date.parse('2026-11-21T12:00:00Z');
const pmAs = (account: Account, args: string[], opts: RunOptions = {}) =>
  runPm(args, { now: NOW, ...opts, env: { PM_BASE_URL: server.url, PM_TOKEN: account.token, ...opts.env } });

beforeAll(async () => {
  server = await startTestServer({ clock: new Clock('2026-11-21T12:00:00Z') });
});
afterAll(async () => {
  await server.close();
});

async function created(account: Account, args: string[], opts: RunOptions) {
  const r = await pmAs(account, ['reminders', 'create', '--title', 'T', ...args, '--json'], opts);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const rec = JSON.parse(r.stdout);
  // What the server stored, read back.
  const back = await account.api('GET', `/reminders/${rec.uuid}`);
  return back.body.data as { uuid: string; due_at: string; anytime: boolean };
}

describe('reminders create and update --due-at in words', () => {
  let acct: Account;
  beforeAll(async () => {
    acct = await server.newAccount();
  });

  it.each([
    ['tomorrow 9am', 'America/New_York', '2026-11-22T14:00:00+00:00'],
    ['tomorrow 9am', 'Asia/Kolkata', '2026-11-22T03:30:00+00:00'],
    ['tomorrow 9am', 'Europe/London', '2026-11-22T09:00:00+00:00'],
    ['2026-12-01 14:00', 'America/New_York', '2026-12-01T19:00:00+00:00'],
    ['+2h', 'Asia/Kolkata', '2026-11-21T14:00:00+00:00'],
    ['2026-12-01T14:00', 'America/New_York', '2026-12-01T14:00:00+00:00'],
  ])('%j in %s stores %s, not all day', async (input, zone, stored) => {
    const rec = await created(acct, ['--due-at', input], { timeZone: zone });
    expect(rec).toMatchObject({ due_at: stored, anytime: false });
  });

  it.each([
    ['tomorrow', 'America/New_York', '2026-11-22'],
    ['tomorrow', 'Asia/Kolkata', '2026-11-22'],
    ['next monday', 'UTC', '2026-11-23'],
    ['in 3 days', 'UTC', '2026-11-24'],
    ['2026-12-01', 'Asia/Kolkata', '2026-12-01'],
  ])('%j in %s (no time) makes an all-day reminder on %s', async (input, zone, date) => {
    const rec = await created(acct, ['--due-at', input], { timeZone: zone });
    expect(rec).toMatchObject({ due_at: date, anytime: true });
  });

  it('late in the evening in New York, "tomorrow" is the New York tomorrow', async () => {
    const rec = await created(acct, ['--due-at', 'tomorrow'], {
      timeZone: 'America/New_York',
      now: Date.parse('2026-11-22T03:00:00Z'), // Saturday 22:00 EST
    });
    expect(rec).toMatchObject({ due_at: '2026-11-22', anytime: true });
  });

  it('update moves a reminder with words, from a time to all day and back', async () => {
    const rec = await created(acct, ['--due-at', 'tomorrow 9am'], { timeZone: 'Europe/London' });
    const all = await pmAs(acct, ['reminders', 'update', rec.uuid, '--due-at', 'friday', '--json'], {
      timeZone: 'Europe/London',
    });
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toMatchObject({ due_at: '2026-11-27', anytime: true });
    const timed = await pmAs(
      acct,
      ['reminders', 'update', rec.uuid, '--due-at', 'friday 16:30', '--no-anytime', '--json'],
      { timeZone: 'Asia/Kolkata' },
    );
    expect(timed.code).toBe(0);
    expect(JSON.parse(timed.stdout)).toMatchObject({ due_at: '2026-11-27T11:00:00+00:00', anytime: false });
  });

  it('--dry-run shows the converted value, and sends nothing', async () => {
    const r = await pmAs(
      acct,
      ['reminders', 'create', '--title', 'Dry', '--due-at', 'tomorrow 9am', '--dry-run', '--json'],
      { timeZone: 'America/New_York' },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).body).toEqual({ title: 'Dry', due_at: '2026-11-22T14:00:00Z' });
  });

  it.each([
    [
      'next blursday',
      'error: --due-at: "next blursday" is not a date I understand; try "tomorrow 9am", "2026-12-01", "in 3 days"',
    ],
    [
      'tomorrow blursday',
      'error: --due-at: "tomorrow blursday" is not a date I understand: I could read only "tomorrow" (Sunday 22 November 2026); try "tomorrow 9am", "2026-12-01", "in 3 days"',
    ],
    [
      '03/04',
      'error: --due-at: "03/04" is ambiguous: 3 April (2026-04-03) or 4 March (2026-03-04)? Write the date as YYYY-MM-DD, or with the month\'s name ("3 apr")',
    ],
    [
      'this week',
      'error: --due-at: "this week" is a span of time, not a date; give a day ("next monday", "in 7 days") or a time ("tomorrow 9am")',
    ],
  ])('%j is a usage error (exit 2) before anything is sent', async (input, message) => {
    const before = (await acct.api('GET', '/reminders?per_page=100')).body.meta.pagination.total;
    const r = await pmAs(acct, ['reminders', 'create', '--title', 'X', '--due-at', input], { timeZone: 'UTC' });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe(message);
    expect((await acct.api('GET', '/reminders?per_page=100')).body.meta.pagination.total).toBe(before);
  });
});

describe('list filters in words', () => {
  let acct: Account;
  const titles = async (args: string[], zone: string) => {
    const r = await pmAs(acct, ['reminders', 'list', ...args, '--all', '--json', 'title'], { timeZone: zone });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout).map((x: { title: string }) => x.title);
  };

  beforeAll(async () => {
    acct = await server.newAccount();
    for (const [title, due_at] of [
      ['last week', '2026-11-14T12:00:00Z'],
      ['this morning', '2026-11-21T09:00:00Z'],
      ['tonight NY', '2026-11-22T03:00:00Z'], // Saturday 22:00 EST, Sunday in UTC
      ['monday', '2026-11-23T10:00:00Z'],
      ['in 13 days', '2026-12-04T11:00:00Z'],
      ['in 15 days', '2026-12-06T11:00:00Z'],
      ['all day sunday', '2026-11-22'],
    ] as const)
      expect((await acct.api('POST', '/reminders', { title, due_at })).status).toBe(201);
  });

  it('--due-at "next 2 weeks" finds those from now to two weeks ahead', async () => {
    expect(await titles(['--due-at', 'next 2 weeks'], 'UTC')).toEqual([
      'tonight NY',
      'monday',
      'in 13 days',
      'all day sunday',
    ]);
  });

  it('--due-at today is the user’s day', async () => {
    expect(await titles(['--due-at', 'today'], 'UTC')).toEqual(['this morning']);
    // A reminder due on a date is at midnight UTC of that date for the server's filters (the
    // contract's model), so Sunday's all-day one falls in New York's Saturday.
    expect(await titles(['--due-at', 'today'], 'America/New_York')).toEqual([
      'this morning',
      'tonight NY',
      'all day sunday',
    ]);
  });

  it('--due-at "last 7 days", "this week", "tomorrow 9am to 5pm"', async () => {
    expect(await titles(['--due-at', 'last 7 days'], 'UTC')).toEqual(['last week', 'this morning']);
    expect(await titles(['--due-at', 'this week'], 'UTC')).toEqual(['this morning', 'tonight NY', 'all day sunday']);
    expect(await titles(['--due-at', 'monday 9am to 11am'], 'UTC')).toEqual(['monday']);
  });

  it('ISO values keep the contract’s meaning (a bare date is the UTC day)', async () => {
    expect(await titles(['--due-at', '2026-11-22'], 'America/New_York')).toEqual(['tonight NY', 'all day sunday']);
    expect(await titles(['--due-at', 'P2W'], 'America/New_York')).toEqual([
      'tonight NY',
      'monday',
      'in 13 days',
      'all day sunday',
    ]);
  });

  it('--created-at yesterday and today are the user’s days', async () => {
    const other = await server.newAccount();
    server.clock.set('2026-11-20T23:30:00Z'); // Friday 18:30 in New York
    await other.api('POST', '/contacts', { name: 'Friday', email: 'f@x.test' });
    server.clock.set('2026-11-21T06:00:00Z'); // Saturday 01:00 in New York
    await other.api('POST', '/contacts', { name: 'Saturday', email: 's@x.test' });
    server.clock.set('2026-11-21T12:00:00Z');
    const names = async (value: string, zone: string) => {
      const r = await pmAs(other, ['contacts', 'list', '--created-at', value, '--json', 'name'], { timeZone: zone });
      expect(r.code).toBe(0);
      return JSON.parse(r.stdout).map((x: { name: string }) => x.name);
    };
    expect(await names('yesterday', 'America/New_York')).toEqual(['Friday']);
    expect(await names('today', 'America/New_York')).toEqual(['Saturday']);
    expect(await names('yesterday', 'UTC')).toEqual(['Friday']);
    // In Kolkata both were made on Saturday (05:00 and 11:30 IST).
    expect(await names('yesterday', 'Asia/Kolkata')).toEqual([]);
    expect(await names('today', 'Asia/Kolkata')).toEqual(['Friday', 'Saturday']);
  });

  it('a value it cannot read is a usage error naming the flag', async () => {
    const r = await pmAs(acct, ['reminders', 'list', '--due-at', 'next blursday'], { timeZone: 'UTC' });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      'error: --due-at: "next blursday" is not a date or range I understand; try "last 7 days", "this week", "today", "2026-12-01/P1W"',
    );
    const iso = await pmAs(acct, ['reminders', 'list', '--created-at', '2026-13-01'], { timeZone: 'UTC' });
    expect(iso.code).toBe(2);
    expect(iso.stderr).toContain('error: --created-at: "2026-13-01" is not a valid date.\n');
    expect(iso.stderr).toContain('Give a date (2026-12-01), a datetime (2026-12-01T09:00:00Z)');
  });
});

describe('chrono-node is loaded only for values that need it', () => {
  const BIN = join(import.meta.dirname, '..', '..', 'bin', 'pm');
  /** Runs the built pm and reports whether chrono-node was loaded by the time it exited. */
  const loadsChrono = (args: string[]): Promise<{ code: number; chrono: boolean }> =>
    new Promise((resolve) => {
      const probe =
        "import{createRequire}from'node:module';const r=createRequire(process.cwd()+'/');" +
        "process.on('exit',()=>process.stderr.write('\\nCHRONO='+Object.keys(r.cache).some(k=>k.includes('chrono-node'))+'\\n'))";
      const home = tempHome();
      const child = spawn(
        process.execPath,
        ['--import', `data:text/javascript,${encodeURIComponent(probe)}`, BIN, ...args],
        {
          env: {
            PATH: process.env.PATH ?? '',
            HOME: home,
            PM_BASE_URL: 'http://127.0.0.1:9',
            PM_TOKEN: 'x',
            TZ: 'UTC',
          },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let err = '';
      child.stderr.on('data', (d) => {
        err += d;
      });
      child.on('close', (code) => resolve({ code: code ?? -1, chrono: /CHRONO=true/.test(err) }));
    });

  it('not for pm --version, nor for ISO values; yes for words', async () => {
    expect(await loadsChrono(['--version'])).toEqual({ code: 0, chrono: false });
    // A bad --timeout is refused when the session opens, after the filters are read: nothing is sent.
    const list = (value: string) => loadsChrono(['reminders', 'list', '--due-at', value, '--timeout', 'soon']);
    expect(await list('2026-12-01/P1W')).toEqual({ code: 2, chrono: false });
    expect(await list('last 7 days')).toEqual({ code: 2, chrono: false });
    expect(await list('next monday')).toEqual({ code: 2, chrono: true });
  });
});
