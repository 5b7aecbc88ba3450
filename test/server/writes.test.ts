/** Write bodies: validation (422), defaults, custom fields and their values, links, reminders, PUT, cascades. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { contactBody, create, customFieldBody, listKeys, propertyBody, reminderBody } from './fixtures.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
});
afterAll(() => server.close());

/** POSTs or PUTs, expects 422 in Laravel's shape, and returns the error fields. */
async function invalid(
  method: string,
  path: string,
  body: unknown,
  api = server.api,
): Promise<Record<string, string[]>> {
  const res = await api(method, path, body);
  expect(res.status, res.text).toBe(422);
  expect(typeof res.body.message).toBe('string');
  expect(res.body.errors).toBeTypeOf('object');
  for (const messages of Object.values(res.body.errors)) {
    expect(Array.isArray(messages)).toBe(true);
    for (const m of messages as unknown[]) expect(m).toMatch(/^[A-Z].*\.$/);
  }
  // Laravel's summary line: the first error, and how many more.
  const all = Object.values(res.body.errors as Record<string, string[]>).flat();
  expect(res.body.message.startsWith(all[0] as string)).toBe(true);
  if (all.length > 1) expect(res.body.message).toContain(`and ${all.length - 1} more error`);
  return res.body.errors;
}

describe('validation: 422 naming every bad field', () => {
  it('missing required fields on create, for every resource', async () => {
    expect(Object.keys(await invalid('POST', '/properties', {})).sort()).toEqual(['address', 'postcode']);
    expect(Object.keys(await invalid('POST', '/contacts', {})).sort()).toEqual(['email', 'name']);
    expect(Object.keys(await invalid('POST', '/custom-fields', {})).sort()).toEqual(['entity_type', 'label', 'type']);
    expect(Object.keys(await invalid('POST', '/reminders', {}))).toEqual(['title']);
    const p = await create(server.api, '/properties', propertyBody());
    expect(Object.keys(await invalid('POST', `/properties/${p.uuid}/notes`, {}))).toEqual(['content']);
  });

  it('blank and null required strings are missing too', async () => {
    const errors = await invalid('POST', '/properties', { address: '   ', postcode: null });
    expect(errors.address).toEqual(['The address field is required.']);
    expect(errors.postcode).toEqual(['The postcode field is required.']);
  });

  it('wrong types, all reported at once', async () => {
    const errors = await invalid('POST', '/properties', {
      address: 12,
      postcode: ['LS1'],
      city: false,
      bedrooms: '3',
      bathrooms: 1.5,
      has_garage: 'yes',
      has_garden: 1,
      has_parking: 'true',
    });
    expect(Object.keys(errors).sort()).toEqual(
      ['address', 'bathrooms', 'bedrooms', 'city', 'has_garage', 'has_garden', 'has_parking', 'postcode'].sort(),
    );
    expect(errors.bedrooms).toEqual(['The bedrooms field must be an integer.']);
    expect(errors.has_garage).toEqual(['The has garage field must be true or false.']);
    expect(errors.city).toEqual(['The city field must be a string.']);
  });

  it('strings over 255 characters (65,535 for content and description); exactly at the limit is fine', async () => {
    const long = 'x'.repeat(256);
    const errors = await invalid('POST', '/properties', propertyBody({ address: long, city: long, type: long }));
    expect(Object.keys(errors).sort()).toEqual(['address', 'city', 'type']);
    expect(errors.city).toEqual(['The city field must not be greater than 255 characters.']);
    await create(server.api, '/properties', propertyBody({ address: 'x'.repeat(255) }));
    // Characters, not bytes or UTF-16 units.
    await create(server.api, '/properties', propertyBody({ address: '🏠'.repeat(255) }));
    expect(Object.keys(await invalid('POST', '/contacts', contactBody({ email: long, company: long }))).sort()).toEqual(
      ['company', 'email'],
    );

    const r = await invalid('POST', '/reminders', { title: long, description: 'd'.repeat(65536) });
    expect(Object.keys(r).sort()).toEqual(['description', 'title']);
    await create(server.api, '/reminders', { title: 't', description: 'd'.repeat(65535) });
    const p = await create(server.api, '/properties', propertyBody());
    expect(Object.keys(await invalid('POST', `/properties/${p.uuid}/notes`, { content: 'c'.repeat(65536) }))).toEqual([
      'content',
    ]);
    await create(server.api, `/properties/${p.uuid}/notes`, { content: 'c'.repeat(65535) });
  });

  it('rooms are integers 0..1000', async () => {
    const errors = await invalid('POST', '/properties', propertyBody({ bedrooms: -1, bathrooms: 1001 }));
    expect(errors.bedrooms).toEqual(['The bedrooms field must be at least 0.']);
    expect(errors.bathrooms).toEqual(['The bathrooms field must not be greater than 1000.']);
    const ok = await create(server.api, '/properties', propertyBody({ bedrooms: 0, bathrooms: 1000 }));
    expect([ok.bedrooms, ok.bathrooms]).toEqual([0, 1000]);
  });

  it('unknown and read-only fields are refused by name', async () => {
    const errors = await invalid(
      'POST',
      '/properties',
      propertyBody({ colour: 'red', uuid: 'x', created_at: '2020-01-01', num_notes: 3, num_attachments: 0 }),
    );
    expect(errors.colour).toEqual(['The colour field is not allowed.']);
    for (const f of ['uuid', 'created_at', 'num_notes', 'num_attachments'])
      expect(errors[f], f).toEqual([`The ${f.replace(/_/g, ' ')} field is read-only.`]);
    const p = await create(server.api, '/properties', propertyBody());
    const upd = await invalid('PUT', `/properties/${p.uuid}`, propertyBody({ updated_at: 'now', contact: {} }));
    expect(Object.keys(upd).sort()).toEqual(['contact', 'updated_at']);
    const r = await create(server.api, '/reminders', reminderBody());
    expect(Object.keys(await invalid('PUT', `/reminders/${r.uuid}`, { uuid: r.uuid, priority: 1 })).sort()).toEqual([
      'priority',
      'uuid',
    ]);
  });

  it('a body that is not an object is 422', async () => {
    for (const body of [[], 'text', 3, null]) {
      const res = await server.api('POST', '/reminders', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.errors.body).toBeDefined();
    }
  });

  it('non-nullable fields refuse null on update', async () => {
    const p = await create(server.api, '/properties', propertyBody());
    const errors = await invalid('PUT', `/properties/${p.uuid}`, propertyBody({ bedrooms: null, has_garage: null }));
    expect(errors.bedrooms).toEqual(['The bedrooms field must not be null.']);
    expect(errors.has_garage).toEqual(['The has garage field must not be null.']);
    const c = await create(server.api, '/contacts', contactBody());
    expect(Object.keys(await invalid('PUT', `/contacts/${c.uuid}`, { email: null }))).toEqual(['email']);
  });

  it('nothing is written when a body is refused', async () => {
    const acct = await server.newAccount();
    await invalid('POST', '/properties', propertyBody({ bedrooms: 'many' }), acct.api);
    await invalid('POST', '/properties', propertyBody({ custom_fields: [{ name: 'nope', value: 'x' }] }), acct.api);
    await invalid('POST', '/properties', propertyBody({ contact: { email: 'nobody@example.com' } }), acct.api);
    expect((await acct.api('GET', '/properties')).body.meta.pagination.total).toBe(0);
  });
});

