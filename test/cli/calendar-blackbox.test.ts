/**
 * The built bin/pm (the bundle) writes a calendar with -o ics and makes a feed: the iCalendar
 * library is in the bundle and loaded when asked for; what it writes is read back by node-ical.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pmBin, tempHome } from '../helpers/cli.js';
import { eventsOf } from '../helpers/ical.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer();
  const acct = await server.newAccount();
  env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tempHome(), PM_BASE_URL: server.url, PM_TOKEN: acct.token };
  await acct.api('POST', '/reminders', { title: 'Gas, safety; check', due_at: '2027-01-15' });
  await acct.api('POST', '/reminders', { title: 'Viewing', due_at: '2027-01-16T14:00:00Z' });
});
afterAll(() => server.close());

describe('bin/pm', () => {
  it('pm reminders list --all -o ics writes a calendar another parser reads', async () => {
    const r = await pmBin(['reminders', 'list', '--all', '-o', 'ics'], env);
    expect(r.code, r.stderr).toBe(0);
    const events = [...eventsOf(r.stdout).values()].map((e) => [e.summary, e.start]);
    expect(events).toEqual([
      ['Gas, safety; check', '2027-01-15'],
      ['Viewing', '2027-01-16T14:00:00Z'],
    ]);
  });

  it('pm reminders feed create prints a URL that answers the calendar', async () => {
    const r = await pmBin(['reminders', 'feed', 'create', '--name', 'Phone'], env);
    expect(r.code, r.stderr).toBe(0);
    const res = await fetch(r.stdout.trim());
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('SUMMARY:Viewing\r\n');
  });
});
