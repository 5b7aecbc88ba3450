/** List filters of every kind except datetime (see datetime-filters.test.ts), relational filters, embeds. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';
import { contactBody, create, customFieldBody, listKeys, propertyBody, reminderBody } from './fixtures.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
});
afterAll(() => server.close());

/** An account holding three properties that differ in every filterable field. */
async function threeProperties(acct: Account) {
  const a = await create(
    acct.api,
    '/properties',
    propertyBody({
      address: '10 Downing Street',
      address2: 'Westminster',
      city: 'London',
      county: 'Greater London',
      postcode: 'SW1A 2AA',
      type: 'House',
      bedrooms: 4,
      bathrooms: 2,
      has_garage: false,
      has_garden: true,
      has_parking: true,
    }),
  );
  const b = await create(
    acct.api,
    '/properties',
    propertyBody({
      address: '1 Park Row',
      city: 'Leeds',
      county: 'West Yorkshire',
      postcode: 'LS1 5AB',
      type: 'Apartment',
      bedrooms: 2,
      bathrooms: 1,
      has_garage: true,
    }),
  );
  const c = await create(
    acct.api,
    '/properties',
    propertyBody({ address: '5 Mill Lane', city: 'Leeds', postcode: 'LS6 2QQ', type: 'house', bedrooms: 0 }),
  );
  return { a: a.uuid as string, b: b.uuid as string, c: c.uuid as string };
}

describe('exact and arrayable filters', () => {
  it('uuid= is exact, in any case; uuid[]= is any of; an unknown uuid matches nothing', async () => {
    const acct = await server.newAccount();
    const { a, b, c } = await threeProperties(acct);
    expect(await listKeys(acct.api, `/properties?uuid=${b}`)).toEqual([b]);
    expect(await listKeys(acct.api, `/properties?uuid[]=${a}&uuid[]=${c}`)).toEqual([a, c]);
    expect(await listKeys(acct.api, `/properties?uuid[]=${c}`)).toEqual([c]);
    expect(await listKeys(acct.api, `/properties?uuid=${b.slice(0, 8)}`)).toEqual([]);
    expect(await listKeys(acct.api, `/properties?uuid=${b.toUpperCase()}`)).toEqual([b]);
  });

  it('uuid given twice without [] is 400', async () => {
    const res = await server.api('GET', '/properties?uuid=a&uuid=b');
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('uuid[]');
  });

  it('integer filters: exact value, int[] any of, non-integers 400', async () => {
    const acct = await server.newAccount();
    const { a, b, c } = await threeProperties(acct);
    expect(await listKeys(acct.api, '/properties?bedrooms=2')).toEqual([b]);
    expect(await listKeys(acct.api, '/properties?bedrooms=0')).toEqual([c]);
    expect(await listKeys(acct.api, '/properties?bedrooms[]=4&bedrooms[]=0')).toEqual([a, c]);
    expect(await listKeys(acct.api, '/properties?bedrooms=3')).toEqual([]);
    expect(await listKeys(acct.api, '/properties?bathrooms=1&bedrooms=2')).toEqual([b]);
    for (const bad of ['two', '2.5', '', '1e3']) {
      const res = await acct.api('GET', `/properties?bedrooms=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.message).toContain('bedrooms');
    }
  });

  it('custom field type and entity_type filter by code', async () => {
    const acct = await server.newAccount();
    const p = await create(acct.api, '/custom-fields', customFieldBody({ label: 'Roof' }));
    const c = await create(acct.api, '/custom-fields', customFieldBody({ label: 'Pet', entity_type: { code: 1 } }));
    expect(await listKeys(acct.api, '/custom-fields?entity_type=2')).toEqual([p.uuid]);
    expect(await listKeys(acct.api, '/custom-fields?entity_type=1')).toEqual([c.uuid]);
    expect(await listKeys(acct.api, '/custom-fields?entity_type[]=1&entity_type[]=2')).toEqual([p.uuid, c.uuid]);
    expect(await listKeys(acct.api, '/custom-fields?type=1')).toEqual([p.uuid, c.uuid]);
    expect(await listKeys(acct.api, '/custom-fields?label=pe')).toEqual([c.uuid]);
    expect(await listKeys(acct.api, '/custom-fields?name=roof')).toEqual([p.uuid]);
  });
});

describe('boolean filters', () => {
  it('true/false/1/0 (any case) select; anything else is 400', async () => {
    const acct = await server.newAccount();
    const { a, b, c } = await threeProperties(acct);
    expect(await listKeys(acct.api, '/properties?has_garage=true')).toEqual([b]);
    expect(await listKeys(acct.api, '/properties?has_garage=1')).toEqual([b]);
    expect(await listKeys(acct.api, '/properties?has_garage=TRUE')).toEqual([b]);
    expect(await listKeys(acct.api, '/properties?has_garage=false')).toEqual([a, c]);
    expect(await listKeys(acct.api, '/properties?has_garage=0')).toEqual([a, c]);
    expect(await listKeys(acct.api, '/properties?has_garden=1&has_parking=1')).toEqual([a]);
    for (const bad of ['yes', 'no', '2', '', 'tru']) {
      const res = await acct.api('GET', `/properties?has_garage=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.message).toContain('has_garage');
    }
    expect((await acct.api('GET', '/properties?has_garage[]=1')).status).toBe(400);
  });

  it('reminders filter on anytime', async () => {
    const acct = await server.newAccount();
    const day = await create(acct.api, '/reminders', reminderBody({ due_at: '2026-05-01' }));
    const timed = await create(acct.api, '/reminders', reminderBody({ due_at: '2026-05-01T10:00:00Z' }));
    expect(await listKeys(acct.api, '/reminders?anytime=true')).toEqual([day.uuid]);
    expect(await listKeys(acct.api, '/reminders?anytime=false')).toEqual([timed.uuid]);
  });
});