describe('custom field values: how many one write may set', () => {
  it('is at most 100; more is 422 naming custom_fields', async () => {
    const values = Array.from({ length: 101 }, (_, i) => ({ name: `f${i}`, value: 'x' }));
    const res = await server.api('POST', '/properties', propertyBody({ custom_fields: values }));
    expect(res.status).toBe(422);
    expect(res.body.errors.custom_fields[0]).toContain('100');
  });
});

describe('defaults and nullable fields', () => {
  it('property: rooms 0, flags false, optional strings null; null on create means the default', async () => {
    const p = await create(server.api, '/properties', propertyBody());
    expect(p).toMatchObject({
      address2: null,
      city: null,
      county: null,
      type: null,
      bedrooms: 0,
      bathrooms: 0,
      has_garage: false,
      has_garden: false,
      has_parking: false,
      num_attachments: 0,
      num_notes: 0,
    });
    const q = await create(server.api, '/properties', propertyBody({ bedrooms: null, has_garage: null, city: null }));
    expect(q).toMatchObject({ bedrooms: 0, has_garage: false, city: null });
  });

  it('reminder: anytime false, description and due_at null', async () => {
    const r = await create(server.api, '/reminders', reminderBody());
    expect(r).toMatchObject({ anytime: false, description: null, due_at: null });
  });

  it('a nullable field is cleared by null on update', async () => {
    const p = await create(server.api, '/properties', propertyBody({ city: 'Leeds' }));
    const res = await server.api('PUT', `/properties/${p.uuid}`, propertyBody({ city: null }));
    expect(res.body.data.city).toBeNull();
  });
});

