/**
 * Hostile and odd input: SQL-looking strings and LIKE wildcards in every filter kind and in
 * bodies. Each is either a clear 4xx or matched literally, and nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';
import { contactBody, create, customFieldBody, listKeys, propertyBody } from './fixtures.js';

let server: TestServer;
let acct: Account;
const ids: Record<string, string> = {};

const ADDRESSES = {
  plain: 'Plain Road',
  percent: '100% Lane',
  underscore: 'snake_case Street',
  backslash: 'Back\\slash Row',
  quote: "O'Brien Close",
  sql: "x'); DROP TABLE properties; --",
};
const EVIL = ["' OR 1=1 --", '" OR ""="', "'; DELETE FROM properties; --", '%', '_', '\\', '%%', '\\%', '*', "'"];

/** Everything the account holds, to compare before and after. */
async function snapshot(): Promise<unknown> {
  const out: Record<string, unknown> = {};
  for (const path of ['properties', 'contacts', 'custom-fields', 'notes', 'reminders'])
    out[path] = (
      await acct.api('GET', `/${path}?per_page=100${path === 'properties' ? '&embed=custom_fields' : ''}`)
    ).body.data;
  return out;
}
let before: unknown;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acct = await server.newAccount();
  await create(acct.api, '/custom-fields', customFieldBody({ label: 'Note' }));
  for (const [key, address] of Object.entries(ADDRESSES)) {
    const p = await create(
      acct.api,
      '/properties',
      propertyBody({
        address,
        city: address,
        postcode: `AB${key.length} 1CD`,
        custom_fields: [{ name: 'note', value: address }],
      }),
    );
    ids[key] = p.uuid;
    await create(acct.api, `/properties/${p.uuid}/notes`, { content: address });
  }
  await create(acct.api, '/contacts', contactBody({ email: "o'brien@example.com" }));
  before = await snapshot();
});
afterAll(async () => {
  // The data is exactly as it was, and the other account's view is untouched too.
  expect(await snapshot()).toEqual(before);
  await server.close();
});

const q = (s: string) => encodeURIComponent(s);

describe('fuzzy filters match wildcards and quotes literally', () => {
  it.each([
    ['%', ['percent']],
    ['_', ['underscore']],
    ['\\', ['backslash']],
    ["'", ['quote', 'sql']],
    ['0%', ['percent']],
    ['e_c', ['underscore']],
    ['k\\s', ['backslash']],
    ["O'B", ['quote']],
    ["' OR 1=1 --", []],
    ["'; DELETE FROM properties; --", []],
    ['DROP TABLE', ['sql']],
    ['%%', []],
    ['\\%', []],
    ['*', []],
  ])('address=%j', async (value, expected) => {
    const want = expected.map((k) => ids[k]);
    expect(await listKeys(acct.api, `/properties?address=${q(value)}`)).toEqual(want);
    expect(await listKeys(acct.api, `/properties?city=${q(value)}`)).toEqual(want);
    // The same through a relation and through custom field values.
    const notes = await listKeys(acct.api, `/notes?property[address]=${q(value)}`);
    expect(notes).toHaveLength(want.length);
    expect(await listKeys(acct.api, `/properties?custom_fields[value]=${q(value)}`)).toEqual(want);
    expect(await listKeys(acct.api, `/properties?custom_fields[name]=note&custom_fields[value]=${q(value)}`)).toEqual(
      want,
    );
  });

  it('postcode: wildcards are literal there too', async () => {
    for (const v of ['%', '_', "' OR 1=1 --", '\\'])
      expect(await listKeys(acct.api, `/properties?postcode=${q(v)}`)).toEqual([]);
  });
});

describe('every other filter kind', () => {
  it.each(EVIL)('%j: exact and arrayable uuid match nothing', async (v) => {
    expect(await listKeys(acct.api, `/properties?uuid=${q(v)}`)).toEqual([]);
    expect(await listKeys(acct.api, `/properties?uuid[]=${q(v)}&uuid[]=${ids.plain}`)).toEqual([ids.plain]);
    expect(await listKeys(acct.api, `/notes?property[uuid]=${q(v)}`)).toEqual([]);
    expect(await listKeys(acct.api, `/properties?custom_fields[name]=${q(v)}`)).toEqual([]);
    expect(await listKeys(acct.api, `/properties?custom_fields[uuid]=${q(v)}`)).toEqual([]);
  });

  it.each(EVIL)('%j: integer, boolean and datetime filters are 400', async (v) => {
    for (const param of ['bedrooms', 'bedrooms[]', 'has_garage', 'created_at', 'updated_at', 'property[bedrooms]']) {
      const path = param.startsWith('property') ? '/notes' : '/properties';
      const res = await acct.api('GET', `${path}?${param}=${q(v)}`);
      expect(res.status, `${param}=${v}`).toBe(400);
      expect(res.body.message).toContain(param.replace('[]', ''));
    }
    expect((await acct.api('GET', `/reminders?due_at=${q(v)}`)).status).toBe(400);
    expect((await acct.api('GET', `/custom-fields?entity_type=${q(v)}`)).status).toBe(400);
  });

  it.each(EVIL)('%j: page, per_page are 422 and embed is 400', async (v) => {
    expect((await acct.api('GET', `/properties?page=${q(v)}`)).status).toBe(422);
    expect((await acct.api('GET', `/properties?per_page=${q(v)}`)).status).toBe(422);
    expect((await acct.api('GET', `/properties?embed=${q(v)}`)).status).toBe(400);
  });

  it.each([
    "city';DROP TABLE properties;--",
    'city]',
    'city[',
    'property[city]]',
    'property[city"]',
    'custom_fields[value][x]',
    '__proto__',
    'constructor',
    'city%00',
  ])('parameter name %j is 400', async (name) => {
    const res = await acct.api('GET', `/notes?${q(name)}=x`);
    expect(res.status).toBe(400);
    expect((await acct.api('GET', `/properties?${q(name)}=x`)).status).toBe(400);
  });

  it('a NUL in any filter value is 400; other control characters match literally', async () => {
    for (const v of ['\u0000', 'a\u0000b', 'Plain\u0000'])
      for (const param of ['address', 'postcode', 'uuid', 'custom_fields[value]', 'custom_fields[name]']) {
        const res = await acct.api('GET', `/properties?${param}=${q(v)}`);
        expect(res.status, `${param}=${JSON.stringify(v)}`).toBe(400);
        expect(res.body.message).toContain('NUL');
      }
    for (const v of ['a\nb', '\u202e', 'a\tb'])
      expect(await listKeys(acct.api, `/properties?address=${q(v)}`)).toEqual([]);
    // Whitespace alone is an empty filter.
    expect((await acct.api('GET', `/properties?address=${q('\n\t ')}`)).status).toBe(400);
  });
});

