/**
 * Reminders about a property, done and repeating, as a person uses them through pm (in-process,
 * against the real server): links by a uuid's beginning, filters by the property's own fields,
 * done and undone, the agenda, the delete's question and a calendar a standard parser reads.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pmAgainstServer, runPm } from '../helpers/cli.js';
import { eventsOf } from '../helpers/ical.js';
import { type Account, Clock, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let acct: Account;
const NOW = Date.parse('2027-02-10T12:00:00Z');
const pm = pmAgainstServer(() => ({ url: server.url, token: acct.token }), {
  now: NOW,
  timeZone: 'Europe/London',
  env: { NO_COLOR: '1' },
});

beforeAll(async () => {
  server = await startTestServer({ clock: new Clock('2027-02-01T09:00:00Z') });
});
afterAll(() => server.close());

/** A new account with a property in Leeds and one in York; their uuids. */
async function setUp(): Promise<{ leeds: string; york: string }> {
  acct = await server.newAccount();
  const make = async (address: string, city: string) =>
    (await acct.api('POST', '/properties', { address, postcode: 'LS1 1AA', city })).body.data.uuid as string;
  return { leeds: await make('1 High St', 'Leeds'), york: await make('2 Low Rd', 'York') };
}

describe('pm reminders about a property', () => {
  it('links one by the beginning of its uuid, and lists by its fields', async () => {
    const { leeds, york } = await setUp();
    const made = await pm(['reminders', 'create', '--title', 'Gas safety', '--property', leeds.slice(0, 8), '-q']);
    expect(made.code, made.stderr).toBe(0);
    await pm(['reminders', 'create', '--title', 'Boiler', '--property', york, '-q']);
    const listed = await pm(['reminders', 'list', '--property-where', 'city=leeds', '--json', 'title']);
    expect(JSON.parse(listed.stdout)).toEqual([{ title: 'Gas safety' }]);
    // A table shows the property's address.
    const table = await pm(['reminders', 'list', '--property', york.slice(0, 8)], { tty: true });
    expect(table.stdout).toContain('2 Low Rd');
    expect(table.stdout).not.toContain('1 High St');
    const wrong = await pm(['reminders', 'create', '--title', 'x', '--property', 'zz']);
    expect([wrong.code, wrong.stderr]).toEqual([2, expect.stringContaining('--property')]);
  });

  it('deleting the property asks, saying how many reminders are kept; they stay, unlinked', async () => {
    const { leeds } = await setUp();
    for (const title of ['Gas', 'EICR']) await pm(['reminders', 'create', '--title', title, '--property', leeds, '-q']);
    let question = '';
    const del = await pm(['properties', 'delete', leeds], {
      tty: true,
      prompter: {
        confirm: async (q) => {
          question = q;
          return true;
        },
        secret: async () => '',
      },
    });
    expect(del.code, del.stderr).toBe(0);
    expect(question).toContain('(2 reminders about it are kept, no longer linked)');
    const left = await pm(['reminders', 'list', '--json', 'title']);
    expect(JSON.parse(left.stdout)).toHaveLength(2);
  });
});

describe('pm reminders apply', () => {
  it('takes property and repeat columns (a uuid beginning, words), and a second run changes nothing', async () => {
    const { leeds } = await setUp();
    const dir = mkdtempSync(join(tmpdir(), 'pm-apply-'));
    const csv = join(dir, 'r.csv');
    writeFileSync(
      csv,
      `title,due_at,repeat,property\nGas safety,2027-03-01,every year,${leeds.slice(0, 8)}\nEICR,2027-05-01,P5Y,\n`,
    );
    const first = await pm(['reminders', 'apply', '--from-file', csv, '--key', 'title']);
    expect(first.code, first.stderr).toBe(0);
    const second = await pm(['reminders', 'apply', '--from-file', csv, '--key', 'title']);
    expect(second.stderr).toBe('created 0, updated 0, deleted 0, unchanged 2, failed 0\n');
    const listed = await pm(['reminders', 'list', '--property-where', 'city=leeds', '--json', 'title,repeat']);
    expect(JSON.parse(listed.stdout)).toEqual([{ title: 'Gas safety', repeat: 'P1Y' }]);
  });
});