describe('PUT', () => {
  it('keeps the fields it omits', async () => {
    const p = await create(
      server.api,
      '/properties',
      propertyBody({ city: 'Leeds', bedrooms: 3, has_garden: true, type: 'house' }),
    );
    const res = await server.api('PUT', `/properties/${p.uuid}`, { address: 'New', postcode: 'LS9 9ZZ', bedrooms: 4 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      address: 'New',
      postcode: 'LS9 9ZZ',
      bedrooms: 4,
      city: 'Leeds',
      has_garden: true,
      type: 'house',
    });
    const r = await create(server.api, '/reminders', reminderBody({ description: 'keep me', due_at: '2026-01-01' }));
    const upd = await server.api('PUT', `/reminders/${r.uuid}`, { title: 'renamed' });
    expect(upd.body.data).toMatchObject({
      title: 'renamed',
      description: 'keep me',
      due_at: '2026-01-01',
      anytime: true,
    });
    const empty = await server.api('PUT', `/reminders/${r.uuid}`, {});
    expect(empty.status).toBe(200);
    expect(empty.body.data.title).toBe('renamed');
  });

  it('on properties requires address and postcode', async () => {
    const p = await create(server.api, '/properties', propertyBody());
    const errors = await invalid('PUT', `/properties/${p.uuid}`, { city: 'York' });
    expect(Object.keys(errors).sort()).toEqual(['address', 'postcode']);
    expect((await server.api('GET', `/properties/${p.uuid}`)).body.data.city).toBeNull();
  });

  it('contacts, reminders and custom fields require nothing on PUT', async () => {
    const c = await create(server.api, '/contacts', contactBody());
    expect((await server.api('PUT', `/contacts/${c.uuid}`, { city: 'Bath' })).body.data).toMatchObject({
      name: 'Ada Lovelace',
      city: 'Bath',
    });
  });

  it('requires a JSON body', async () => {
    const p = await create(server.api, '/properties', propertyBody());
    const res = await server.api('PUT', `/properties/${p.uuid}`, undefined, {
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
  });
});

describe('custom fields', () => {
  it('name generated from label; type and entity_type names filled', async () => {
    const acct = await server.newAccount();
    const res = await acct.api('POST', '/custom-fields', customFieldBody({ label: 'Favourite Colour' }));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      name: 'favourite_colour',
      label: 'Favourite Colour',
      type: { code: 1, name: 'Text' },
      entity_type: { code: 2, name: 'Property' },
    });
    const contactField = await create(
      acct.api,
      '/custom-fields',
      customFieldBody({ label: 'Café Owner?', entity_type: { code: 1 } }),
    );
    expect(contactField).toMatchObject({ name: 'cafe_owner', entity_type: { code: 1, name: 'Contact' } });
    expect((await create(acct.api, '/custom-fields', customFieldBody({ label: '2nd Gate' }))).name).toBe(
      'field_2nd_gate',
    );
  });

  it('a generated name that clashes gets a numeric suffix; the same name on the other entity is free', async () => {
    const acct = await server.newAccount();
    const names = [];
    for (let i = 0; i < 3; i++)
      names.push((await create(acct.api, '/custom-fields', customFieldBody({ label: 'Favourite Colour' }))).name);
    expect(names).toEqual(['favourite_colour', 'favourite_colour_2', 'favourite_colour_3']);
    const other = await create(
      acct.api,
      '/custom-fields',
      customFieldBody({ label: 'Favourite Colour', entity_type: { code: 1 } }),
    );
    expect(other.name).toBe('favourite_colour');
  });

  it('creates at once with one label all succeed, with the names one after another would get', async () => {
    const acct = await server.newAccount();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => acct.api('POST', '/custom-fields', customFieldBody({ label: 'Roof Colour' }))),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
    const names = answers
      .map((a) => a.body.data.name as string)
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    expect(names).toEqual(['roof_colour', ...Array.from({ length: 9 }, (_, i) => `roof_colour_${i + 2}`)]);
  });

  it('an explicit name that clashes is 409, on create and on update', async () => {
    const acct = await server.newAccount();
    await create(acct.api, '/custom-fields', customFieldBody({ name: 'roof', label: 'Roof' }));
    const res = await acct.api('POST', '/custom-fields', customFieldBody({ name: 'roof', label: 'Roof type' }));
    expect(res.status).toBe(409);
    expect(res.body.message).toContain('roof');
    expect(res.body.errors.name).toBeDefined();
    const other = await create(acct.api, '/custom-fields', customFieldBody({ label: 'Walls' }));
    expect((await acct.api('PUT', `/custom-fields/${other.uuid}`, { name: 'roof' })).status).toBe(409);
    // Renaming to its own name is no clash.
    expect((await acct.api('PUT', `/custom-fields/${other.uuid}`, { name: 'walls' })).status).toBe(200);
    // Another account may use the same name.
    await create((await server.newAccount()).api, '/custom-fields', customFieldBody({ name: 'roof', label: 'Roof' }));
  });

  it('moving a field to the other entity type where its name is taken is 409 too', async () => {
    const acct = await server.newAccount();
    await create(
      acct.api,
      '/custom-fields',
      customFieldBody({ name: 'roof', label: 'Roof', entity_type: { code: 1 } }),
    );
    const mine = await create(acct.api, '/custom-fields', customFieldBody({ name: 'roof', label: 'Roof' }));
    const res = await acct.api('PUT', `/custom-fields/${mine.uuid}`, { entity_type: { code: 1 } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      message: 'A custom field named "roof" already exists for contacts.',
      errors: { name: ['The name "roof" is already taken.'] },
    });
    const moved = await acct.api('PUT', `/custom-fields/${mine.uuid}`, { entity_type: { code: 1 }, name: 'roof_2' });
    expect(moved.status).toBe(200);
  });

  it('an explicit name must be a lower-case identifier', async () => {
    for (const name of ['Roof', 'roof type', '1roof', '']) {
      const errors = await invalid('POST', '/custom-fields', customFieldBody({ name }));
      expect(Object.keys(errors), name).toEqual(['name']);
    }
  });

  it('type.code must be 1 and entity_type.code 1 or 2', async () => {
    const bad = await invalid(
      'POST',
      '/custom-fields',
      customFieldBody({ type: { code: 2 }, entity_type: { code: 3 } }),
    );
    expect(Object.keys(bad).sort()).toEqual(['entity_type.code', 'type.code']);
    expect(bad['type.code']?.[0]).toContain('1 (Text)');
    expect(Object.keys(await invalid('POST', '/custom-fields', customFieldBody({ type: 1 })))).toEqual(['type']);
    expect(Object.keys(await invalid('POST', '/custom-fields', customFieldBody({ type: {} })))).toEqual(['type.code']);
    expect(
      Object.keys(await invalid('POST', '/custom-fields', customFieldBody({ entity_type: { code: '2' } }))),
    ).toEqual(['entity_type.code']);
    expect(
      Object.keys(
        await invalid('POST', '/custom-fields', customFieldBody({ entity_type: { code: 2, name: 'Contact' } })),
      ),
    ).toEqual(['entity_type.name']);
    expect(
      Object.keys(await invalid('POST', '/custom-fields', customFieldBody({ type: { code: 1, colour: 'x' } }))),
    ).toEqual(['type.colour']);
    // A matching name is accepted.
    await create(server.api, '/custom-fields', customFieldBody({ label: 'Named', type: { code: 1, name: 'Text' } }));
  });

  it('update keeps the name when only the label changes', async () => {
    const { api } = await server.newAccount();
    const f = await create(api, '/custom-fields', customFieldBody({ label: 'Garage Size' }));
    expect(f.name).toBe('garage_size');
    const res = await api('PUT', `/custom-fields/${f.uuid}`, { label: 'Size of Garage' });
    expect(res.body.data).toMatchObject({ name: 'garage_size', label: 'Size of Garage' });
    const renamed = await api('PUT', `/custom-fields/${f.uuid}`, { name: 'garage_area', label: 'Garage Area' });
    expect(renamed.body.data).toMatchObject({ name: 'garage_area', label: 'Garage Area' });
  });
});

