/**
 * uuids as people type them, on either store: any case, and a uuid's first 8 characters or more
 * wherever a uuid is taken (resolved by the server's uuid_prefix filter); the built pm against the
 * real server, and against servers without the filter. On a terminal, tables show uuids short.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pmAgainst, pmBin, runPm } from '../helpers/cli.js';
import { type FaultyServer, startFaultyServer } from '../helpers/faulty-server.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let acct: Account;
let against: ReturnType<typeof pmAgainst>;

beforeAll(async () => {
  server = await startTestServer();
  acct = await server.newAccount();
  against = pmAgainst(server.url, acct.token);
});
afterAll(() => server.close());

const pm = (args: string[], stdin?: string) => against.pm(args, stdin);

async function property(address: string): Promise<string> {
  const r = await acct.api('POST', '/properties', { address, postcode: 'LS1 1AA', city: 'Leeds' });
  expect(r.status).toBe(201);
  return r.body.data.uuid as string;
}

/** Gives a record a uuid of the test's choosing (two records sharing a beginning). */
async function setUuid(uuid: string, to: string): Promise<void> {
  await server.sql('UPDATE properties SET uuid = ? WHERE uuid = ? RETURNING id', [to, uuid]);
}

describe('the API: uuids in any case, and uuid_prefix', () => {
  it('finds a record by its uuid in upper case: in the path, the uuid filter and a link', async () => {
    const uuid = await property('1 Case Street');
    expect((await acct.api('GET', `/properties/${uuid.toUpperCase()}`)).body.data.uuid).toBe(uuid);
    const list = await acct.api('GET', `/properties?uuid=${uuid.toUpperCase()}`);
    expect(list.body.data.map((x: { uuid: string }) => x.uuid)).toEqual([uuid]);
    const note = await acct.api('POST', `/properties/${uuid.toUpperCase()}/notes`, { content: 'upper' });
    expect(note.status).toBe(201);
  });

  it('uuid_prefix lists the records whose uuid begins so, in any case; under 8 characters is a 400', async () => {
    const uuid = await property('2 Prefix Road');
    for (const prefix of [uuid.slice(0, 8), uuid.slice(0, 13).toUpperCase(), uuid]) {
      const r = await acct.api('GET', `/properties?uuid_prefix=${prefix}`);
      expect(r.status).toBe(200);
      expect(r.body.data.map((x: { uuid: string }) => x.uuid)).toEqual([uuid]);
    }
    const short = await acct.api('GET', `/properties?uuid_prefix=${uuid.slice(0, 7)}`);
    expect(short.status).toBe(400);
    expect(short.body.message).toMatch(/uuid_prefix.*8 characters/);
    const bad = await acct.api('GET', '/properties?uuid_prefix=zzzzzzzz');
    expect(bad.status).toBe(400);
  });
});