describe('pm export and import', () => {
  it("carry a reminder's property (to the property the import made), its repeat and done", async () => {
    const { leeds } = await setUp();
    await pm([
      'reminders',
      'create',
      '--title',
      'Gas',
      '--property',
      leeds,
      '--repeat',
      'P1Y',
      '--due-at',
      '2027-03-01',
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'pm-export-'));
    expect((await pm(['export', '--dir', dir])).code).toBe(0);
    const other = await server.newAccount();
    const imported = await pm(['import', '--dir', dir], {}, other.token);
    expect(imported.code, imported.stderr).toBe(0);
    const list = await pm(
      ['reminders', 'list', '--embed', 'property', '--json', 'title,repeat,property'],
      {},
      other.token,
    );
    const [gas] = JSON.parse(list.stdout);
    expect(gas).toMatchObject({ title: 'Gas', repeat: 'P1Y', property: { data: { address: '1 High St' } } });
    expect(gas.property.data.uuid).not.toBe(leeds);
  });
});

describe('pm reminders done / undone', () => {
  it('a yearly check done late keeps its cycle; due leaves done ones out', async () => {
    const { leeds } = await setUp();
    const gas = (
      await pm([
        'reminders',
        'create',
        '--title',
        'Gas safety',
        '--due-at',
        '2027-02-08',
        '--repeat',
        'every year',
        '--property',
        leeds,
        '-q',
      ])
    ).stdout.trim();
    const once = (
      await pm(['reminders', 'create', '--title', 'Fix gate', '--due-at', '2027-02-09T10:00:00Z', '-q'])
    ).stdout.trim();
    const due = await pm(['reminders', 'due'], { tty: true });
    expect(due.stdout).toContain('Gas safety · 1 High St');
    expect(due.stdout).toContain('Fix gate');
    const done = await pm(['reminders', 'done', gas.slice(0, 8), '--json', 'due_at,last_done_at,done']);
    expect(JSON.parse(done.stdout)).toEqual({
      due_at: '2028-02-08',
      last_done_at: '2027-02-10T12:00:00+00:00',
      done: false,
    });
    await pm(['reminders', 'done', once, '--at', '2027-02-09T18:00:00Z']);
    const after = await pm(['reminders', 'due'], { tty: true });
    expect(after.stdout).not.toContain('Gas safety');
    expect(after.stdout).not.toContain('Fix gate');
    expect(JSON.parse((await pm(['reminders', 'list', '--done', '--json', 'title'])).stdout)).toEqual([
      { title: 'Fix gate' },
    ]);
    await pm(['reminders', 'undone', once]);
    expect(JSON.parse((await pm(['reminders', 'list', '--no-done', '--json', 'title'])).stdout)).toHaveLength(2);
    const bad = await pm(['reminders', 'create', '--title', 'x', '--repeat', 'sometimes']);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('--repeat must be a period')]);
  });

  it('a calendar has LOCATION, RRULE and an end for a timed event, read by node-ical', async () => {
    const { leeds } = await setUp();
    const gas = (
      await pm([
        'reminders',
        'create',
        '--title',
        'Gas safety',
        '--due-at',
        '2027-03-01T09:30:00Z',
        '--repeat',
        'P1Y',
        '--property',
        leeds,
        '-q',
      ])
    ).stdout.trim();
    const done = (await pm(['reminders', 'create', '--title', 'Old', '--due-at', '2027-02-01', '-q'])).stdout.trim();
    await pm(['reminders', 'done', done]);
    const ics = await pm(['reminders', 'list', '-o', 'ics']);
    const events = eventsOf(ics.stdout);
    expect([...events.keys()]).toEqual([gas]);
    expect(events.get(gas)).toMatchObject({
      location: '1 High St, LS1 1AA',
      start: '2027-03-01T09:30:00Z',
      end: '2027-03-01T10:00:00Z',
      rrule: 'FREQ=YEARLY',
    });
  });
});

describe('against a server that does not keep these fields', () => {
  it('says so, from the 422 naming the field, rather than showing the raw error', async () => {
    // A server of the hosted API's kind: it refuses what it does not know, naming the field.
    const hosted = createServer((_req, res) => {
      res.writeHead(422, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          message: 'The given data was invalid.',
          errors: { property: ['The property field is not allowed.'], repeat: ['The repeat field is not allowed.'] },
        }),
      );
    });
    await new Promise<void>((ok) => hosted.listen(0, '127.0.0.1', ok));
    try {
      const url = `http://127.0.0.1:${(hosted.address() as AddressInfo).port}`;
      const args = ['reminders', 'create', '--title', 'Gas', '--repeat', 'P1Y'];
      const r = await runPm([...args, '--property', '3f2a9c1e-5b7d-4c1a-9e0f-2b6d8a4c7e15'], {
        env: { PM_BASE_URL: url, PM_TOKEN: 'pm_test' },
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("this server does not keep reminders' properties or repeat.");
      expect(r.stderr).not.toContain('The given data was invalid');
    } finally {
      hosted.close();
    }
  });
});
