/** Every endpoint of every resource: envelopes, status codes, Location, 404 and 405. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';
import { contactBody, create, customFieldBody, propertyBody, reminderBody, TIMESTAMP_RE, UUID_RE } from './fixtures.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
});
afterAll(() => server.close());

const MISSING = '00000000-0000-4000-8000-000000000000';

interface Case {
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly update: Record<string, unknown>;
  readonly keys: string[];
}

const cases: Case[] = [
  {
    path: 'properties',
    body: propertyBody({ city: 'Leeds', bedrooms: 3 }),
    update: { address: '2 Low Road', postcode: 'LS2 2BB', bathrooms: 2 },
    keys: [
      'uuid',
      'created_at',
      'updated_at',
      'address',
      'address2',
      'city',
      'county',
      'postcode',
      'type',
      'bedrooms',
      'bathrooms',
      'has_garage',
      'has_garden',
      'has_parking',
      'num_attachments',
      'num_notes',
    ],
  },
  {
    path: 'contacts',
    body: contactBody({ company: 'Analytical Engines' }),
    update: { company: 'Difference Engines', city: 'London' },
    keys: [
      'uuid',
      'created_at',
      'updated_at',
      'name',
      'email',
      'contact_number',
      'company',
      'address',
      'address2',
      'city',
      'county',
      'postcode',
      'num_attachments',
      'num_notes',
    ],
  },
  {
    path: 'custom-fields',
    body: customFieldBody(),
    update: { label: 'Eye Colour' },
    keys: ['uuid', 'created_at', 'updated_at', 'name', 'label', 'type', 'entity_type'],
  },
  {
    path: 'reminders',
    body: reminderBody({ due_at: '2026-03-01T09:30:00Z', description: 'call the broker' }),
    update: { title: 'Renew home insurance' },
    keys: [
      'uuid',
      'created_at',
      'updated_at',
      'title',
      'description',
      'due_at',
      'anytime',
      'done_at',
      'done',
      'repeat',
      'last_done_at',
    ],
  },
];

describe.each(cases)('/$path', ({ path, body, update, keys }) => {
  let acct: Account;
  beforeAll(async () => {
    acct = await server.newAccount();
  });

  it('creates: 201, {data}, a Location header with the record URL', async () => {
    const res = await acct.api('POST', `/${path}`, body);
    expect(res.status).toBe(201);
    const rec = res.body.data;
    expect(Object.keys(rec).sort()).toEqual([...keys].sort());
    expect(rec.uuid).toMatch(UUID_RE);
    expect(rec.created_at).toMatch(TIMESTAMP_RE);
    expect(rec.updated_at).toBe(rec.created_at);
    for (const [k, v] of Object.entries(body)) if (typeof v !== 'object' && k !== 'due_at') expect(rec[k]).toEqual(v);
    expect(res.headers.get('location')).toBe(`${server.url}/${path}/${rec.uuid}`);
    const again = await acct.api('GET', new URL(res.headers.get('location') as string).pathname);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ data: rec });
  });

  it('gets one: 200, {data}', async () => {
    const rec = await create(acct.api, `/${path}`, body);
    const res = await acct.api('GET', `/${path}/${rec.uuid}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ data: rec });
  });

  it('lists: 200, {data: [...], meta.pagination}', async () => {
    const own = await server.newAccount();
    const a = await create(own.api, `/${path}`, body);
    const b = await create(own.api, `/${path}`, body);
    const res = await own.api('GET', `/${path}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([a, b]);
    expect(res.body.meta.pagination).toEqual({
      total: 2,
      count: 2,
      per_page: 10,
      current_page: 1,
      total_pages: 1,
      links: {},
    });
  });

  it('updates: 200, {data}, changes only the given fields and moves updated_at', async () => {
    const rec = await create(acct.api, `/${path}`, body);
    server.clock.advance(5000);
    const res = await acct.api('PUT', `/${path}/${rec.uuid}`, update);
    expect(res.status).toBe(200);
    const expected = { ...rec, ...update, updated_at: res.body.data.updated_at };
    expect(res.body.data).toEqual(expected);
    expect(Date.parse(res.body.data.updated_at) - Date.parse(rec.updated_at)).toBe(5000);
    expect((await acct.api('GET', `/${path}/${rec.uuid}`)).body.data).toEqual(expected);
  });

  it('deletes: 204 with an empty body; the record is gone', async () => {
    const rec = await create(acct.api, `/${path}`, body);
    const res = await acct.api('DELETE', `/${path}/${rec.uuid}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await acct.api('GET', `/${path}/${rec.uuid}`)).status).toBe(404);
    expect((await acct.api('DELETE', `/${path}/${rec.uuid}`)).status).toBe(404);
  });

  it('404 with a message for a missing uuid on get, update and delete', async () => {
    for (const [method, b] of [
      ['GET', undefined],
      ['PUT', update],
      ['DELETE', undefined],
    ] as const) {
      const res = await acct.api(method, `/${path}/${MISSING}`, b);
      expect(res.status, method).toBe(404);
      expect(res.body.message).toContain(MISSING);
    }
  });

  it('405 with an Allow header for an unsupported method', async () => {
    const list = await acct.api('PATCH', `/${path}`, {});
    expect(list.status).toBe(405);
    expect(list.headers.get('allow')?.split(', ')).toEqual(expect.arrayContaining(['GET', 'POST']));
    const rec = await create(acct.api, `/${path}`, body);
    const one = await acct.api('POST', `/${path}/${rec.uuid}`, body);
    expect(one.status).toBe(405);
    expect(one.headers.get('allow')?.split(', ')).toEqual(expect.arrayContaining(['GET', 'PUT', 'DELETE']));
    expect(one.body.message).toBeTruthy();
  });
});

describe('/notes', () => {
  it('creates under a property and under a contact: 201, Location /notes/:uuid, num_notes counts it', async () => {
    const { api } = await server.newAccount();
    const prop = await create(api, '/properties', propertyBody());
    const contact = await create(api, '/contacts', contactBody());
    for (const [parent, uuid] of [
      ['properties', prop.uuid],
      ['contacts', contact.uuid],
    ]) {
      const res = await api('POST', `/${parent}/${uuid}/notes`, { content: `on ${parent}` });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body.data).sort()).toEqual(['content', 'created_at', 'updated_at', 'uuid']);
      expect(res.body.data.content).toBe(`on ${parent}`);
      expect(res.headers.get('location')).toBe(`${server.url}/notes/${res.body.data.uuid}`);
      expect((await api('GET', `/notes/${res.body.data.uuid}`)).body).toEqual({ data: res.body.data });
      expect((await api('GET', `/${parent}/${uuid}`)).body.data.num_notes).toBe(1);
    }
    const list = await api('GET', '/notes');
    expect(list.body.data.map((n: { content: string }) => n.content)).toEqual(['on properties', 'on contacts']);
  });

  it('404 when the parent is missing, and nothing is created', async () => {
    const { api } = await server.newAccount();
    for (const parent of ['properties', 'contacts']) {
      const res = await api('POST', `/${parent}/${MISSING}/notes`, { content: 'orphan' });
      expect(res.status).toBe(404);
      expect(res.body.message).toContain(MISSING);
    }
    expect((await api('GET', '/notes')).body.meta.pagination.total).toBe(0);
  });

  it('cannot be created at /notes: 405 with Allow', async () => {
    const res = await server.api('POST', '/notes', { content: 'x' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).not.toContain('POST');
    expect(res.headers.get('allow')).toContain('GET');
  });

  it('PUT /notes/:uuid is 405 with an Allow header, and the note is unchanged', async () => {
    const { api } = await server.newAccount();
    const prop = await create(api, '/properties', propertyBody());
    const note = await create(api, `/properties/${prop.uuid}/notes`, { content: 'first' });
    const res = await api('PUT', `/notes/${note.uuid}`, { content: 'second' });
    expect(res.status).toBe(405);
    const allow = res.headers.get('allow')?.split(', ') ?? [];
    expect(allow).toEqual(expect.arrayContaining(['GET', 'DELETE']));
    expect(allow).not.toContain('PUT');
    expect(res.body.message).toMatch(/cannot be updated/);
    expect((await api('GET', `/notes/${note.uuid}`)).body.data.content).toBe('first');
  });

  it('deletes: 204, and the parent count drops', async () => {
    const { api } = await server.newAccount();
    const prop = await create(api, '/properties', propertyBody());
    const note = await create(api, `/properties/${prop.uuid}/notes`, { content: 'x' });
    const res = await api('DELETE', `/notes/${note.uuid}`);
    expect(res.status).toBe(204);
    expect((await api('GET', `/notes/${note.uuid}`)).status).toBe(404);
    expect((await api('GET', `/properties/${prop.uuid}`)).body.data.num_notes).toBe(0);
  });

  it('GET on the nested notes path is 405 (Allow: POST)', async () => {
    const { api } = await server.newAccount();
    const prop = await create(api, '/properties', propertyBody());
    const res = await api('GET', `/properties/${prop.uuid}/notes`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('routing', () => {
  it('an unknown path is 404 with a JSON message', async () => {
    const res = await server.api('GET', '/houses');
    expect(res.status).toBe(404);
    expect(res.body.message).toMatch(/houses/);
  });

  it('HEAD on a list answers 200 without a body', async () => {
    const res = await server.api('HEAD', '/properties');
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
  });

  it('query parameters other than embed are refused on single-record endpoints', async () => {
    const rec = await create(server.api, '/properties', propertyBody());
    const res = await server.api('GET', `/properties/${rec.uuid}?city=leeds`);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('city');
  });
});