describe('fuzzy filters', () => {
  it('are case-insensitive substrings on every string field', async () => {
    const acct = await server.newAccount();
    const { a, b, c } = await threeProperties(acct);
    expect(await listKeys(acct.api, '/properties?city=leeds')).toEqual([b, c]);
    expect(await listKeys(acct.api, '/properties?city=EED')).toEqual([b, c]);
    expect(await listKeys(acct.api, '/properties?address=downing')).toEqual([a]);
    expect(await listKeys(acct.api, '/properties?address2=minster')).toEqual([a]);
    expect(await listKeys(acct.api, '/properties?county=york')).toEqual([b]);
    expect(await listKeys(acct.api, '/properties?type=house')).toEqual([a, c]);
    expect(await listKeys(acct.api, '/properties?city=leeds&type=apart')).toEqual([b]);
    expect(await listKeys(acct.api, '/properties?city=paris')).toEqual([]);
    expect(await listKeys(acct.api, `/properties?address=${encodeURIComponent('1 park')}`)).toEqual([b]);
  });

  it('fold case beyond ASCII, and treat % and _ literally', async () => {
    const acct = await server.newAccount();
    const u = await create(acct.api, '/properties', propertyBody({ city: 'Überlingen' }));
    const pct = await create(acct.api, '/properties', propertyBody({ city: '100% Ltd_x' }));
    expect(await listKeys(acct.api, `/properties?city=${encodeURIComponent('überl')}`)).toEqual([u.uuid]);
    expect(await listKeys(acct.api, `/properties?city=${encodeURIComponent('ÜBERL')}`)).toEqual([u.uuid]);
    expect(await listKeys(acct.api, `/properties?city=${encodeURIComponent('%')}`)).toEqual([pct.uuid]);
    expect(await listKeys(acct.api, `/properties?city=${encodeURIComponent('d_x')}`)).toEqual([pct.uuid]);
  });

  it('null values never match a fuzzy filter', async () => {
    const acct = await server.newAccount();
    await create(acct.api, '/properties', propertyBody());
    expect(await listKeys(acct.api, '/properties?address2=a')).toEqual([]);
  });

  it('an empty fuzzy value is 400', async () => {
    const res = await server.api('GET', '/properties?city=');
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('city');
  });

  it('a fuzzy filter given twice is 400, and [] is refused', async () => {
    expect((await server.api('GET', '/properties?city=a&city=b')).status).toBe(400);
    expect((await server.api('GET', '/properties?city[]=a')).status).toBe(400);
  });

  it('postcode ignores spaces on both sides and case', async () => {
    const acct = await server.newAccount();
    const { a, b, c } = await threeProperties(acct);
    expect(await listKeys(acct.api, '/properties?postcode=sw1a2aa')).toEqual([a]);
    expect(await listKeys(acct.api, '/properties?postcode=SW1A%202AA')).toEqual([a]);
    expect(await listKeys(acct.api, '/properties?postcode=s%20w%201')).toEqual([a]);
    expect(await listKeys(acct.api, '/properties?postcode=ls')).toEqual([b, c]);
    expect(await listKeys(acct.api, '/properties?postcode=1%205a')).toEqual([b]);
    expect(await listKeys(acct.api, '/properties?postcode=62q')).toEqual([c]);
  });

  it('contacts: every string field is fuzzy, postcode ignores spaces', async () => {
    const acct = await server.newAccount();
    const x = await create(
      acct.api,
      '/contacts',
      contactBody({ contact_number: '0113 496 0000', company: 'Acme Ltd', postcode: 'SW1A 1AA', county: 'Kent' }),
    );
    const y = await create(acct.api, '/contacts', contactBody({ name: 'Charles Babbage', email: 'cb@engines.org' }));
    expect(await listKeys(acct.api, '/contacts?name=babb')).toEqual([y.uuid]);
    expect(await listKeys(acct.api, '/contacts?email=EXAMPLE.com')).toEqual([x.uuid]);
    expect(await listKeys(acct.api, '/contacts?email=%40engines')).toEqual([y.uuid]);
    expect(await listKeys(acct.api, '/contacts?company=acme')).toEqual([x.uuid]);
    expect(await listKeys(acct.api, '/contacts?contact_number=496')).toEqual([x.uuid]);
    expect(await listKeys(acct.api, '/contacts?county=kent')).toEqual([x.uuid]);
    expect(await listKeys(acct.api, '/contacts?postcode=sw1a1aa')).toEqual([x.uuid]);
  });

  it('notes content and reminders title are fuzzy', async () => {
    const acct = await server.newAccount();
    const p = await create(acct.api, '/properties', propertyBody());
    const n1 = await create(acct.api, `/properties/${p.uuid}/notes`, { content: 'Boiler serviced' });
    await create(acct.api, `/properties/${p.uuid}/notes`, { content: 'Gutter cleared' });
    expect(await listKeys(acct.api, '/notes?content=BOILER')).toEqual([n1.uuid]);
    const r1 = await create(acct.api, '/reminders', reminderBody({ title: 'Gas safety check' }));
    await create(acct.api, '/reminders', reminderBody({ title: 'Rent review' }));
    expect(await listKeys(acct.api, '/reminders?title=safety')).toEqual([r1.uuid]);
  });
});