describe('custom field values on properties and contacts', () => {
  it('set on create by name or uuid, updated, cleared by null, shown by embed', async () => {
    const acct = await server.newAccount();
    const colour = await create(acct.api, '/custom-fields', customFieldBody({ label: 'Colour' }));
    const roof = await create(acct.api, '/custom-fields', customFieldBody({ label: 'Roof' }));
    const p = await create(
      acct.api,
      '/properties',
      propertyBody({
        custom_fields: [
          { name: 'colour', value: 'red' },
          { uuid: roof.uuid, value: 'slate' },
        ],
      }),
    );
    const embedded = async () =>
      (await acct.api('GET', `/properties/${p.uuid}?embed=custom_fields`)).body.data.custom_fields.data.map(
        (v: { name: string; value: string }) => [v.name, v.value],
      );
    expect(await embedded()).toEqual([
      ['colour', 'red'],
      ['roof', 'slate'],
    ]);
    const upd = await acct.api(
      'PUT',
      `/properties/${p.uuid}`,
      propertyBody({ custom_fields: [{ uuid: colour.uuid, value: 'blue' }] }),
    );
    expect(upd.status).toBe(200);
    expect(await embedded()).toEqual([
      ['colour', 'blue'],
      ['roof', 'slate'],
    ]);
    await acct.api('PUT', `/properties/${p.uuid}`, propertyBody({ custom_fields: [{ name: 'roof', value: null }] }));
    expect(await embedded()).toEqual([['colour', 'blue']]);
    // An empty string is a value, not a clear.
    await acct.api('PUT', `/properties/${p.uuid}`, propertyBody({ custom_fields: [{ name: 'roof', value: '' }] }));
    expect(await embedded()).toEqual([
      ['colour', 'blue'],
      ['roof', ''],
    ]);
  });

  it('refuses fields of the other entity, unknown fields and malformed items, naming the item', async () => {
    const acct = await server.newAccount();
    await create(acct.api, '/custom-fields', customFieldBody({ label: 'Pet', entity_type: { code: 1 } }));
    const errors = await invalid(
      'POST',
      '/properties',
      propertyBody({ custom_fields: [{ name: 'pet', value: 'cat' }] }),
      acct.api,
    );
    expect(Object.keys(errors)).toEqual(['custom_fields.0.name']);
    const shapes = await invalid(
      'POST',
      '/properties',
      propertyBody({
        custom_fields: [
          { value: 'x' },
          { name: 'a', uuid: 'b', value: 'x' },
          { name: 'a' },
          { name: 'a', value: 3 },
          'a',
          { name: 'a', value: 'x', extra: 1 },
          { name: 'a', value: 'v'.repeat(65536) },
        ],
      }),
      acct.api,
    );
    expect(Object.keys(shapes).sort()).toEqual(
      [
        'custom_fields.0',
        'custom_fields.1',
        'custom_fields.2.value',
        'custom_fields.3.value',
        'custom_fields.4',
        'custom_fields.5.extra',
        'custom_fields.6.value',
      ].sort(),
    );
    expect(Object.keys(await invalid('POST', '/properties', propertyBody({ custom_fields: {} }), acct.api))).toEqual([
      'custom_fields',
    ]);
  });

  it('contacts take their own custom fields', async () => {
    const acct = await server.newAccount();
    await create(acct.api, '/custom-fields', customFieldBody({ label: 'Pet', entity_type: { code: 1 } }));
    const c = await create(acct.api, '/contacts', contactBody({ custom_fields: [{ name: 'pet', value: 'dog' }] }));
    expect(await listKeys(acct.api, '/contacts?custom_fields[value]=dog')).toEqual([c.uuid]);
  });

  it('entity_type cannot change while values are stored', async () => {
    const acct = await server.newAccount();
    const f = await create(acct.api, '/custom-fields', customFieldBody({ label: 'Colour' }));
    await create(acct.api, '/properties', propertyBody({ custom_fields: [{ name: 'colour', value: 'red' }] }));
    const errors = await invalid('PUT', `/custom-fields/${f.uuid}`, { entity_type: { code: 1 } }, acct.api);
    expect(Object.keys(errors)).toEqual(['entity_type']);
    const unused = await create(acct.api, '/custom-fields', customFieldBody({ label: 'Unused' }));
    const moved = await acct.api('PUT', `/custom-fields/${unused.uuid}`, { entity_type: { code: 1 } });
    expect(moved.body.data.entity_type).toEqual({ code: 1, name: 'Contact' });
  });
});

