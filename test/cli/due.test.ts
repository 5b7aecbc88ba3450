/**
 * `pm reminders due`: the agenda against the real server, on a fixed clock, in a zone where the
 * local date and the UTC date differ; on a terminal and piped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunOptions, pmAgainstServer } from '../helpers/cli.js';
import { type Account, Clock, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let acct: Account;
/** Saturday 21 November 2026, 10:00 in New York (EST, UTC-5). */
const NOW = Date.parse('2026-11-21T15:00:00Z');
const ZONE = 'America/New_York';
const run = pmAgainstServer(() => ({ url: server.url, token: acct.token }), {
  now: NOW,
  timeZone: ZONE,
  env: { NO_COLOR: '1' },
});
const pm = (args: string[], opts: RunOptions = {}, account = acct) =>
  run(['reminders', 'due', ...args], opts, account.token);
const scrub = (s: string) => s.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>');

const uuids = new Map<string, string>();

async function remind(account: Account, title: string, due_at: string | null): Promise<string> {
  const res = await account.api('POST', '/reminders', { title, due_at });
  expect(res.status).toBe(201);
  return res.body.data.uuid as string;
}

beforeAll(async () => {
  server = await startTestServer({ clock: new Clock('2026-11-01T09:00:00Z') });
  acct = await server.newAccount();
  // Created in an order unlike the agenda's, so that sorting is tested.
  for (const [title, due] of [
    ['Upcoming far', '2026-11-28'], // all day, Saturday next week: the last day in 7 days
    ['Inspection', '2026-11-23T15:00:00Z'], // Monday 10:00 EST
    ['Late call', '2026-11-22T03:00:00Z'], // Saturday 22:00 EST: today here, Sunday in UTC
    ['Viewing', '2026-11-21T19:30:00Z'], // today 14:30 EST
    ['Gas safety', '2026-11-21'], // all day today
    ['Call plumber', '2026-11-21T13:00:00Z'], // today 08:00 EST: before now, so overdue
    ['Rent', '2026-11-20'], // all day yesterday
    ['Boiler check', '2026-11-19T14:00:00Z'], // Thursday 09:00 EST
    ['Long overdue', '2026-10-01T12:00:00Z'], // 51 days ago: past the default 30
    ['Too far', '2026-12-05T12:00:00Z'], // two weeks ahead
    ['Day after window', '2026-11-29'], // all day, a day past the window
    ['No date', null],
  ] as const)
    uuids.set(title, await remind(acct, title, due));
});
afterAll(async () => {
  await server.close();
});

/** An agenda line: when, the title padded to `width`, the uuid's first 8 characters (as a table shows it). */
const line = (when: string, title: string, width: number) =>
  `  ${when}  ${title.padEnd(width)}  ${(uuids.get(title) ?? '').slice(0, 8)}`.trimEnd();
/** Today's lines have no date: a blank as wide as the others' dates. */
const TODAY = ' '.repeat(12);

