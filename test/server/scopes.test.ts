/**
 * Scopes on what a request reads besides its own resource: embedding a property's contact or its
 * custom values, and linking a contact by email (which tells whether that email exists).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let acct: Account;
let property: string;

beforeAll(async () => {
  server = await startTestServer({ inProcess: true });
  acct = await server.newAccount();
  await acct.api('POST', '/custom-fields', { label: 'Colour', type: { code: 1 }, entity_type: { code: 2 } });
  await acct.api('POST', '/contacts', { name: 'Ann', email: 'ann@example.com' });
  const p = await acct.api('POST', '/properties', {
    address: '1 High St',
    postcode: 'LS1 1AA',
    contact: { email: 'ann@example.com' },
    custom_fields: [{ name: 'colour', value: 'red' }],
  });
  property = p.body.data.uuid;
});
afterAll(() => server.close());

describe('embeds need the embedded records’ read scope', () => {
  it('a properties.read token cannot read contacts or custom values through embed', async () => {
    const { api } = await acct.token2(['properties.read']);
    for (const path of [
      `/properties?embed=contact`,
      `/properties/${property}?embed=contact`,
      `/properties?embed=custom_fields`,
      `/properties/${property}?embed=custom_fields,contact`,
    ]) {
      const res = await api('GET', path);
      expect(res.status, path).toBe(403);
      expect(res.body.message, path).toMatch(/lacks the .*(contacts|custom-fields)\.read/);
      expect(res.text, path).not.toContain('ann@example.com');
    }
    expect((await api('GET', `/properties/${property}`)).status).toBe(200);
  });

  it('with the scopes, the embeds are there', async () => {
    const { api } = await acct.token2(['properties.read', 'contacts.read', 'custom-fields.read']);
    const res = await api('GET', `/properties/${property}?embed=contact,custom_fields`);
    expect(res.status).toBe(200);
    expect(res.body.data.contact.data.email).toBe('ann@example.com');
    expect(res.body.data.custom_fields.data[0].value).toBe('red');
  });
});

describe('linking by email needs contacts.read', () => {
  it('a properties.write token learns nothing of which emails exist', async () => {
    const { api } = await acct.token2(['properties.write']);
    for (const email of ['ann@example.com', 'nobody@example.com']) {
      const res = await api('POST', '/properties', { address: 'x', postcode: 'y', contact: { email } });
      expect(res.status, email).toBe(403);
      expect(res.body.message).toContain('contacts.read');
    }
  });

  it('by uuid, or with contacts.read, it links', async () => {
    const contacts = await acct.api('GET', '/contacts');
    const uuid = contacts.body.data[0].uuid;
    expect(
      (
        await (
          await acct.token2(['properties.write'])
        ).api('POST', '/properties', { address: 'x', postcode: 'y', contact: { uuid } })
      ).status,
    ).toBe(201);
    const { api } = await acct.token2(['properties.write', 'contacts.read']);
    expect(
      (await api('POST', '/properties', { address: 'x', postcode: 'y', contact: { email: 'ANN@example.com' } })).status,
    ).toBe(201);
  });
});