describe('property create with a contact', () => {
  it('links the one contact named by uuid or by email (any case)', async () => {
    const acct = await server.newAccount();
    const c = await create(acct.api, '/contacts', contactBody({ email: 'owner@example.com' }));
    const byUuid = await acct.api('POST', '/properties', propertyBody({ contact: { uuid: c.uuid } }));
    expect(byUuid.status).toBe(201);
    expect(byUuid.body.data.contact).toBeUndefined();
    const byEmail = await acct.api('POST', '/properties', propertyBody({ contact: { email: 'OWNER@example.com' } }));
    expect(byEmail.status).toBe(201);
    const withNull = await acct.api('POST', '/properties', propertyBody({ contact: null }));
    expect(withNull.status).toBe(201);
  });

  it('is 422 when no contact or more than one matches, or the filter is malformed', async () => {
    const acct = await server.newAccount();
    await create(acct.api, '/contacts', contactBody({ email: 'twin@example.com' }));
    await create(acct.api, '/contacts', contactBody({ email: 'twin@example.com' }));
    const none = await invalid('POST', '/properties', propertyBody({ contact: { email: 'x@y.z' } }), acct.api);
    expect(none.contact?.[0]).toContain('x@y.z');
    const many = await invalid(
      'POST',
      '/properties',
      propertyBody({ contact: { email: 'twin@example.com' } }),
      acct.api,
    );
    expect(many.contact?.[0]).toContain('uuid');
    for (const contact of [{ name: 'Ada' }, { uuid: 'a', email: 'b' }, 'x', [], { uuid: 1 }])
      expect(Object.keys(await invalid('POST', '/properties', propertyBody({ contact }), acct.api))).toEqual([
        'contact',
      ]);
  });

  it("another account's contact does not match", async () => {
    const c = await create((await server.newAccount()).api, '/contacts', contactBody({ email: 'mine@example.com' }));
    const acct = await server.newAccount();
    await invalid('POST', '/properties', propertyBody({ contact: { uuid: c.uuid } }), acct.api);
    await invalid('POST', '/properties', propertyBody({ contact: { email: 'mine@example.com' } }), acct.api);
  });
});

