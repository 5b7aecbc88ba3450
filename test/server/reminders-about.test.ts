/**
 * Reminders about a property or a contact, done, and repeating (ours: docs/api.md, "Reminders and
 * certificates"), over real HTTP, on either store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { contactBody, create, listKeys, propertyBody, reminderBody } from './fixtures.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('a reminder about a property or a contact', () => {
  it('is linked by uuid on create and update, embedded, and cleared by null', async () => {
    const { api } = await server.newAccount();
    const p = await create(api, '/properties', propertyBody({ address: '1 High St' }));
    const c = await create(api, '/contacts', contactBody({ email: 'gas@fixit.test' }));
    const r = await create(
      api,
      '/reminders',
      reminderBody({ property: { uuid: p.uuid }, contact: { email: 'GAS@fixit.test' } }),
    );
    const got = await api('GET', `/reminders/${r.uuid}?embed=property,contact`);
    expect(got.body.data.property).toEqual({ data: { uuid: p.uuid, address: '1 High St', postcode: 'LS1 1AA' } });
    expect(got.body.data.contact.data.uuid).toBe(c.uuid);
    const cleared = await api('PUT', `/reminders/${r.uuid}`, { property: null });
    expect(cleared.status).toBe(200);
    expect((await api('GET', `/reminders/${r.uuid}?embed=property,contact`)).body.data).toMatchObject({
      property: { data: null },
      contact: { data: { uuid: c.uuid } },
    });
    const missing = await api(
      'POST',
      '/reminders',
      reminderBody({ property: { uuid: '00000000-0000-4000-8000-000000000000' } }),
    );
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors)).toEqual(['property']);
  });

  it("is listed by its property's or contact's own filters", async () => {
    const { api } = await server.newAccount();
    const leeds = await create(api, '/properties', propertyBody({ city: 'Leeds', bedrooms: 3 }));
    const york = await create(api, '/properties', propertyBody({ city: 'York' }));
    const c = await create(api, '/contacts', contactBody({ email: 'eng@acme.test' }));
    const a = await create(api, '/reminders', reminderBody({ title: 'a', property: { uuid: leeds.uuid } }));
    await create(api, '/reminders', reminderBody({ title: 'b', property: { uuid: york.uuid } }));
    const d = await create(api, '/reminders', reminderBody({ title: 'c', contact: { uuid: c.uuid } }));
    expect(await listKeys(api, '/reminders?property[city]=leeds', 'title')).toEqual(['a']);
    expect(await listKeys(api, '/reminders?property[city]=leeds&property[bedrooms]=3')).toEqual([a.uuid]);
    expect(await listKeys(api, `/reminders?property[uuid]=${york.uuid}`, 'title')).toEqual(['b']);
    expect(await listKeys(api, '/reminders?contact[email]=acme')).toEqual([d.uuid]);
    expect((await api('GET', '/reminders?property[nope]=1')).status).toBe(400);
  });

  it('outlives its property: deleting the property keeps the reminder, its link cleared', async () => {
    const { api } = await server.newAccount();
    const p = await create(api, '/properties', propertyBody());
    const r = await create(api, '/reminders', reminderBody({ property: { uuid: p.uuid } }));
    expect((await api('DELETE', `/properties/${p.uuid}`)).status).toBe(204);
    const after = await api('GET', `/reminders/${r.uuid}?embed=property`);
    expect(after.status).toBe(200);
    expect(after.body.data.property).toEqual({ data: null });
  });
});

describe('done', () => {
  it('is a time or null, filtered by done=true|false', async () => {
    const { api } = await server.newAccount();
    const a = await create(api, '/reminders', reminderBody({ title: 'a', due_at: '2026-03-01' }));
    await create(api, '/reminders', reminderBody({ title: 'b', due_at: '2026-03-02' }));
    const done = await api('PUT', `/reminders/${a.uuid}`, { done_at: '2026-02-27T16:00:00Z' });
    expect(done.body.data).toMatchObject({ done_at: '2026-02-27T16:00:00+00:00', done: true, due_at: '2026-03-01' });
    expect(await listKeys(api, '/reminders?done=true', 'title')).toEqual(['a']);
    expect(await listKeys(api, '/reminders?done=false', 'title')).toEqual(['b']);
    const undone = await api('PUT', `/reminders/${a.uuid}`, { done_at: null });
    expect(undone.body.data).toMatchObject({ done_at: null, done: false });
    expect((await api('PUT', `/reminders/${a.uuid}`, { done_at: 'soon' })).body.errors).toHaveProperty('done_at');
    expect((await api('PUT', `/reminders/${a.uuid}`, { done: true })).status).toBe(422);
  });
});

describe('repeat', () => {
  it('done late, a yearly reminder moves on a year from its due date, not from when it was done', async () => {
    const { api } = await server.newAccount();
    const r = await create(
      api,
      '/reminders',
      reminderBody({ title: 'Gas safety', due_at: '2026-03-01T09:30:00Z', repeat: 'P1Y' }),
    );
    const done = await api('PUT', `/reminders/${r.uuid}`, { done_at: '2026-03-20T17:00:00Z' });
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({
      due_at: '2027-03-01T09:30:00+00:00',
      anytime: false,
      done_at: null,
      done: false,
      last_done_at: '2026-03-20T17:00:00+00:00',
      repeat: 'P1Y',
    });
  });

  it('clamps a month end: 31 January + P1M is the last day of February, all day kept', async () => {
    const { api } = await server.newAccount();
    const r = await create(api, '/reminders', reminderBody({ due_at: '2027-01-31', repeat: 'P1M' }));
    const once = (await api('PUT', `/reminders/${r.uuid}`, { done_at: '2027-01-31T08:00:00Z' })).body.data;
    expect([once.due_at, once.anytime]).toEqual(['2027-02-28', true]);
    const leap = await create(api, '/reminders', reminderBody({ due_at: '2028-01-31T10:00:00Z', repeat: 'P1M' }));
    const next = (await api('PUT', `/reminders/${leap.uuid}`, { done_at: '2028-02-01T08:00:00Z' })).body.data;
    expect(next.due_at).toBe('2028-02-29T10:00:00+00:00');
  });

  it('takes whole days, weeks, months or years, and says so of anything else', async () => {
    const { api } = await server.newAccount();
    for (const repeat of ['P1Y', 'P6M', 'P2W', 'P10D', 'P1Y6M'])
      expect((await api('POST', '/reminders', reminderBody({ repeat }))).status, repeat).toBe(201);
    for (const repeat of ['PT1H', 'P0D', 'every year', 'P1.5Y', 'P', 12]) {
      const res = await api('POST', '/reminders', reminderBody({ repeat }));
      expect(res.status, String(repeat)).toBe(422);
      expect(res.body.errors.repeat[0]).toContain('ISO 8601 period');
    }
    const r = await create(api, '/reminders', reminderBody({ due_at: '2026-05-04', repeat: 'P2W' }));
    const stopped = await api('PUT', `/reminders/${r.uuid}`, { repeat: null });
    expect(stopped.body.data.repeat).toBeNull();
    // Without a repeat, done stays done.
    const done = (await api('PUT', `/reminders/${r.uuid}`, { done_at: '2026-05-04T12:00:00Z' })).body.data;
    expect([done.due_at, done.done]).toEqual(['2026-05-04', true]);
  });
});
