/**
 * Certificates that expire and the compliance job, as a person (or a nightly CI job) uses them
 * through pm, in-process against the real server: upload with an expiry in words, the job's one
 * reminder per certificate, kept true as the certificate changes, run twice and twice at once.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pmAgainstServer, tempHome } from '../helpers/cli.js';
import { type Account, Clock, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let acct: Account;
const NOW = Date.parse('2027-01-10T12:00:00Z');
const pm = pmAgainstServer(() => ({ url: server.url, token: acct.token }), {
  now: NOW,
  timeZone: 'Europe/London',
  env: { NO_COLOR: '1' },
});
const dir = tempHome();
const file = join(dir, 'gas-safety.pdf');
writeFileSync(file, '%PDF-1.4 gas');

beforeAll(async () => {
  server = await startTestServer({ clock: new Clock('2027-01-10T09:00:00Z') });
});
afterAll(() => server.close());

/** A new account with a property at 1 High St holding gas-safety.pdf, expiring `expires`; their uuids. */
async function setUp(expires: string): Promise<{ property: string; file: string }> {
  acct = await server.newAccount();
  const property = (await acct.api('POST', '/properties', { address: '1 High St', postcode: 'LS1 1AA' })).body.data
    .uuid as string;
  const up = await pm([
    'attachments',
    'upload',
    file,
    '--property',
    property.slice(0, 8),
    '--expires',
    expires,
    '--json',
  ]);
  expect(up.code, up.stderr).toBe(0);
  return { property, file: JSON.parse(up.stdout).uuid };
}

const REMIND = ['attachments', 'remind', '--expiring', 'next 90 days', '--before', '30 days'];
const jobReminders = async () =>
  JSON.parse((await pm(['reminders', 'list', '--json', 'title,due_at,done,property', '--embed', 'property'])).stdout);

describe('pm attachments remind', () => {
  it('makes one reminder about the property, due the lead time before the expiry; run twice, still one', async () => {
    const { property } = await setUp('2027-03-01');
    const first = await pm(REMIND);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('Created reminder');
    const again = await pm(REMIND);
    expect([again.code, again.stderr]).toEqual([0, '']);
    const list = await jobReminders();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      title: 'Renew gas-safety.pdf, 1 High St: expires 1 Mar 2027',
      due_at: '2027-01-30',
      done: false,
      property: { data: { uuid: property } },
    });
  });

  it('run twice at once, still one reminder', async () => {
    await setUp('2027-02-20');
    const runs = await Promise.all([pm(REMIND), pm(REMIND), pm(REMIND)]);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    await pm(REMIND);
    expect(await jobReminders()).toHaveLength(1);
  });

  it('follows the certificate: an expiry changed moves it, a deletion marks it done', async () => {
    const { file: cert } = await setUp('2027-03-01');
    await pm(REMIND);
    const upd = await pm(['attachments', 'update', cert, '--expires-on', '2027-02-14']);
    expect(upd.code, upd.stderr).toBe(0);
    const moved = await pm(REMIND);
    expect(moved.stderr).toContain('Moved reminder');
    expect(await jobReminders()).toMatchObject([
      { title: 'Renew gas-safety.pdf, 1 High St: expires 14 Feb 2027', due_at: '2027-01-15', done: false },
    ]);
    await pm(['attachments', 'delete', '--yes', cert]);
    const gone = await pm(REMIND);
    expect(gone.stderr).toContain('its attachment was deleted');
    expect(await jobReminders()).toMatchObject([{ done: true }]);
    // Nothing more on the next run.
    expect((await pm(REMIND)).stderr).toBe('');
  });

  it('an expiry cleared marks the reminder done; one outside the window makes none', async () => {
    const { file: cert } = await setUp('in 1 month');
    await pm(REMIND);
    await pm(['attachments', 'update', cert, '--unset', 'expires_on']);
    await pm(REMIND);
    expect(await jobReminders()).toMatchObject([{ done: true }]);
    await setUp('in 2 years');
    expect((await pm(REMIND)).stderr).toBe('');
    expect(await jobReminders()).toEqual([]);
  });

  it('lists certificates by expiry (--expiring, --expired), and shows it; update --expires, --no-expires', async () => {
    const { file: cert } = await setUp('2027-02-01');
    const names = async (...flags: string[]) =>
      JSON.parse((await pm(['attachments', 'list', ...flags, '--json', 'name,expires_on'])).stdout);
    expect(await names('--expiring', 'next 60 days')).toEqual([{ name: 'gas-safety.pdf', expires_on: '2027-02-01' }]);
    expect(await names('--expired')).toEqual([]);
    await pm(['attachments', 'update', cert, '--expires', '2027-01-01']);
    expect(await names('--expired')).toEqual([{ name: 'gas-safety.pdf', expires_on: '2027-01-01' }]);
    await pm(['attachments', 'update', cert, '--no-expires']);
    expect(await names('--expired')).toEqual([]);
    await pm(['attachments', 'update', cert, '--expires', 'in 3 weeks']);
    const both = await pm(['attachments', 'list', '--expired', '--expiring', 'P1D']);
    expect([both.code, both.stderr]).toEqual([
      2,
      expect.stringContaining('give one of --expires-on, --expiring and --expired'),
    ]);
    const soon = await pm(['attachments', 'list', '--expires-on', 'next 60 days', '--json', 'name,expires_on']);
    // In 3 weeks, from 10 January.
    expect(JSON.parse(soon.stdout)).toEqual([{ name: 'gas-safety.pdf', expires_on: '2027-01-31' }]);
    const table = await pm(['attachments', 'list'], { tty: true });
    expect(table.stdout).toContain('expires_on');
    expect(table.stdout).toContain('2027-01-31');
  });
});
