/**
 * Idempotency keys (ours: docs/api.md): a create, a nested create or an upload sent with an
 * Idempotency-Key is done once per account and key. Sent again with the same body it gets the
 * first answer again, marked Idempotent-Replayed; with another body, a 422 naming the header.
 * Sent many times at once, one record is made. Over real HTTP, on both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const keyed = (key: string) => ({ headers: { 'Idempotency-Key': key } });

async function total(acct: Account, path: string): Promise<number> {
  return (await acct.api('GET', `${path}${path.includes('?') ? '&' : '?'}per_page=1`)).body.meta.pagination.total;
}

describe('a create with an Idempotency-Key', () => {
  it('sent again with the same body: the first answer again, replayed, and no second record', async () => {
    const acct = await server.newAccount();
    const first = await acct.api('POST', '/reminders', { title: 'Gas check' }, keyed('gas-2026'));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    server.clock.advance(60_000);
    const again = await acct.api('POST', '/reminders', { title: 'Gas check' }, keyed('gas-2026'));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(await total(acct, '/reminders')).toBe(1);
  });

  it('sent again with another body: 422 naming the header, and nothing made', async () => {
    const acct = await server.newAccount();
    await acct.api('POST', '/reminders', { title: 'Gas check' }, keyed('k1'));
    const other = await acct.api('POST', '/reminders', { title: 'Boiler service' }, keyed('k1'));
    expect(other.status).toBe(422);
    expect(Object.keys(other.body.errors)).toEqual(['Idempotency-Key']);
    expect(other.body.message).toContain('Idempotency-Key');
    expect(await total(acct, '/reminders')).toBe(1);
  });

  it('sent twenty times at once: one record, and every answer is its answer', async () => {
    const acct = await server.newAccount();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        acct.api('POST', '/contacts', { name: 'Ann', email: 'ann@example.com' }, keyed('ann')),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));
    expect(new Set(answers.map((a) => a.body.data.uuid)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    expect(await total(acct, '/contacts')).toBe(1);
  });

  it("is the account's own: another account with the same key makes its own record", async () => {
    const a = await server.newAccount();
    const b = await server.newAccount();
    const one = await a.api('POST', '/reminders', { title: 'Same' }, keyed('shared-key'));
    const two = await b.api('POST', '/reminders', { title: 'Same' }, keyed('shared-key'));
    expect(two.headers.get('idempotent-replayed')).toBeNull();
    expect(two.body.data.uuid).not.toBe(one.body.data.uuid);
  });

  it('under a parent: a note sent again is one note', async () => {
    const acct = await server.newAccount();
    const p = (await acct.api('POST', '/properties', { address: '1 Mill Lane', postcode: 'LS1 1AA' })).body.data.uuid;
    const note = { content: 'Keys with the neighbour' };
    const first = await acct.api('POST', `/properties/${p}/notes`, note, keyed('note-1'));
    const again = await acct.api('POST', `/properties/${p}/notes`, note, keyed('note-1'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.uuid).toBe(first.body.data.uuid);
    expect(await total(acct, `/notes?property[uuid]=${p}`)).toBe(1);
  });

  it('is not kept when the create failed: the same key with a mended body creates', async () => {
    const acct = await server.newAccount();
    const bad = await acct.api('POST', '/properties', { address: '2 Mill Lane' }, keyed('mend'));
    expect(bad.status).toBe(422);
    const good = await acct.api('POST', '/properties', { address: '2 Mill Lane', postcode: 'LS1 1AA' }, keyed('mend'));
    expect(good.status).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('is kept a day: after it, the key is free again, and old keys are swept', async () => {
    const acct = await server.newAccount();
    const first = await acct.api('POST', '/reminders', { title: 'Yearly' }, keyed('yearly'));
    server.clock.advance(23 * 3600_000);
    expect((await acct.api('POST', '/reminders', { title: 'Yearly' }, keyed('yearly'))).body.data.uuid).toBe(
      first.body.data.uuid,
    );
    server.clock.advance(2 * 3600_000);
    const later = await acct.api('POST', '/reminders', { title: 'Yearly' }, keyed('yearly'));
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.data.uuid).not.toBe(first.body.data.uuid);
    await acct.api('POST', '/reminders', { title: 'Old' }, keyed('old-one'));
    server.clock.advance(25 * 3600_000);
    expect(await server.store.sweepKeys()).toBeGreaterThanOrEqual(2);
    const left = await server.sql('SELECT key FROM idempotency_keys WHERE account_id = ?', [acct.accountId]);
    expect(left).toEqual([]);
  });

  it('must be 1 to 255 printable ASCII characters: else 400 naming the header', async () => {
    const acct = await server.newAccount();
    for (const key of ['', 'x'.repeat(256), 'cl\u00e9']) {
      const res = await acct.api('POST', '/reminders', { title: 'Nope' }, keyed(key));
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('Idempotency-Key');
    }
    expect(await total(acct, '/reminders')).toBe(0);
  });
});

describe('an upload with an Idempotency-Key', () => {
  const upload = (acct: Account, property: string, bytes: string, name: string, key: string) =>
    fetch(`${server.url}/properties/${property}/attachments?name=${name}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.token}`, 'content-type': 'text/plain', 'idempotency-key': key },
      body: bytes,
    });

  it('the same file again is the first upload; another file under the key is a 422', async () => {
    const acct = await server.newAccount();
    const p = (await acct.api('POST', '/properties', { address: '3 Mill Lane', postcode: 'LS1 1AA' })).body.data.uuid;
    const first = await upload(acct, p, 'gas safety certificate', 'gas.txt', 'gas-file');
    expect(first.status).toBe(201);
    const firstBody = (await first.json()) as { data: { download_url: string } };
    const again = await upload(acct, p, 'gas safety certificate', 'gas.txt', 'gas-file');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(firstBody);
    expect(firstBody.data.download_url).toMatch(/^http/);
    const other = await upload(acct, p, 'another certificate', 'gas.txt', 'gas-file');
    expect(other.status).toBe(422);
    expect(Object.keys(((await other.json()) as { errors: object }).errors)).toEqual(['Idempotency-Key']);
    expect(await total(acct, `/attachments?property[uuid]=${p}`)).toBe(1);
  });
});
