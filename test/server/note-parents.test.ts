/**
 * A note's parent, embedded on request (?embed=property,contact): the parent record's uuid and
 * the text it was created with, or null; with the parent's read scope only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { contactBody, create, propertyBody } from './fixtures.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('?embed=property,contact on notes', () => {
  it('embeds the parent, and null for the other relation; on list and get', async () => {
    const { api } = await server.newAccount();
    const p = await create(api, '/properties', propertyBody({ address: '9 Elm Row', postcode: 'LS9 9EE' }));
    const c = await create(api, '/contacts', contactBody({ name: 'Jo', email: 'jo@x.test' }));
    const onP = await create(api, `/properties/${p.uuid}/notes`, { content: 'of the property' });
    await create(api, `/contacts/${c.uuid}/notes`, { content: 'of the contact' });
    const list = await api('GET', '/notes?embed=property,contact');
    expect(list.status).toBe(200);
    expect(list.body.data.map((n: Record<string, unknown>) => [n.content, n.property, n.contact])).toEqual([
      ['of the property', { data: { uuid: p.uuid, address: '9 Elm Row', postcode: 'LS9 9EE' } }, { data: null }],
      ['of the contact', { data: null }, { data: { uuid: c.uuid, name: 'Jo', email: 'jo@x.test' } }],
    ]);
    const one = await api('GET', `/notes/${onP.uuid}?embed=property`);
    expect(one.body.data.property.data.uuid).toBe(p.uuid);
    expect(one.body.data).not.toHaveProperty('contact');
    // Without embed, a note has no parent field, as the reference says.
    expect((await api('GET', `/notes/${onP.uuid}`)).body.data).not.toHaveProperty('property');
    expect((await api('GET', '/notes?embed=parent')).status).toBe(400);
  });

  it("needs the parent's read scope", async () => {
    const acct = await server.newAccount();
    const p = await create(acct.api, '/properties', propertyBody());
    await create(acct.api, `/properties/${p.uuid}/notes`, { content: 'x' });
    const notesOnly = await acct.token2(['notes.read']);
    const denied = await notesOnly.api('GET', '/notes?embed=property');
    expect(denied.status).toBe(403);
    expect(denied.body.message).toContain('properties.read');
    expect((await notesOnly.api('GET', '/notes')).status).toBe(200);
  });
});
