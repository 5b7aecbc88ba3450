/**
 * Attachments that expire (ours: a certificate's expires_on), over real HTTP on either store: set
 * on upload (query parameter or multipart part), changed by PUT with the name and description
 * (never the bytes), filtered by date range.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Account, Clock, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock: new Clock('2027-01-10T09:00:00Z') });
});
afterAll(() => server.close());

async function newProperty(acct: Account): Promise<string> {
  const res = await acct.api('POST', '/properties', { address: '1 High St', postcode: 'LS1 1AA' });
  return res.body.data.uuid as string;
}

/** A JSON answer, of any shape. */
// biome-ignore lint/suspicious/noExplicitAny: answers are arbitrary JSON
type Answer = { status: number; body: any };

async function upload(
  acct: Account,
  property: string,
  query: string,
  body: string | FormData,
  type?: string,
): Promise<Answer> {
  const res = await fetch(`${server.url}/properties/${property}/attachments?${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${acct.token}`, ...(type ? { 'content-type': type } : {}) },
    body,
  });
  return { status: res.status, body: await res.json() };
}

describe('expires_on', () => {
  it('is set on upload, by query parameter or multipart part, and checked', async () => {
    const acct = await server.newAccount();
    const p = await newProperty(acct);
    const raw = await upload(acct, p, 'name=gas.pdf&expires_on=2027-03-01', 'x', 'application/pdf');
    expect([raw.status, raw.body.data.expires_on]).toEqual([201, '2027-03-01']);
    const form = new FormData();
    form.set('expires_on', '2031-01-09');
    form.set('file', new Blob(['y'], { type: 'application/pdf' }), 'eicr.pdf');
    const multi = await upload(acct, p, '', form);
    expect([multi.status, multi.body.data.expires_on]).toEqual([201, '2031-01-09']);
    const none = await upload(acct, p, 'name=plan.pdf', 'z', 'application/pdf');
    expect(none.body.data.expires_on).toBeNull();
    const bad = await upload(acct, p, 'name=x.pdf&expires_on=next%20year', 'z', 'application/pdf');
    expect([bad.status, Object.keys(bad.body.errors)]).toEqual([422, ['expires_on']]);
  });

  it('is changed by PUT with the name and description; the bytes never', async () => {
    const acct = await server.newAccount();
    const p = await newProperty(acct);
    const up = await upload(acct, p, 'name=gas.pdf&expires_on=2027-03-01', 'the bytes', 'application/pdf');
    const u = up.body.data.uuid;
    const put = await acct.api('PUT', `/attachments/${u}`, {
      name: 'gas-2027.pdf',
      description: 'Gas Safe record',
      expires_on: '2028-03-01',
    });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({
      name: 'gas-2027.pdf',
      description: 'Gas Safe record',
      expires_on: '2028-03-01',
      sha256: up.body.data.sha256,
      size: 9,
    });
    expect((await acct.api('PUT', `/attachments/${u}`, { expires_on: null })).body.data.expires_on).toBeNull();
    for (const body of [{ size: 1 }, { sha256: 'x' }, { expires_on: '1 March' }])
      expect((await acct.api('PUT', `/attachments/${u}`, body)).status, JSON.stringify(body)).toBe(422);
    const bytes = await fetch(`${server.url}/attachments/${u}/download`, {
      headers: { authorization: `Bearer ${acct.token}` },
    });
    expect(await bytes.text()).toBe('the bytes');
  });

  it('is filtered by date range, as other dates are', async () => {
    const acct = await server.newAccount();
    const p = await newProperty(acct);
    for (const [name, expires] of [
      ['past.pdf', '2026-12-01'],
      ['soon.pdf', '2027-02-15'],
      ['later.pdf', '2027-09-01'],
    ])
      await upload(acct, p, `name=${name}&expires_on=${expires}`, 'x', 'application/pdf');
    const names = async (q: string) =>
      (await acct.api('GET', `/attachments?${q}`)).body.data.map((a: { name: string }) => a.name);
    expect(await names('expires_on=P60D')).toEqual(['soon.pdf']);
    expect(await names('expires_on=2026-01-01/2027-01-10')).toEqual(['past.pdf']);
    expect(await names('expires_on=2027-01-01/2028-01-01')).toEqual(['soon.pdf', 'later.pdf']);
  });
});
