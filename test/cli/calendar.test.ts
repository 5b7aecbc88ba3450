/**
 * Reminders on a calendar: `pm reminders list -o ics` read back by an independent iCalendar
 * parser (node-ical, not ical.js, which wrote it), and `pm reminders feed create|list|revoke`
 * against the real server, whose feed URL is then read as a calendar app reads it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunOptions, runPm, pmAgainstServer } from '../helpers/cli.js';
import { eventsOf } from '../helpers/ical.js';
import { type Account, Clock, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let acct: Account;
const run = pmAgainstServer(() => ({ url: server.url, token: acct.token }), { env: { NO_COLOR: '1' } });
const pm = (args: string[], opts: RunOptions = {}, account = acct) => run(args, opts, account.token);

/** Long, and far from ASCII: every line it takes must still be at most 75 octets. */
const LONG = `Überprüfung der Gasanlage — 燃气安全检查 — проверка газа — 🔥🏠 ${'ÅÄÖ, ; \\ 日本語 '.repeat(12)}`;
const uuids: Record<string, string> = {};

beforeAll(async () => {
  server = await startTestServer({ clock: new Clock('2026-11-01T09:00:00Z') });
  acct = await server.newAccount();
  for (const [key, body] of [
    [
      'allday',
      { title: 'Renew gas certificate', due_at: '2027-01-15', description: 'Flat 3, call: 0113; ask for Ann' },
    ],
    ['timed', { title: 'Boiler service, flat 2; morning', due_at: '2027-01-20T09:30:00Z' }],
    ['anytime', { title: 'Anytime on a datetime', due_at: '2027-02-03T17:00:00Z', anytime: true }],
    [
      'long',
      { title: LONG, description: `line one\nline two\r\nline three, with a tab\there ${LONG}`, due_at: '2027-03-01' },
    ],
    ['undated', { title: 'Someday' }],
    ['undated2', { title: 'Someday too' }],
  ] as const) {
    const res = await acct.api('POST', '/reminders', body);
    expect(res.status).toBe(201);
    uuids[key] = res.body.data.uuid;
  }
});
afterAll(() => server.close());