describe('on a terminal: grouped, in the user’s zone', () => {
  it('shows overdue, today and upcoming, all-day ones as "all day"; one layout for every section, 8-character uuids', async () => {
    const r = await pm([], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(scrub(r.stdout)).toBe(
      [
        'Overdue (3)',
        line('Thu 19 Nov  09:00  ', 'Boiler check', 12),
        line('yesterday   all day', 'Rent', 12),
        line('today       08:00  ', 'Call plumber', 12),
        '',
        'Today, Saturday 21 November (3)',
        line(`${TODAY}all day`, 'Gas safety', 12),
        line(`${TODAY}14:30  `, 'Viewing', 12),
        line(`${TODAY}22:00  `, 'Late call', 12),
        '',
        'Upcoming (2)',
        line('Mon 23 Nov  10:00  ', 'Inspection', 12),
        line('Sat 28 Nov  all day', 'Upcoming far', 12),
        '',
      ].join('\n'),
    );
  });

  it('--limit shows the first N in agenda order; the headings still count them all', async () => {
    const r = await pm(['--limit', '4'], { tty: true });
    expect(r.code).toBe(0);
    expect(scrub(r.stdout)).toBe(
      [
        'Overdue (3)',
        line('Thu 19 Nov  09:00  ', 'Boiler check', 12),
        line('yesterday   all day', 'Rent', 12),
        line('today       08:00  ', 'Call plumber', 12),
        '',
        'Today, Saturday 21 November (3)',
        line(`${TODAY}all day`, 'Gas safety', 12),
        '  … 2 more (--limit)',
        '',
        'Upcoming (2)',
        '  … 2 more (--limit)',
        '',
      ].join('\n'),
    );
    const piped = await pm(['--limit', '2', '--json', 'title']);
    expect(JSON.parse(piped.stdout)).toEqual([{ title: 'Boiler check' }, { title: 'Rent' }]);
    const bad = await pm(['--limit', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--limit must be a whole number from 1, not "0".');
  });

  it('the same reminders read from another zone fall on other days', async () => {
    // Sunday 22 November, 00:30 in Kolkata: yesterday's all-day "Gas safety" is overdue, and
    // "Viewing" (19:30 UTC) is today at 01:00.
    const r = await pm(['--json', 'title,agenda'], {
      timeZone: 'Asia/Kolkata',
      now: Date.parse('2026-11-21T19:00:00Z'),
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { title: 'Boiler check', agenda: 'overdue' },
      { title: 'Rent', agenda: 'overdue' },
      { title: 'Gas safety', agenda: 'overdue' },
      { title: 'Call plumber', agenda: 'overdue' },
      { title: 'Viewing', agenda: 'today' },
      { title: 'Late call', agenda: 'today' },
      { title: 'Inspection', agenda: 'upcoming' },
      { title: 'Upcoming far', agenda: 'upcoming' },
      { title: 'Day after window', agenda: 'upcoming' },
    ]);
  });

  it('--within and --overdue-since widen the window (a length or a date)', async () => {
    const r = await pm(['--within', '2 weeks', '--overdue-since', '2026-09-30', '--json', 'title']);
    expect(r.code).toBe(0);
    const titles = JSON.parse(r.stdout).map((x: { title: string }) => x.title);
    expect(titles[0]).toBe('Long overdue');
    expect(titles).toContain('Too far');
    expect(titles).toContain('Day after window');
    expect(titles).not.toContain('No date');
    const iso = await pm(['--within', 'P1D', '--overdue-since', 'P1D', '-q']);
    expect(iso.stdout.trim().split('\n')).toEqual(
      ['Rent', 'Call plumber', 'Gas safety', 'Viewing', 'Late call'].map((t) => uuids.get(t)),
    );
  });

  it('an empty agenda is a friendly line on stderr, exit 0', async () => {
    const empty = await server.newAccount();
    const r = await pm([], { tty: true }, empty);
    expect(r).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Nothing due in the next 7 days, and nothing overdue since 22 October.\n',
    });
  });

  it('long titles are shortened to fit the terminal', async () => {
    const other = await server.newAccount();
    await remind(other, `Renew the ${'very '.repeat(30)}long licence`, '2026-11-22T15:00:00Z');
    const r = await pm([], { tty: true }, other);
    const row = r.stdout.split('\n')[1] as string;
    expect(row.length).toBeLessThanOrEqual(120);
    expect(row).toMatch(/^ {2}tomorrow {2}10:00 {4}Renew the very .*… {2}[0-9a-f]{8}$/);
  });

  it('at 80 columns a title is cut only where the terminal ends', async () => {
    const other = await server.newAccount();
    const title = 'Renew the insurance before it runs out';
    const id = await remind(other, title, '2026-11-22T15:00:00Z');
    await remind(other, 'Call', '2026-11-21T20:00:00Z');
    const r = await pm([], { tty: true, columns: 80 }, other);
    const lines = r.stdout.split('\n');
    expect(lines).toContain(`  tomorrow  10:00    ${title}  ${id.slice(0, 8)}`);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
  });
});

describe('piped: data through the shared output layer', () => {
  it('default: tab-separated columns with the agenda group, ISO times', async () => {
    const r = await pm([]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(scrub(r.stdout)).toBe(
      [
        '<uuid>\tBoiler check\t2026-11-19T14:00:00+00:00\tno\toverdue\t',
        '<uuid>\tRent\t2026-11-20\tyes\toverdue\t',
        '<uuid>\tCall plumber\t2026-11-21T13:00:00+00:00\tno\toverdue\t',
        '<uuid>\tGas safety\t2026-11-21\tyes\ttoday\t',
        '<uuid>\tViewing\t2026-11-21T19:30:00+00:00\tno\ttoday\t',
        '<uuid>\tLate call\t2026-11-22T03:00:00+00:00\tno\ttoday\t',
        '<uuid>\tInspection\t2026-11-23T15:00:00+00:00\tno\tupcoming\t',
        '<uuid>\tUpcoming far\t2026-11-28\tyes\tupcoming\t',
        '',
      ].join('\n'),
    );
  });

  it('--json on a terminal is JSON, not the agenda', async () => {
    const r = await pm(['--json', 'title,due_at,anytime,agenda'], { tty: true });
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout);
    expect(rows).toHaveLength(8);
    expect(rows[1]).toEqual({ title: 'Rent', due_at: '2026-11-20', anytime: true, agenda: 'overdue' });
    expect(rows[5]).toEqual({
      title: 'Late call',
      due_at: '2026-11-22T03:00:00+00:00',
      anytime: false,
      agenda: 'today',
    });
  });

  it('-o ndjson, -o csv, -q and --jq', async () => {
    const nd = await pm(['-o', 'ndjson']);
    const lines = nd.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((x) => x.agenda)).toEqual([
      'overdue',
      'overdue',
      'overdue',
      'today',
      'today',
      'today',
      'upcoming',
      'upcoming',
    ]);
    expect(lines[0]).toMatchObject({ uuid: uuids.get('Boiler check'), title: 'Boiler check' });
    const csv = await pm(['-o', 'csv', '--fields', 'title,agenda']);
    expect(csv.stdout.split('\n').slice(0, 3)).toEqual(['title,agenda', 'Boiler check,overdue', 'Rent,overdue']);
    const q = await pm(['-q', '--within', 'P2D']);
    expect(q.stdout).toBe(
      `${['Boiler check', 'Rent', 'Call plumber', 'Gas safety', 'Viewing', 'Late call'].map((t) => uuids.get(t)).join('\n')}\n`,
    );
    const jq = await pm(['--jq', '[.[] | select(.agenda == "today") | .title]']);
    expect(JSON.parse(jq.stdout)).toEqual(['Gas safety', 'Viewing', 'Late call']);
  });

  it('fetches every page of the window', async () => {
    const many = await server.newAccount();
    for (let i = 0; i < 130; i++)
      await remind(many, `r${String(i).padStart(3, '0')}`, `2026-11-2${2 + (i % 5)}T1${i % 10}:00:00Z`);
    await remind(many, 'outside', '2027-01-01');
    const r = await pm(['--json', 'title'], {}, many);
    expect(r.code).toBe(0);
    const titles = JSON.parse(r.stdout).map((x: { title: string }) => x.title);
    expect(titles).toHaveLength(130);
    expect(new Set(titles).size).toBe(130);
  });
});

describe('usage errors name the flag', () => {
  it.each([
    [['--within', 'soon'], 'error: --within: "soon" is not a length of time I understand; try "P7D", "2 weeks", "10d"'],
    [['--within', '-P7D'], 'error: --within must be a length of time ahead, not "-P7D".'],
    [
      ['--overdue-since', 'next blursday'],
      'error: --overdue-since: "next blursday" is not a date I understand; try "tomorrow 9am", "2026-12-01", "in 3 days"',
    ],
    [['--overdue-since', 'tomorrow'], 'error: --overdue-since must be in the past, not "tomorrow".'],
    [
      ['--fields', 'title,nope'],
      'error: --fields: unknown field "nope". Valid fields for reminders: uuid, created_at, updated_at, title, description, due_at, anytime, done_at, done, repeat, last_done_at, agenda, property, contact.',
    ],
  ])('%j', async (args, message) => {
    const r = await pm(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toContain(message);
  });
});