describe('pm: a uuid in any case, or its first 8 characters', () => {
  it('get, update, notes create and list --property, and delete take a uuid in upper case or its beginning', async () => {
    const uuid = await property('3 Short Lane');
    const short = uuid.slice(0, 8);
    const got = await pm(['properties', 'get', uuid.toUpperCase(), '--json', 'uuid']);
    expect(got.stderr).toBe('');
    expect(JSON.parse(got.stdout)).toEqual({ uuid });
    expect(JSON.parse((await pm(['properties', 'get', short.toUpperCase(), '--json', 'uuid'])).stdout)).toEqual({
      uuid,
    });
    const updated = await pm(['properties', 'update', short, '--city', 'York', '--json', 'city']);
    expect(JSON.parse(updated.stdout)).toEqual({ city: 'York' });
    const note = await pm(['notes', 'create', '--property', short, '--content', 'by a short uuid', '-q']);
    expect(note.code).toBe(0);
    const listed = await pm(['notes', 'list', '--property', short, '--json', 'content']);
    expect(JSON.parse(listed.stdout)).toEqual([{ content: 'by a short uuid' }]);
    const byUuid = await pm(['properties', 'list', '--uuid', short, '-q']);
    expect(byUuid.stdout).toBe(`${uuid}\n`);
    const gone = await pm(['properties', 'delete', short, '--yes']);
    expect(gone.code).toBe(0);
    expect((await acct.api('GET', `/properties/${uuid}`)).status).toBe(404);
  });

  it('delete reads beginnings of uuids on stdin', async () => {
    const a = await property('4 Stdin Way');
    const b = await property('5 Stdin Way');
    const r = await pm(['properties', 'delete', '-', '--yes'], `${a.slice(0, 8)}\n${b.toUpperCase()}\n`);
    expect(r.code).toBe(0);
    expect((await acct.api('GET', `/properties/${a}`)).status).toBe(404);
    expect((await acct.api('GET', `/properties/${b}`)).status).toBe(404);
  });

  it('a beginning several uuids share is a usage error listing them; none is not found; under 8 says 8', async () => {
    const a = await property('6 Twin Street');
    const b = await property('7 Twin Street');
    await setUuid(a, 'abcdef12-0000-4000-8000-000000000001');
    await setUuid(b, 'abcdef12-0000-4000-8000-000000000002');
    const both = await pm(['properties', 'get', 'ABCDEF12']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('<uuid> abcdef12 is the beginning of the uuids of 2 properties');
    expect(both.stderr).toContain('abcdef12-0000-4000-8000-000000000001  6 Twin Street');
    expect(both.stderr).toContain('abcdef12-0000-4000-8000-000000000002  7 Twin Street');
    // Given more of it, it names one.
    const one = await pm(['properties', 'get', 'abcdef12-0000-4000-8000-0000000000', '--json', 'address']);
    expect(one.code).toBe(2);
    const whole = await pm(['properties', 'get', 'abcdef12-0000-4000-8000-000000000002', '--json', 'address']);
    expect(JSON.parse(whole.stdout)).toEqual({ address: '7 Twin Street' });
    const filter = await pm(['notes', 'list', '--property', 'abcdef12']);
    expect(filter.code).toBe(2);
    expect(filter.stderr).toContain('--property abcdef12 is the beginning of the uuids of 2 properties');

    const none = await pm(['properties', 'get', 'fedcba98']);
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('no property has a uuid beginning fedcba98');

    const short = await pm(['properties', 'get', 'abcdef1']);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('give at least the first 8 characters of the uuid');
    const shortFilter = await pm(['notes', 'list', '--property', 'abc']);
    expect(shortFilter.code).toBe(2);
    expect(shortFilter.stderr).toContain('--property is too short: give at least the first 8 characters');
  });
});

describe('a server without uuid_prefix', () => {
  let old: FaultyServer;
  beforeAll(async () => {
    old = await startFaultyServer({});
  });
  afterAll(() => old.close());
  const oldEnv = () => ({ ...against.env, PM_BASE_URL: old.url });

  it('refusing the parameter: pm says a whole uuid is needed', async () => {
    old.script('GET', {
      kind: 'respond',
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Unknown query parameter "uuid_prefix". properties accepts: uuid, city.' }),
    });
    const r = await pmBin(['properties', 'get', '3f2a9c1e'], oldEnv());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('give the whole uuid (36 characters)');
  });

  it('ignoring the parameter (a list of others): pm says a whole uuid is needed, and uses none of them', async () => {
    const records = [{ uuid: '0f0e0d0c-0b0a-4909-8807-060504030201', address: 'elsewhere' }];
    const page = { current_page: 1, per_page: 10, total: 1, total_pages: 1, count: 1 };
    old.script('GET', {
      kind: 'respond',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data: records, meta: { pagination: page } }),
    });
    const r = await pmBin(['properties', 'delete', '3f2a9c1e', '--yes'], oldEnv());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('give the whole uuid (36 characters)');
    expect(old.count('DELETE')).toBe(0);
  });
});

describe('tables on a terminal show uuids short', () => {
  it('the first 8 characters on a terminal (the parent too); whole when piped and in JSON', async () => {
    const uuid = await property('8 Narrow Street');
    await acct.api('POST', `/properties/${uuid}/notes`, { content: 'short parent' });
    const opts = { env: { PM_BASE_URL: server.url, PM_TOKEN: acct.token } };
    const tty = await runPm(['properties', 'list', '--uuid', uuid], { ...opts, tty: true });
    expect(tty.stdout).toMatch(new RegExp(`^${uuid.slice(0, 8)}  `, 'm'));
    expect(tty.stdout).not.toContain(uuid);
    const notes = await runPm(['notes', 'list', '--property', uuid.slice(0, 8)], { ...opts, tty: true });
    expect(notes.stdout).toContain(`property ${uuid.slice(0, 8)}`);
    expect(notes.stdout).not.toContain(uuid);
    const piped = await runPm(['notes', 'list', '--property', uuid], opts);
    expect(piped.stdout).toContain(`property ${uuid}`);
    const json = await runPm(['properties', 'list', '--uuid', uuid, '--json', 'uuid'], { ...opts, tty: true });
    expect(JSON.parse(json.stdout)).toEqual([{ uuid }]);
  });
});