describe('reminders', () => {
  it('a date due_at is all day (anytime true) and is returned as a date', async () => {
    const r = await create(server.api, '/reminders', reminderBody({ due_at: '2026-12-01' }));
    expect(r).toMatchObject({ due_at: '2026-12-01', anytime: true });
    expect((await server.api('GET', `/reminders/${r.uuid}`)).body.data.due_at).toBe('2026-12-01');
  });

  it('a datetime due_at is converted to UTC and is not all day unless anytime says so', async () => {
    const r = await create(server.api, '/reminders', reminderBody({ due_at: '2026-12-01T09:30:00+05:30' }));
    expect(r).toMatchObject({ due_at: '2026-12-01T04:00:00+00:00', anytime: false });
    const z = await create(server.api, '/reminders', reminderBody({ due_at: '2026-12-01T09:30Z', anytime: true }));
    expect(z).toMatchObject({ due_at: '2026-12-01T09:30:00+00:00', anytime: true });
    const local = await create(server.api, '/reminders', reminderBody({ due_at: '2026-12-01T09:30:00' }));
    expect(local.due_at).toBe('2026-12-01T09:30:00+00:00');
  });

  it('anytime false with a date is a contradiction: 422', async () => {
    const errors = await invalid('POST', '/reminders', reminderBody({ due_at: '2026-12-01', anytime: false }));
    expect(Object.keys(errors)).toEqual(['anytime']);
  });

  it('anytime cannot be set false on a reminder whose due_at is a date, unless a time is given', async () => {
    const r = await create(server.api, '/reminders', reminderBody({ due_at: '2026-12-01' }));
    const errors = await invalid('PUT', `/reminders/${r.uuid}`, { anytime: false });
    expect(Object.keys(errors)).toEqual(['anytime']);
    expect((await server.api('GET', `/reminders/${r.uuid}`)).body.data).toMatchObject({
      due_at: '2026-12-01',
      anytime: true,
    });
    const timed = await server.api('PUT', `/reminders/${r.uuid}`, { anytime: false, due_at: '2026-12-01T09:00:00Z' });
    expect(timed.body.data).toMatchObject({ due_at: '2026-12-01T09:00:00+00:00', anytime: false });
    // A timed reminder may be marked all day, and back.
    expect((await server.api('PUT', `/reminders/${r.uuid}`, { anytime: true })).body.data.anytime).toBe(true);
    expect((await server.api('PUT', `/reminders/${r.uuid}`, { anytime: false })).body.data.anytime).toBe(false);
  });

  it('bad due_at values are 422', async () => {
    for (const due_at of ['tomorrow', '2026-02-30', '2026-12-01T25:00', 20261201, '12/01/2026']) {
      const errors = await invalid('POST', '/reminders', reminderBody({ due_at }));
      expect(Object.keys(errors), String(due_at)).toEqual(['due_at']);
    }
  });

  it('switching due_at between date and datetime on update moves anytime with it; null clears', async () => {
    const r = await create(server.api, '/reminders', reminderBody({ due_at: '2026-12-01' }));
    const timed = await server.api('PUT', `/reminders/${r.uuid}`, { due_at: '2026-12-02T08:00:00Z' });
    expect(timed.body.data).toMatchObject({ due_at: '2026-12-02T08:00:00+00:00', anytime: false });
    const dated = await server.api('PUT', `/reminders/${r.uuid}`, { due_at: '2026-12-03' });
    expect(dated.body.data).toMatchObject({ due_at: '2026-12-03', anytime: true });
    const cleared = await server.api('PUT', `/reminders/${r.uuid}`, { due_at: null });
    expect(cleared.body.data.due_at).toBeNull();
  });
});

