/**
 * The server's limits, each met head on: body size, field lengths and ranges, page size, the
 * number and length of query parameters, header size, nesting. Every one is a clear 4xx, and the
 * whole database is byte for byte what it was before (no partial write, no half update).
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_QUERY_PARAMS, MAX_QUERY_VALUE, MAX_SEARCH_VALUE } from '../../src/core/query.js';
import { MAX_BODY_BYTES } from '../../src/core/limits.js';
import { type Account, type ApiResponse, startTestServer, type TestServer } from '../helpers/server.js';
import { contactBody, create, customFieldBody, propertyBody, reminderBody } from '../server/fixtures.js';

let server: TestServer;
let acct: Account;
let property: { uuid: string };
let reminder: { uuid: string };

/** Every row of every table, but the tokens' last-use times (recorded on any request). */
function snapshot(): string {
  const db = server.sqlite.db;
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
    name: string;
  }[];
  const out: Record<string, unknown[]> = {};
  for (const { name } of tables) {
    // By every column in turn: some tables have no rowid (record_counts).
    const columns = (db.pragma(`table_info("${name}")`) as unknown[]).length;
    const order = Array.from({ length: columns }, (_, i) => i + 1).join(', ');
    const rows = db.prepare(`SELECT * FROM "${name}" ORDER BY ${order}`).all() as Record<string, unknown>[];
    out[name] = rows.map(({ last_used_at: _ignored, ...rest }) => rest);
  }
  return JSON.stringify(out);
}

/** Runs `send`, expects `status` and a message matching `message`, and no change at all. */
async function refusedWithoutChange(
  send: () => Promise<ApiResponse>,
  status: number,
  message: RegExp,
): Promise<ApiResponse> {
  const before = snapshot();
  const res = await send();
  expect(res.status, res.text.slice(0, 300)).toBe(status);
  expect(res.body?.message ?? res.text, res.text.slice(0, 300)).toMatch(message);
  expect(snapshot()).toBe(before);
  return res;
}

const json = { 'content-type': 'application/json' };

beforeAll(async () => {
  server = await startTestServer();
  acct = await server.newAccount();
  await create(acct.api, '/contacts', contactBody());
  await create(acct.api, '/custom-fields', customFieldBody());
  property = await create(acct.api, '/properties', propertyBody({ city: 'Leeds' }));
  reminder = await create(acct.api, '/reminders', reminderBody({ description: 'before' }));
});
afterAll(async () => {
  await server.close();
});

describe('body size', () => {
  const big = (size: number) => JSON.stringify({ title: 'x'.repeat(size) });

  it('a POST over 1 MiB is 413', async () => {
    await refusedWithoutChange(
      () => acct.api('POST', '/reminders', undefined, { raw: big(MAX_BODY_BYTES), headers: json }),
      413,
      /larger than 1048576 bytes/,
    );
  });

  it('a PUT over 1 MiB is 413; the record is untouched', async () => {
    await refusedWithoutChange(
      () => acct.api('PUT', `/reminders/${reminder.uuid}`, undefined, { raw: big(2 * MAX_BODY_BYTES), headers: json }),
      413,
      /larger than/,
    );
  });

  it('a note over 1 MiB under a property is 413', async () => {
    await refusedWithoutChange(
      () =>
        acct.api('POST', `/properties/${property.uuid}/notes`, undefined, {
          raw: JSON.stringify({ content: 'x'.repeat(MAX_BODY_BYTES) }),
          headers: json,
        }),
      413,
      /larger than/,
    );
  });
});

describe('field lengths and ranges: 422 naming the field', () => {
  it.each([
    ['a 256-character title', '/reminders', reminderBody({ title: 't'.repeat(256) }), 'title', /255 characters/],
    [
      'a 65,536-character description',
      '/reminders',
      reminderBody({ description: 'd'.repeat(65_536) }),
      'description',
      /65535 characters/,
    ],
    ['256 emoji in a city', '/properties', propertyBody({ city: '🏠'.repeat(256) }), 'city', /255 characters/],
    ['1001 bedrooms', '/properties', propertyBody({ bedrooms: 1001 }), 'bedrooms', /greater than 1000/],
    ['-1 bathrooms', '/properties', propertyBody({ bathrooms: -1 }), 'bathrooms', /at least 0/],
    [
      'a 65,536-character custom value',
      '/properties',
      propertyBody({ custom_fields: [{ name: 'favourite_colour', value: 'v'.repeat(65_536) }] }),
      'custom_fields.0.value',
      /65535 characters/,
    ],
  ])('%s', async (_name, path, body, field, message) => {
    const res = await refusedWithoutChange(() => acct.api('POST', path, body), 422, /./);
    expect(res.body.errors[field]?.[0]).toMatch(message);
  });

  it('255 characters (and 255 emoji) are accepted', async () => {
    const title = '🔑'.repeat(255);
    const rec = await create(acct.api, '/reminders', reminderBody({ title }));
    expect(rec.title).toBe(title);
  });

  it('a PUT with one good field and one too long changes neither', async () => {
    const res = await refusedWithoutChange(
      () => acct.api('PUT', `/reminders/${reminder.uuid}`, { description: 'after', title: 'x'.repeat(300) }),
      422,
      /./,
    );
    expect(Object.keys(res.body.errors)).toEqual(['title']);
  });

  it('a create whose second custom value names no field creates nothing (no property without its values)', async () => {
    const res = await refusedWithoutChange(
      () =>
        acct.api(
          'POST',
          '/properties',
          propertyBody({
            custom_fields: [
              { name: 'favourite_colour', value: 'red' },
              { name: 'no_such_field', value: 'x' },
            ],
          }),
        ),
      422,
      /./,
    );
    expect(Object.keys(res.body.errors)).toEqual(['custom_fields.1.name']);
  });
});