describe('relational filters on /notes', () => {
  async function setup(acct: Account) {
    const leeds = await create(acct.api, '/properties', propertyBody({ city: 'Leeds' }));
    const york = await create(acct.api, '/properties', propertyBody({ city: 'York', bedrooms: 5 }));
    const acme = await create(acct.api, '/contacts', contactBody({ email: 'jo@acme.com' }));
    const other = await create(acct.api, '/contacts', contactBody({ email: 'al@other.org' }));
    const n1 = await create(acct.api, `/properties/${leeds.uuid}/notes`, { content: 'leeds note' });
    const n2 = await create(acct.api, `/properties/${york.uuid}/notes`, { content: 'york note' });
    const n3 = await create(acct.api, `/contacts/${acme.uuid}/notes`, { content: 'acme note' });
    const n4 = await create(acct.api, `/contacts/${other.uuid}/notes`, { content: 'other note' });
    return { leeds, york, acme, other, n: [n1.uuid, n2.uuid, n3.uuid, n4.uuid] };
  }

  it('property[uuid], property[city], property[bedrooms], contact[email], contact[uuid][]', async () => {
    const acct = await server.newAccount();
    const { leeds, york, acme, other, n } = await setup(acct);
    expect(await listKeys(acct.api, `/notes?property[uuid]=${leeds.uuid}`)).toEqual([n[0]]);
    expect(await listKeys(acct.api, `/notes?property[uuid][]=${leeds.uuid}&property[uuid][]=${york.uuid}`)).toEqual([
      n[0],
      n[1],
    ]);
    expect(await listKeys(acct.api, '/notes?property[city]=york')).toEqual([n[1]]);
    expect(await listKeys(acct.api, '/notes?property[bedrooms]=5')).toEqual([n[1]]);
    expect(await listKeys(acct.api, '/notes?property[city]=le&property[bedrooms]=0')).toEqual([n[0]]);
    expect(await listKeys(acct.api, '/notes?contact[email]=%40acme')).toEqual([n[2]]);
    expect(await listKeys(acct.api, `/notes?contact[uuid][]=${acme.uuid}&contact[uuid][]=${other.uuid}`)).toEqual([
      n[2],
      n[3],
    ]);
    expect(await listKeys(acct.api, '/notes?property[city]=paris')).toEqual([]);
    // Both relations at once: a note has one parent, so nothing matches both.
    expect(await listKeys(acct.api, `/notes?property[uuid]=${leeds.uuid}&contact[uuid]=${acme.uuid}`)).toEqual([]);
    // Combined with the note's own filter.
    expect(await listKeys(acct.api, '/notes?property[bedrooms]=0&content=leeds')).toEqual([n[0]]);
    expect(await listKeys(acct.api, '/notes?property[bedrooms]=0&content=york')).toEqual([]);
  });

  it('an unknown inner filter, a bad inner value, or a bare relation name is 400', async () => {
    for (const q of ['property[colour]=red', 'property[bedrooms]=many', 'property=x', 'contact[has_garage]=1']) {
      const res = await server.api('GET', `/notes?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.message).toBeTruthy();
    }
  });

  it('relational filters are not offered where the description has none', async () => {
    expect((await server.api('GET', '/properties?contact[city]=x')).status).toBe(400);
    expect((await server.api('GET', '/statuses?property[city]=x')).status).toBe(400);
  });
});

describe('custom_fields relational filter', () => {
  async function setup(acct: Account) {
    await create(acct.api, '/custom-fields', customFieldBody({ label: 'Colour' }));
    await create(acct.api, '/custom-fields', customFieldBody({ label: 'Roof' }));
    await create(acct.api, '/custom-fields', customFieldBody({ label: 'Colour', entity_type: { code: 1 } }));
    const red = await create(
      acct.api,
      '/properties',
      propertyBody({
        custom_fields: [
          { name: 'colour', value: 'Dark Red' },
          { name: 'roof', value: 'slate' },
        ],
      }),
    );
    const blue = await create(
      acct.api,
      '/properties',
      propertyBody({ custom_fields: [{ name: 'roof', value: 'red tiles' }] }),
    );
    const none = await create(acct.api, '/properties', propertyBody());
    const contact = await create(
      acct.api,
      '/contacts',
      contactBody({ custom_fields: [{ name: 'colour', value: 'red' }] }),
    );
    return { red: red.uuid, blue: blue.uuid, none: none.uuid, contact: contact.uuid };
  }

  it('[name] with [value] matches that field only; [value] alone any field; [name] alone any value', async () => {
    const acct = await server.newAccount();
    const { red, blue, contact } = await setup(acct);
    expect(await listKeys(acct.api, '/properties?custom_fields[name]=colour&custom_fields[value]=RED')).toEqual([red]);
    expect(await listKeys(acct.api, '/properties?custom_fields[name]=roof&custom_fields[value]=red')).toEqual([blue]);
    expect(await listKeys(acct.api, '/properties?custom_fields[value]=red')).toEqual([red, blue]);
    expect(await listKeys(acct.api, '/properties?custom_fields[name]=colour')).toEqual([red]);
    expect(await listKeys(acct.api, '/properties?custom_fields[value]=green')).toEqual([]);
    // Contact custom fields are separate from property ones with the same name.
    expect(await listKeys(acct.api, '/contacts?custom_fields[name]=colour&custom_fields[value]=red')).toEqual([
      contact,
    ]);
    expect(await listKeys(acct.api, '/contacts?custom_fields[name]=roof')).toEqual([]);
  });

  it('custom_fields[uuid] names the field by uuid', async () => {
    const acct = await server.newAccount();
    const { red, blue } = await setup(acct);
    const fields = (await acct.api('GET', '/custom-fields?name=roof&entity_type=2')).body.data;
    expect(fields).toHaveLength(1);
    const q = `/properties?custom_fields[uuid]=${fields[0].uuid}&custom_fields[value]=tiles`;
    expect(await listKeys(acct.api, q)).toEqual([blue]);
    const colour = (await acct.api('GET', '/custom-fields?name=colour&entity_type=2')).body.data[0].uuid;
    const roof = fields[0].uuid;
    // custom_fields[uuid][] is any of; custom_fields[uuid] and custom_fields[uuid][] together add up.
    const anyOf = `custom_fields[uuid][]=${colour}&custom_fields[uuid][]=${roof}&custom_fields[value]=red`;
    expect(await listKeys(acct.api, `/properties?${anyOf}`)).toEqual([red, blue]);
    const mixed = `custom_fields[uuid]=${colour}&custom_fields[uuid][]=${roof}&custom_fields[value]=red`;
    expect(await listKeys(acct.api, `/properties?${mixed}`)).toEqual([red, blue]);
    const twice = await acct.api('GET', `/properties?custom_fields[uuid]=${colour}&custom_fields[uuid]=${roof}`);
    expect(twice.status).toBe(400);
    expect(twice.body.message).toContain('custom_fields[uuid][]');
  });

  it('value at top level is 400 saying where it belongs; unknown custom_fields keys are 400', async () => {
    const res = await server.api('GET', '/properties?value=red');
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('custom_fields[value]');
    for (const q of ['custom_fields[label]=x', 'custom_fields[value]=', 'custom_fields=x']) {
      expect((await server.api('GET', `/properties?${q}`)).status, q).toBe(400);
    }
    expect((await server.api('GET', '/custom-fields?value=red')).status).toBe(400);
    expect((await server.api('GET', '/reminders?custom_fields[value]=red')).status).toBe(400);
  });
});

describe('unknown parameters', () => {
  it.each([
    ['/properties', 'citty=leeds'],
    ['/properties', 'num_notes=1'],
    ['/contacts', 'bedrooms=1'],
    ['/notes', 'title=x'],
    ['/reminders', 'embed=custom_fields'],
    ['/custom-fields', 'foo'],
    ['/properties', 'City=leeds'],
  ])('%s?%s is 400 naming the parameter and listing what is accepted', async (path, q) => {
    const res = await server.api('GET', `${path}?${q}`);
    expect(res.status).toBe(400);
    const name = q.split('=')[0] as string;
    expect(res.body.message).toContain(name);
  });

  it('the message lists the accepted parameters', async () => {
    const res = await server.api('GET', '/properties?citty=leeds');
    expect(res.body.message).toContain('city');
    expect(res.body.message).toContain('per_page');
  });
});

describe('embed=custom_fields', () => {
  it('on list and get: {"custom_fields": {"data": [{uuid, name, label, value}]}}; absent without embed', async () => {
    const acct = await server.newAccount();
    const field = await create(acct.api, '/custom-fields', customFieldBody({ label: 'Favourite Colour' }));
    const p = await create(
      acct.api,
      '/properties',
      propertyBody({ custom_fields: [{ uuid: field.uuid, value: 'green' }] }),
    );
    const bare = await create(acct.api, '/properties', propertyBody());
    expect(p.custom_fields).toBeUndefined();
    const expected = {
      data: [{ uuid: field.uuid, name: 'favourite_colour', label: 'Favourite Colour', value: 'green' }],
    };
    const one = await acct.api('GET', `/properties/${p.uuid}?embed=custom_fields`);
    expect(one.status).toBe(200);
    expect(one.body.data.custom_fields).toEqual(expected);
    const list = await acct.api('GET', '/properties?embed=custom_fields');
    expect(list.status).toBe(200);
    expect(list.body.data.map((r: { custom_fields: unknown }) => r.custom_fields)).toEqual([expected, { data: [] }]);
    expect((await acct.api('GET', `/properties/${bare.uuid}`)).body.data.custom_fields).toBeUndefined();
    expect((await acct.api('GET', '/properties')).body.data[0].custom_fields).toBeUndefined();
  });

  it('on contacts too', async () => {
    const acct = await server.newAccount();
    await create(acct.api, '/custom-fields', customFieldBody({ label: 'Pet', entity_type: { code: 1 } }));
    const c = await create(acct.api, '/contacts', contactBody({ custom_fields: [{ name: 'pet', value: 'cat' }] }));
    const res = await acct.api('GET', `/contacts/${c.uuid}?embed=custom_fields`);
    expect(res.body.data.custom_fields.data).toEqual([expect.objectContaining({ name: 'pet', value: 'cat' })]);
  });

  it('an unknown embed is 400 on list and get, naming it', async () => {
    const p = await create(server.api, '/properties', propertyBody());
    for (const path of ['/properties?embed=attachments', `/properties/${p.uuid}?embed=custom_fields,owner`]) {
      const res = await server.api('GET', path);
      expect(res.status, path).toBe(400);
      expect(res.body.message).toMatch(/attachments|owner/);
    }
    expect((await server.api('GET', '/notes?embed=custom_fields')).status).toBe(400);
  });
});

describe('embed=contact', () => {
  it("returns a property's contact, or null, on list and get", async () => {
    const c = await create(server.api, '/contacts', { name: 'Cara', email: 'cara@embed.test' });
    const withContact = await create(server.api, '/properties', {
      ...propertyBody(),
      contact: { email: 'cara@embed.test' },
    });
    const without = await create(server.api, '/properties', propertyBody());
    const one = await server.api('GET', `/properties/${withContact.uuid}?embed=contact`);
    expect(one.body.data.contact).toEqual({ data: { uuid: c.uuid, email: 'cara@embed.test', name: 'Cara' } });
    const list = await server.api(
      'GET',
      `/properties?embed=contact,custom_fields&uuid[]=${withContact.uuid}&uuid[]=${without.uuid}`,
    );
    expect(list.body.data.map((p: { contact: unknown }) => p.contact)).toEqual([
      { data: { uuid: c.uuid, email: 'cara@embed.test', name: 'Cara' } },
      { data: null },
    ]);
    expect(list.body.data[0].custom_fields).toEqual({ data: [] });
    await server.api('DELETE', `/contacts/${c.uuid}`);
    const after = await server.api('GET', `/properties/${withContact.uuid}?embed=contact`);
    expect(after.body.data.contact).toEqual({ data: null });
  });
});

describe('query limits', () => {
  it('more than 64 query parameters is 400', async () => {
    const q = Array.from({ length: 65 }, (_, i) => `uuid[]=${i}`).join('&');
    const res = await server.api('GET', `/properties?${q}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/64/);
    expect((await server.api('GET', `/properties?${q.split('&').slice(0, 64).join('&')}`)).status).toBe(200);
  });

  it('a value over 1024 characters is 400; a text filter over 128', async () => {
    const res = await server.api('GET', `/properties?uuid=${'a'.repeat(1025)}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/1024/);
    expect((await server.api('GET', `/properties?uuid=${'a'.repeat(1024)}`)).status).toBe(200);
    const search = await server.api('GET', `/properties?city=${'a'.repeat(129)}`);
    expect(search.status).toBe(400);
    expect(search.body.message).toBe('The value of city is too long to search for: at most 128 characters.');
    expect((await server.api('GET', `/properties?city=${'a'.repeat(128)}`)).status).toBe(200);
  });
});
