/**
 * What each resource's commands print, exactly, on a terminal and piped, against the real server
 * on a fixed clock. uuids are random, so they are replaced by <uuid> before comparing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pmAgainstServer } from '../helpers/cli.js';
import { Clock, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let env: Record<string, string>;
const NOW = Date.parse('2026-11-21T12:00:00Z');
const pm = pmAgainstServer(() => ({ url: env.PM_BASE_URL as string, token: env.PM_TOKEN as string }), {
  now: NOW,
  timeZone: 'Europe/London',
});
const term = (args: string[]) => pm(args, { tty: true, env: { NO_COLOR: '1' } });
const scrub = (s: string) =>
  s
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    // A terminal's table shows a uuid's first 8 characters.
    .replace(/^[0-9a-f]{8}(?= {2})/gm, '<short>');

beforeAll(async () => {
  server = await startTestServer({ clock: new Clock('2026-11-20T09:30:00Z') });
  env = { PM_BASE_URL: server.url, PM_TOKEN: (await server.newAccount()).token };
  await pm(['statuses', 'create', '--label', 'For Let', '--type', 'property', '-q']);
  const p = await pm([
    'properties',
    'create',
    '--address',
    '1 High St',
    '--postcode',
    'LS1 1AA',
    '--city',
    'Leeds',
    '--bedrooms',
    '3',
    '--status',
    'for let',
    '-q',
  ]);
  await pm(['properties', 'create', '--address', '2 Mill Lane', '--postcode', 'YO1 7HH', '--type', 'house', '-q']);
  await pm(['contacts', 'create', '--name', 'Ann Lee', '--email', 'ann@acme.test', '--company', 'Acme', '-q']);
  await pm(['custom-fields', 'create', '--label', 'Boiler Make', '--type', 'text', '--entity-type', 'property', '-q']);
  await pm(['notes', 'create', '--property', p.stdout.trim(), '--content', 'Keys with the neighbour', '-q']);
  await pm(['reminders', 'create', '--title', 'Gas safety check', '--due-at', '2026-12-01', '-q']);
  await pm(['reminders', 'create', '--title', 'Viewing', '--due-at', '2026-11-23T14:30:00Z', '-q']);
});
afterAll(async () => {
  await server.close();
});

describe('piped: tab-separated default columns, ISO times, no header', () => {
  it.each([
    [
      'properties',
      '<uuid>\t1 High St\tLeeds\tLS1 1AA\t\t3\t0\t1\tFor Let\n<uuid>\t2 Mill Lane\t\tYO1 7HH\thouse\t0\t0\t0\t\n',
    ],
    ['contacts', '<uuid>\tAnn Lee\tann@acme.test\t\tAcme\t0\t\t\n'],
    ['custom-fields', '<uuid>\tboiler_make\tBoiler Make\tText\tProperty\n'],
    ['notes', '<uuid>\tKeys with the neighbour\tproperty <uuid>\n'],
    // The last column, the property a reminder is about: none here.
    ['reminders', '<uuid>\tGas safety check\t2026-12-01\tyes\t\n<uuid>\tViewing\t2026-11-23T14:30:00+00:00\tno\t\n'],
    ['statuses', '<uuid>\tFor Let\tProperty\n'],
  ])('%s list', async (resource, expected) => {
    const r = await pm([resource, 'list']);
    expect(r.code).toBe(0);
    expect(scrub(r.stdout)).toBe(expected);
    expect(r.stderr).toBe('');
  });
});

describe('on a terminal: a table, local times, a footer on stderr', () => {
  it('lists reminders', async () => {
    const r = await term(['reminders', 'list']);
    expect(r.code).toBe(0);
    expect(scrub(r.stdout)).toBe(
      [
        `uuid${' '.repeat(6)}title             due_at            anytime  property`,
        '<short>  Gas safety check  2026-12-01        yes',
        '<short>  Viewing           2026-11-23 14:30  no',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toBe('showing 1-2 of 2, page 1 of 1\n');
  });

  it('shows one record vertically, with local times', async () => {
    const list = await pm(['reminders', 'list', '-q']);
    const uuid = list.stdout.split('\n')[1] as string;
    const r = await term(['reminders', 'get', uuid]);
    expect(scrub(r.stdout)).toBe(
      [
        'uuid          <uuid>',
        'created_at    2026-11-20 09:30 (yesterday)',
        'updated_at    2026-11-20 09:30 (yesterday)',
        'title         Viewing',
        'description',
        'due_at        2026-11-23 14:30 (in 2 days)',
        'anytime       no',
        'done_at',
        'done          no',
        'repeat',
        'last_done_at',
        'property',
        'contact',
        '',
      ].join('\n'),
    );
  });

  it('says so when a list is empty, on stderr, and exits 0', async () => {
    const r = await term(['properties', 'list', '--city', 'Atlantis']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('No properties found.\n');
  });
});

describe('other formats', () => {
  it('writes csv with a header and every field, and the status, type and competencies by label', async () => {
    const r = await pm(['contacts', 'list', '-o', 'csv']);
    expect(scrub(r.stdout)).toBe(
      'uuid,created_at,updated_at,name,email,contact_number,company,address,address2,city,county,postcode,num_attachments,num_notes,status,type,competencies\n' +
        '<uuid>,2026-11-20T09:30:00+00:00,2026-11-20T09:30:00+00:00,Ann Lee,ann@acme.test,,Acme,,,,,,0,0,,,\n',
    );
  });

  it('filters with --jq', async () => {
    const r = await pm(['reminders', 'list', '--jq', '.[] | select(.anytime) | .title']);
    expect(r.stdout).toBe('Gas safety check\n');
  });
});