describe('lists', () => {
  it.each([
    ['per_page=101', 'per_page', /not be greater than 100/],
    ['per_page=0', 'per_page', /at least 1/],
    ['per_page=-5', 'per_page', /integer/],
    ['page=0', 'page', /at least 1/],
    ['per_page=99999999999', 'per_page', /integer/],
  ])('%s is 422', async (query, field, message) => {
    const res = await refusedWithoutChange(() => acct.api('GET', `/reminders?${query}`), 422, /./);
    expect(res.body.errors[field][0]).toMatch(message);
  });

  it(`${MAX_QUERY_PARAMS} query parameters are fine, one more is 400`, async () => {
    const q = (n: number) => Array.from({ length: n }, () => `uuid[]=${reminder.uuid}`).join('&');
    expect((await acct.api('GET', `/reminders?${q(MAX_QUERY_PARAMS)}`)).status).toBe(200);
    await refusedWithoutChange(
      () => acct.api('GET', `/reminders?${q(MAX_QUERY_PARAMS + 1)}`),
      400,
      /Too many query parameters: at most 64/,
    );
  });

  it(`a value of ${MAX_QUERY_VALUE} characters is fine, one more is 400 naming the parameter`, async () => {
    expect((await acct.api('GET', `/reminders?uuid=${'t'.repeat(MAX_QUERY_VALUE)}`)).status).toBe(200);
    await refusedWithoutChange(
      () => acct.api('GET', `/reminders?uuid=${'t'.repeat(MAX_QUERY_VALUE + 1)}`),
      400,
      /The value of uuid is too long: at most 1024 characters/,
    );
  });

  it(`a text filter of ${MAX_SEARCH_VALUE} characters is fine, one more is 400 naming the parameter`, async () => {
    expect((await acct.api('GET', `/reminders?title=${'t'.repeat(MAX_SEARCH_VALUE)}`)).status).toBe(200);
    await refusedWithoutChange(
      () => acct.api('GET', `/reminders?title=${'t'.repeat(MAX_SEARCH_VALUE + 1)}`),
      400,
      /The value of title is too long to search for: at most 128 characters/,
    );
  });
});

describe('the request itself', () => {
  it('headers over 16 KiB are refused by the HTTP server (431)', async () => {
    const before = snapshot();
    const status = await new Promise<number>((resolve, reject) => {
      const u = new URL(`${server.url}/reminders`);
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          headers: { authorization: `Bearer ${acct.token}`, 'x-pad': 'p'.repeat(20_000) },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(431);
    expect(snapshot()).toBe(before);
  });

  it('JSON nested 200,000 deep is a plain 422, not a crash', async () => {
    const raw = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    await refusedWithoutChange(
      () => acct.api('POST', '/reminders', undefined, { raw, headers: json }),
      422,
      /must be a JSON object/,
    );
    const deep = `${'{"title":'.repeat(100_000)}"x"${'}'.repeat(100_000)}`;
    const res = await refusedWithoutChange(
      () => acct.api('POST', '/reminders', undefined, { raw: deep, headers: json }),
      422,
      /./,
    );
    expect(res.body.errors.title).toEqual(['The title field must be a string.']);
  });

  it('a body that is JSON but not an object is 422', async () => {
    for (const raw of ['[]', '"x"', '1', 'null', 'true'])
      await refusedWithoutChange(() => acct.api('POST', '/reminders', undefined, { raw, headers: json }), 422, /./);
  });

  it('a uuid of 10,000 characters in the path is a plain 404', async () => {
    await refusedWithoutChange(() => acct.api('GET', `/reminders/${'a'.repeat(10_000)}`), 404, /No reminder/);
    await refusedWithoutChange(() => acct.api('DELETE', `/reminders/${'a'.repeat(10_000)}`), 404, /No reminder/);
  });

  it('the server is unharmed: a normal request still works', async () => {
    expect((await acct.api('GET', '/reminders')).status).toBe(200);
    expect(server.loggedErrors).toEqual([]);
  });
});
