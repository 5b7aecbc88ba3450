/**
 * Every resource command, in-process against the real server on a loopback port.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';
import { type RunOptions, pmAgainstServer } from '../helpers/cli.js';

let server: TestServer;
let acct: Account;
const pm = pmAgainstServer(() => ({ url: server.url, token: acct.token }));
const json = async (args: string[], opts: RunOptions = {}) => {
  const r = await pm([...args, '--json'], opts);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

describe('properties', () => {
  beforeAll(async () => {
    acct = await server.newAccount();
  });

  it('creates with flags and defaults, prints the uuid with -q', async () => {
    const r = await pm([
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
      '--has-garage',
      '-q',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    const rec = await json(['properties', 'get', r.stdout.trim()]);
    expect(rec).toMatchObject({
      address: '1 High St',
      postcode: 'LS1 1AA',
      city: 'Leeds',
      bedrooms: 3,
      bathrooms: 0,
      has_garage: true,
      has_garden: false,
    });
  });

  it('lists with filters mapped to query parameters', async () => {
    await pm([
      'properties',
      'create',
      '--address',
      '2 Low Rd',
      '--postcode',
      'M1 2AB',
      '--city',
      'Manchester',
      '--bedrooms',
      '2',
      '-q',
    ]);
    const leeds = await json(['properties', 'list', '--city', 'leed']);
    expect(leeds.map((p: { city: string }) => p.city)).toEqual(['Leeds']);
    const noGarage = await json(['properties', 'list', '--no-has-garage']);
    expect(noGarage.map((p: { city: string }) => p.city)).toEqual(['Manchester']);
    const rooms = await json(['properties', 'list', '--bedrooms', '2', '--bedrooms', '3']);
    expect(rooms).toHaveLength(2);
    const byPostcode = await json(['properties', 'list', '--postcode', 'ls11aa']);
    expect(byPostcode).toHaveLength(1);
  });

  it('--sort sorts what was fetched: several fields, :desc, numbers as numbers, empty last', async () => {
    const before = acct;
    acct = await server.newAccount();
    const mk = (address: string, city: string | undefined, bedrooms: number) =>
      pm([
        'properties',
        'create',
        '--address',
        address,
        '--postcode',
        'S1',
        '--bedrooms',
        String(bedrooms),
        ...(city ? ['--city', city] : []),
        '-q',
      ]);
    await mk('a', 'York', 10);
    await mk('b', 'leeds', 2);
    await mk('c', undefined, 3);
    await mk('d', 'Leeds', 9);
    const sorted = async (sort: string) =>
      (
        JSON.parse((await pm(['properties', 'list', '--all', '--sort', sort, '--json', 'address'])).stdout) as {
          address: string;
        }[]
      ).map((x) => x.address);
    expect(await sorted('bedrooms')).toEqual(['b', 'c', 'd', 'a']);
    expect(await sorted('bedrooms:desc')).toEqual(['a', 'd', 'c', 'b']);
    expect(await sorted('city,bedrooms:desc')).toEqual(['d', 'b', 'a', 'c']);
    const bad = await pm(['properties', 'list', '--sort', 'colour']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--sort: "colour" is not a field of properties');
    acct = before;
  });

  it('selects fields with --json a,b and rejects unknown ones with exit 2', async () => {
    const r = await pm(['properties', 'list', '--city', 'leeds', '--json', 'city,bedrooms']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ city: 'Leeds', bedrooms: 3 }]);
    const bad = await pm(['properties', 'list', '--json', 'citty']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('citty');
    expect(bad.stderr).toContain('postcode');
  });

  it('updates only the given fields, fetching what PUT requires', async () => {
    const uuid = (
      await pm(['properties', 'create', '--address', '9 Elm', '--postcode', 'YO1 1AA', '--city', 'York', '-q'])
    ).stdout.trim();
    const rec = await json(['properties', 'update', uuid, '--bedrooms', '5']);
    expect(rec).toMatchObject({ address: '9 Elm', postcode: 'YO1 1AA', city: 'York', bedrooms: 5 });
    const cleared = await json(['properties', 'update', uuid, '--unset', 'city']);
    expect(cleared.city).toBeNull();
  });

  it('refuses an update with nothing to change, before any request', async () => {
    const r = await pm(['properties', 'update', '00000000-0000-0000-0000-000000000000']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nothing to update');
  });

  it('reports a missing required field by its flag, exit 2', async () => {
    const r = await pm(['properties', 'create', '--address', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--postcode');
  });

  it('takes the body from --data, with flags overriding it', async () => {
    const rec = await json([
      'properties',
      'create',
      '--data',
      '{"address":"7 Oak","postcode":"B1 1AA","bedrooms":1}',
      '--bedrooms',
      '2',
    ]);
    expect(rec).toMatchObject({ address: '7 Oak', bedrooms: 2 });
    const bad = await pm(['properties', 'create', '--data', '{nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--data');
  });

  it('exits 3 for a missing record, with a hint', async () => {
    const r = await pm(['properties', 'get', '00000000-0000-0000-0000-000000000000']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('pm properties list');
  });

  it('deletes several at once with --yes, and refuses without it when not interactive', async () => {
    const a = (await pm(['properties', 'create', '--address', 'd1', '--postcode', 'X1', '-q'])).stdout.trim();
    const b = (await pm(['properties', 'create', '--address', 'd2', '--postcode', 'X2', '-q'])).stdout.trim();
    const refused = await pm(['properties', 'delete', a, b]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect((await pm(['properties', 'get', a, '-q'])).code).toBe(0);
    const done = await pm(['properties', 'delete', '--yes', a, b]);
    expect(done.code).toBe(0);
    expect((await pm(['properties', 'get', a])).code).toBe(3);
    expect((await pm(['properties', 'get', b])).code).toBe(3);
  });

  it('asks on a terminal, and deletes only on yes', async () => {
    const a = (await pm(['properties', 'create', '--address', 'd3', '--postcode', 'X3', '-q'])).stdout.trim();
    const asked: string[] = [];
    const no = await pm(['properties', 'delete', a], {
      tty: true,
      prompter: {
        confirm: async (q) => {
          asked.push(q);
          return false;
        },
        secret: async () => '',
      },
    });
    expect(no.code).not.toBe(0);
    // The question names the record, and what goes with it.
    expect(asked[0]).toBe('Delete property d3, X3? This cannot be undone.');
    await pm(['custom-fields', 'create', '--label', 'Roof', '--type', 'text', '--entity-type', 'property', '-q']);
    await pm(['properties', 'update', a, '--custom-field', 'roof=slate']);
    for (const c of ['one', 'two']) await pm(['notes', 'create', '--property', a, '--content', c]);
    const b = (await pm(['properties', 'create', '--address', 'd4', '--postcode', 'X4', '-q'])).stdout.trim();
    const ask = async (args: string[]) => {
      let q = '';
      const confirm = async (x: string) => {
        q = x;
        return false;
      };
      await pm(args, { tty: true, prompter: { confirm, secret: async () => '' } });
      return q;
    };
    expect(await ask(['properties', 'delete', a])).toBe(
      'Delete property d3, X3 and its 2 notes and 1 custom value? This cannot be undone.',
    );
    expect(await ask(['properties', 'delete', a, b])).toBe(
      'Delete 2 properties (d3, X3; d4, X4) and their 2 notes and 1 custom value? This cannot be undone.',
    );
    // A record that is not there is "not found" before any question.
    const missing = await pm(['properties', 'delete', '3f2a9c1e-5b7d-4c1a-9e0f-2b6d8a4c7e15'], {
      tty: true,
      prompter: { confirm: async () => true, secret: async () => '' },
    });
    expect(missing.code).toBe(3);
    expect((await pm(['properties', 'get', a, '-q'])).code).toBe(0);
    const yes = await pm(['properties', 'delete', a], {
      tty: true,
      prompter: { confirm: async () => true, secret: async () => '' },
    });
    expect(yes.code).toBe(0);
    expect((await pm(['properties', 'get', a])).code).toBe(3);
  });

  it('prints the request and sends nothing with --dry-run, token redacted', async () => {
    const before = (await json(['properties', 'list', '--per-page', '100'])).length;
    const r = await pm(['properties', 'create', '--address', 'dry', '--postcode', 'D1', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`POST ${server.url}/properties`);
    expect(r.stdout).toContain('"address": "dry"');
    expect(r.stdout).toContain('Bearer ***');
    expect(r.stdout).not.toContain(acct.token);
    expect((await json(['properties', 'list', '--per-page', '100'])).length).toBe(before);
  });

  it('sets custom field values and filters by them', async () => {
    await pm(['custom-fields', 'create', '--label', 'Colour', '--type', '1', '--entity-type', 'property', '-q']);
    const uuid = (
      await pm(['properties', 'create', '--address', 'cf', '--postcode', 'C1', '--custom-field', 'colour=Blue', '-q'])
    ).stdout.trim();
    const found = await json(['properties', 'list', '--custom-field', 'colour=blu', '--embed', 'custom_fields']);
    expect(found.map((p: { uuid: string }) => p.uuid)).toEqual([uuid]);
    expect(found[0].custom_fields.data[0]).toMatchObject({ name: 'colour', value: 'Blue' });
  });
});

describe('notes', () => {
  let property: string;
  beforeAll(async () => {
    acct = await server.newAccount();
    property = (
      await pm(['properties', 'create', '--address', 'n1', '--postcode', 'N1', '--city', 'Leeds', '-q'])
    ).stdout.trim();
  });

  it('creates under a parent, content from a flag or stdin', async () => {
    const a = await json(['notes', 'create', '--property', property, '--content', 'from a flag']);
    expect(a.content).toBe('from a flag');
    const b = await json(['notes', 'create', '--property', property], { stdin: 'from stdin\n' });
    expect(b.content).toBe('from stdin');
    const listed = await json(['notes', 'list', '--property', property]);
    expect(listed.map((n: { content: string }) => n.content)).toEqual(['from a flag', 'from stdin']);
    const byCity = await json(['notes', 'list', '--property-where', 'city=leeds']);
    expect(byCity).toHaveLength(2);
  });

  it('needs exactly one parent', async () => {
    const r = await pm(['notes', 'create', '--content', 'orphan']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--property or --contact');
  });

  it('says clearly that notes cannot be updated', async () => {
    const r = await pm(['notes', 'update', 'x', '--content', 'y']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('notes cannot be updated');
  });
});

describe('reminders, paging and output', () => {
  beforeAll(async () => {
    acct = await server.newAccount();
    for (let i = 1; i <= 25; i++)
      await pm(['reminders', 'create', '--title', `r${i}`, '--due-at', `2026-12-${String(i).padStart(2, '0')}`, '-q']);
  });

  it('makes a date-only due_at an all-day reminder', async () => {
    const [first] = await json(['reminders', 'list', '--per-page', '1']);
    expect(first).toMatchObject({ title: 'r1', due_at: '2026-12-01', anytime: true });
  });

  it('fetches every page with --all as one JSON document', async () => {
    const all = await json(['reminders', 'list', '--all', '--per-page', '10']);
    expect(all.map((r: { title: string }) => r.title)).toEqual(Array.from({ length: 25 }, (_, i) => `r${i + 1}`));
  });

  it('stops at --limit', async () => {
    const some = await json(['reminders', 'list', '--limit', '12', '--per-page', '5']);
    expect(some).toHaveLength(12);
  });

  it('filters by due date range', async () => {
    const week = await json(['reminders', 'list', '--due-at', '2026-12-01/12-08']);
    expect(week.map((r: { title: string }) => r.title)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']);
    const bad = await pm(['reminders', 'list', '--due-at', 'soon-ish']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--due-at');
  });

  it('writes ndjson, one record a line, and uuids with -q', async () => {
    const nd = await pm(['reminders', 'list', '--all', '-o', 'ndjson']);
    const lines = nd.stdout.trim().split('\n');
    expect(lines).toHaveLength(25);
    expect(JSON.parse(lines[24] as string).title).toBe('r25');
    const q = await pm(['reminders', 'list', '-q', '--per-page', '3']);
    expect(q.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('exits 0 with an empty list', async () => {
    const r = await pm(['reminders', 'list', '--title', 'no such thing', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });
});

describe('pm api and errors', () => {
  beforeAll(async () => {
    acct = await server.newAccount();
  });

  it('sends any request with auth applied', async () => {
    const r = await pm(['api', 'POST', '/reminders', '--data', '{"title":"raw"}']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).data.title).toBe('raw');
    const list = await pm(['api', 'GET', '/reminders', '-F', 'title=raw']);
    expect(JSON.parse(list.stdout).meta.pagination.total).toBe(1);
  });

  it('--paginate follows every page and prints one JSON document; only with GET', async () => {
    for (let i = 0; i < 5; i++) await pm(['api', 'POST', '/reminders', '--data', `{"title":"page ${i}"}`]);
    const r = await pm(['api', 'GET', '/reminders', '--paginate', '-F', 'per_page=2', '-F', 'title=page']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.data.map((x: { title: string }) => x.title)).toEqual(['page 0', 'page 1', 'page 2', 'page 3', 'page 4']);
    const jq = await pm([
      'api',
      'GET',
      '/reminders',
      '--paginate',
      '-F',
      'per_page=1',
      '-F',
      'title=page',
      '--jq',
      '.data | length',
    ]);
    expect(jq.stdout).toBe('5\n');
    const post = await pm(['api', 'POST', '/reminders', '--paginate', '--data', '{"title":"x"}']);
    expect(post.code).toBe(2);
  });

  it('exits 1 with field errors for a refused write', async () => {
    const r = await pm(['api', 'POST', '/reminders', '--data', '{"title":""}']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('title');
  });

  it('exits 4 for a bad token, 5 for no server', async () => {
    const bad = await pm(['properties', 'list'], { env: { PM_TOKEN: 'pm_wrong' } });
    expect(bad.code).toBe(4);
    const down = await pm(['properties', 'list'], { env: { PM_BASE_URL: 'http://127.0.0.1:9' } });
    expect(down.code).toBe(5);
    expect(down.stderr).toContain('127.0.0.1:9');
  });

  it('writes errors as JSON with --json', async () => {
    const r = await pm(['properties', 'get', '0f0e0d0c-0b0a-4909-8807-060504030201', '--json']);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stderr).error).toMatchObject({ exit_code: 3, status: 404 });
  });

  it('suggests a command for a typo, exit 2', async () => {
    const r = await pm(['propertes', 'list']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('properties');
    const f = await pm(['properties', 'list', '--citty', 'x']);
    expect(f.code).toBe(2);
    expect(f.stderr).toContain('--city');
  });
});