describe('bodies with SQL-looking strings', () => {
  it('are stored and returned verbatim', async () => {
    const own = await server.newAccount();
    const text = "Robert'); DROP TABLE contacts;-- \\ % _";
    const c = await create(own.api, '/contacts', contactBody({ name: text, email: text }));
    expect(c.name).toBe(text);
    expect((await own.api('GET', `/contacts/${c.uuid}`)).body.data.email).toBe(text);
    expect(await listKeys(own.api, `/contacts?name=${q("Robert');")}`)).toEqual([c.uuid]);
    const f = await create(own.api, '/custom-fields', customFieldBody({ label: text }));
    expect(f.name).toBe('robert_drop_table_contacts');
    expect(f.label).toBe(text);
  });

  it('a contact link by an SQL-looking email matches nothing', async () => {
    const res = await acct.api('POST', '/properties', propertyBody({ contact: { email: "' OR '1'='1" } }));
    expect(res.status).toBe(422);
    expect((await acct.api('POST', '/properties', propertyBody({ contact: { email: '%' } }))).status).toBe(422);
  });

  it('custom field values by an SQL-looking name or uuid are 422', async () => {
    for (const key of ['name', 'uuid']) {
      const res = await acct.api(
        'POST',
        '/properties',
        propertyBody({ custom_fields: [{ [key]: "note' OR '1'='1", value: 'x' }] }),
      );
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual([`custom_fields.0.${key}`]);
    }
  });

  it('NUL characters in strings are 422', async () => {
    const res = await acct.api('POST', '/properties', propertyBody({ city: 'a\u0000b' }));
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['city']); // A custom value, and the names a body finds records by, too: never stored, never a 500.
    const cv = await acct.api(
      'POST',
      '/properties',
      propertyBody({ custom_fields: [{ name: 'note', value: 'a\u0000b' }] }),
    );
    expect(cv.status).toBe(422);
    expect(cv.body.errors).toEqual({
      'custom_fields.0.value': ['The custom_fields.0.value field must not contain NUL characters.'],
    });
    const byName = await acct.api(
      'POST',
      '/properties',
      propertyBody({ custom_fields: [{ name: 'n\u0000', value: 'x' }] }),
    );
    expect(byName.status).toBe(422);
    const link = await acct.api('POST', '/properties', propertyBody({ contact: { email: 'a\u0000@b' } }));
    expect(link.status).toBe(422);
    expect(Object.keys(link.body.errors)).toEqual(['contact']);
    expect((await acct.api('GET', '/properties/a%00b')).status).toBe(404);
    expect((await acct.api('DELETE', '/properties/a%00b')).status).toBe(404);
  });

  it('odd JSON: duplicate keys, deep nesting, huge numbers, prototype keys', async () => {
    const headers = { 'content-type': 'application/json' };
    const dup = await acct.api('POST', '/custom-fields', undefined, {
      raw: '{"label":"A","label":"B","type":{"code":1},"entity_type":{"code":1}}',
      headers,
    });
    expect(dup.status).toBe(201);
    expect(dup.body.data.label).toBe('B');
    await acct.api('DELETE', `/custom-fields/${dup.body.data.uuid}`);
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    expect((await acct.api('POST', '/reminders', undefined, { raw: deep, headers })).status).toBe(422);
    for (const bedrooms of [1e300, 2 ** 53 + 1, -0.5, Number.MAX_SAFE_INTEGER])
      expect((await acct.api('POST', '/properties', propertyBody({ bedrooms }))).status, String(bedrooms)).toBe(422);
    const proto = await acct.api('POST', '/reminders', undefined, {
      raw: '{"title":"t","__proto__":{"anytime":true},"constructor":{}}',
      headers,
    });
    expect(proto.status).toBe(422);
    expect(Object.keys(proto.body.errors).sort()).toEqual(['__proto__', 'constructor']);
  });

  it('a uuid in the path that looks like SQL is a plain 404', async () => {
    for (const v of ["' OR 1=1 --", '%', '..', '%2e%2e'])
      expect((await acct.api('GET', `/properties/${q(v)}`)).status, v).toBe(404);
  });
});