describe('cascades and live counts', () => {
  it('deleting a property deletes its notes and custom values; num_notes is live', async () => {
    const acct = await server.newAccount();
    await create(acct.api, '/custom-fields', customFieldBody({ label: 'Colour' }));
    const p = await create(
      acct.api,
      '/properties',
      propertyBody({ custom_fields: [{ name: 'colour', value: 'red' }] }),
    );
    const keep = await create(acct.api, '/properties', propertyBody());
    const notes = [];
    for (const content of ['a', 'b', 'c'])
      notes.push(await create(acct.api, `/properties/${p.uuid}/notes`, { content }));
    const kept = await create(acct.api, `/properties/${keep.uuid}/notes`, { content: 'kept' });
    expect((await acct.api('GET', `/properties/${p.uuid}`)).body.data.num_notes).toBe(3);
    expect((await acct.api('GET', `/properties?uuid=${p.uuid}`)).body.data[0].num_notes).toBe(3);
    await acct.api('DELETE', `/notes/${notes[0].uuid}`);
    expect((await acct.api('GET', `/properties/${p.uuid}`)).body.data.num_notes).toBe(2);

    expect((await acct.api('DELETE', `/properties/${p.uuid}`)).status).toBe(204);
    expect(await listKeys(acct.api, '/notes')).toEqual([kept.uuid]);
    expect((await acct.api('GET', `/notes/${notes[1].uuid}`)).status).toBe(404);
    expect(await listKeys(acct.api, '/properties?custom_fields[value]=red')).toEqual([]);
    const [left] = await server.sql(
      'SELECT COUNT(*) AS n FROM custom_values v JOIN custom_fields f ON f.id = v.field_id WHERE f.account_id = ?',
      [acct.accountId],
    );
    expect(Number(left?.n)).toBe(0);
  });

  it('deleting a contact deletes its notes', async () => {
    const acct = await server.newAccount();
    const c = await create(acct.api, '/contacts', contactBody());
    await create(acct.api, `/contacts/${c.uuid}/notes`, { content: 'x' });
    expect((await acct.api('GET', `/contacts/${c.uuid}`)).body.data.num_notes).toBe(1);
    await acct.api('DELETE', `/contacts/${c.uuid}`);
    expect((await acct.api('GET', '/notes')).body.data).toEqual([]);
  });

  it('deleting a contact keeps the properties it was linked to', async () => {
    const acct = await server.newAccount();
    const c = await create(acct.api, '/contacts', contactBody());
    const p = await create(acct.api, '/properties', propertyBody({ contact: { uuid: c.uuid } }));
    await acct.api('DELETE', `/contacts/${c.uuid}`);
    expect((await acct.api('GET', `/properties/${p.uuid}`)).status).toBe(200);
  });

  it('deleting a custom field deletes its values', async () => {
    const acct = await server.newAccount();
    const f = await create(acct.api, '/custom-fields', customFieldBody({ label: 'Colour' }));
    await create(acct.api, '/custom-fields', customFieldBody({ label: 'Roof' }));
    const p = await create(
      acct.api,
      '/properties',
      propertyBody({
        custom_fields: [
          { name: 'colour', value: 'red' },
          { name: 'roof', value: 'slate' },
        ],
      }),
    );
    expect((await acct.api('DELETE', `/custom-fields/${f.uuid}`)).status).toBe(204);
    const got = await acct.api('GET', `/properties/${p.uuid}?embed=custom_fields`);
    expect(got.body.data.custom_fields.data.map((v: { name: string }) => v.name)).toEqual(['roof']);
    expect(await listKeys(acct.api, '/properties?custom_fields[value]=red')).toEqual([]);
    // A new field with the old name starts empty.
    await create(acct.api, '/custom-fields', customFieldBody({ label: 'Colour' }));
    expect(await listKeys(acct.api, '/properties?custom_fields[name]=colour')).toEqual([]);
  });
});