describe('pm reminders list -o ics', () => {
  it('writes RFC 5545 text: CRLF lines of at most 75 octets, an event per dated reminder', async () => {
    const r = await pm(['reminders', 'list', '--all', '-o', 'ics']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const text = r.stdout;
    expect(text.startsWith('BEGIN:VCALENDAR\r\n')).toBe(true);
    expect(text.endsWith('END:VCALENDAR\r\n')).toBe(true);
    // Every line ends with CRLF (no bare LF or CR), and none is longer than 75 octets.
    const lines = text.slice(0, -2).split('\r\n');
    for (const line of lines) {
      expect(line).not.toMatch(/[\r\n]/);
      expect(Buffer.byteLength(line), line).toBeLessThanOrEqual(75);
    }
    // The long title was folded, and not in the middle of a character.
    expect(lines.filter((l) => l.startsWith(' ')).length).toBeGreaterThan(5);

    const events = eventsOf(text);
    expect([...events.keys()].sort()).toEqual([uuids.allday, uuids.timed, uuids.anytime, uuids.long].sort());
    expect(events.get(uuids.allday as string)).toMatchObject({
      summary: 'Renew gas certificate',
      description: 'Flat 3, call: 0113; ask for Ann',
      start: '2027-01-15',
      allDay: true,
      stamp: '2026-11-01T09:00:00Z',
      lastModified: '2026-11-01T09:00:00Z',
    });
    expect(events.get(uuids.timed as string)).toMatchObject({
      summary: 'Boiler service, flat 2; morning',
      start: '2027-01-20T09:30:00Z',
      allDay: false,
    });
    expect(events.get(uuids.timed as string)?.description).toBeUndefined();
    expect(events.get(uuids.anytime as string)).toMatchObject({ start: '2027-02-03', allDay: true });
    // Escaped and unescaped again: commas, semicolons, backslashes, line breaks, any Unicode.
    expect(events.get(uuids.long as string)).toMatchObject({
      summary: LONG,
      description: `line one\nline two\nline three, with a tab\there ${LONG}`,
      start: '2027-03-01',
    });
    expect(text).toContain('SUMMARY:Boiler service\\, flat 2\\; morning\r\n');
  });

  it('takes every filter: the events are the filtered list’s', async () => {
    const r = await pm(['reminders', 'list', '--all', '--due-at', '2027-01-01/2027-02-01', '-o', 'ics']);
    expect(r.code, r.stderr).toBe(0);
    expect([...eventsOf(r.stdout).keys()].sort()).toEqual([uuids.allday, uuids.timed].sort());
    const byTitle = await pm(['reminders', 'list', '--title', 'boiler', '-o', 'ics']);
    expect([...eventsOf(byTitle.stdout).keys()]).toEqual([uuids.timed]);
  });

  it('says on a terminal how many reminders without a due date it left out; piped, nothing', async () => {
    const tty = await pm(['reminders', 'list', '--all', '-o', 'ics'], { tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stderr).toContain('2 reminders without a due date were left out of the calendar.\n');
    const one = await pm(['reminders', 'list', '--title', 'someday too', '-o', 'ics'], { tty: true });
    expect(one.stderr).toContain('1 reminder without a due date was left out of the calendar.\n');
    expect(eventsOf(one.stdout.replace(/\n/g, '\r\n')).size).toBe(0);
  });

  it('is refused where it has no meaning, naming the flag', async () => {
    const props = await pm(['properties', 'list', '-o', 'ics']);
    expect(props.code).toBe(2);
    expect(props.stderr).toContain('--output must be one of table, json, ndjson, csv, tsv, not "ics".');
    const fields = await pm(['reminders', 'list', '-o', 'ics', '--fields', 'title']);
    expect(fields.code).toBe(2);
    expect(fields.stderr).toContain('-o ics writes whole calendar events');
  });

  it('pm reminders get -o ics is a calendar of one event', async () => {
    const r = await pm(['reminders', 'get', uuids.timed as string, '-o', 'ics']);
    expect(r.code, r.stderr).toBe(0);
    expect([...eventsOf(r.stdout).keys()]).toEqual([uuids.timed]);
  });
});

describe('pm reminders feed', () => {
  it('create prints the URL once; a calendar app reads it with no token; revoke ends it', async () => {
    const own = await server.newAccount();
    await own.api('POST', '/reminders', { title: 'Gas safety', due_at: '2027-01-15' });
    const created = await pm(['reminders', 'feed', 'create', '--name', 'My phone'], {}, own);
    expect(created.code, created.stderr).toBe(0);
    const url = created.stdout.trim();
    expect(url).toMatch(new RegExp(`^${server.url}/feeds/pmf_[A-Za-z0-9_-]{43}\\.ics$`));
    expect(created.stderr).toMatch(/^Calendar feed "My phone" created \([0-9a-f-]{36}\)\. Subscribe to its URL/);
    expect(created.stderr).toContain('It ends with the token that made it');
    // The server's URL is this machine's: a phone could not reach it, and pm says so.
    expect(created.stderr).toContain('warning: the URL names 127.0.0.1');

    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect([...eventsOf(await res.text()).values()].map((e) => e.summary)).toEqual(['Gas safety']);

    const listed = await pm(['reminders', 'feed', 'list'], {}, own);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^[0-9a-f-]{36}\t\d{4}-\d\d-\d\dT[^\t]+\tMy phone\n$/);
    expect(listed.stdout).not.toContain('pmf_');
    const uuid = listed.stdout.split('\t')[0] as string;
    const json = await pm(['reminders', 'feed', 'list', '--json'], {}, own);
    expect(JSON.parse(json.stdout)).toEqual([{ uuid, name: 'My phone', created_at: expect.any(String) }]);

    const revoked = await pm(['reminders', 'feed', 'revoke', uuid], {}, own);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toBe(`Revoked calendar feed ${uuid}: its URL no longer answers.\n`);
    expect((await fetch(url)).status).toBe(404);
    const again = await pm(['reminders', 'feed', 'revoke', uuid], {}, own);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain(`no calendar feed ${uuid}.`);
  });

  it('create --json prints the feed with its url', async () => {
    const own = await server.newAccount();
    const r = await pm(['reminders', 'feed', 'create', '--name', 'Laptop', '--json'], {}, own);
    expect(r.code, r.stderr).toBe(0);
    const feed = JSON.parse(r.stdout);
    expect(Object.keys(feed).sort()).toEqual(['created_at', 'name', 'url', 'uuid']);
    expect((await fetch(feed.url)).status).toBe(200);
  });

  it('a token that cannot write reminders is refused (exit 4), and nothing is made', async () => {
    const own = await server.newAccount();
    const readOnly = await own.token2(['reminders.read']);
    const r = await runPm(['reminders', 'feed', 'create', '--name', 'x'], {
      env: { PM_BASE_URL: server.url, PM_TOKEN: readOnly.token },
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('reminders.write');
    expect((await own.api('GET', '/calendar-feeds')).body.data).toEqual([]);
  });

  it('never shows the secret in a --debug trace', async () => {
    const own = await server.newAccount();
    const r = await pm(['--debug', 'reminders', 'feed', 'create', '--name', 'Traced'], {}, own);
    expect(r.code, r.stderr).toBe(0);
    const secret = /pmf_[A-Za-z0-9_-]{43}/.exec(r.stdout)?.[0] as string;
    expect(secret).toBeTruthy();
    expect(r.stderr).toContain('< 201');
    expect(r.stderr).toContain('pmf_***');
    expect(r.stderr).not.toContain(secret);
  });

  it('on the embedded default, create says a calendar app needs a server it can reach, and how', async () => {
    const r = await runPm(['reminders', 'feed', 'create', '--name', 'Phone'], { env: { PM_BASE_URL: undefined } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('a calendar app fetches its feed from a server it can reach');
    expect(r.stderr).toContain('pm serve --host 0.0.0.0 --port 8080 --data ');
    expect(r.stderr).toContain('pm auth login --base-url http://HOST:8080');
    // Listing works there (there is none).
    const list = await runPm(['reminders', 'feed', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([]);
  });
});
