/**
 * Calendar feeds over real HTTP, on either store (the postgres project runs this file again): a
 * feed made with a token, read at its secret URL with no token, parsed by an independent
 * iCalendar parser (node-ical); 304 on its validators until a reminder is created, updated or
 * deleted; only its own account's reminders; revoked at once; a forged secret a 404 that names
 * nothing; counted by the rate limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf as parsed } from '../helpers/ical.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ rateLimit: { limit: 1000, windowMs: 60_000 } });
});
afterAll(() => server.close());

/** GET of a feed's URL, as a calendar app sends it: no token, perhaps its validators. */
async function poll(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The events of a calendar, as an independent parser reads them, in order. */
const eventsOf = (text: string) => [...parsed(text).values()];

async function newFeed(acct: Account, name = 'Phone') {
  const res = await acct.api('POST', '/calendar-feeds', { name });
  expect(res.status).toBe(201);
  return res.body.data as { uuid: string; name: string; url: string; created_at: string };
}

describe('a calendar feed', () => {
  it('is made with a token and read with none: the account’s dated reminders as iCalendar', async () => {
    const acct = await server.newAccount();
    const other = await server.newAccount();
    server.clock.set('2026-03-01T08:00:00Z');
    const timed = await acct.api('POST', '/reminders', { title: 'Gas safety check', due_at: '2027-01-15T10:30:00Z' });
    await acct.api('POST', '/reminders', {
      title: 'Renew licence, HMO; ask council',
      description: 'Call them.\nBring forms',
      due_at: '2027-02-01',
    });
    await acct.api('POST', '/reminders', { title: 'Someday', description: 'no date' });
    await other.api('POST', '/reminders', { title: 'Another account’s reminder', due_at: '2027-01-01' });

    const feed = await newFeed(acct, 'Phone');
    expect(Object.keys(feed).sort()).toEqual(['created_at', 'name', 'url', 'uuid']);
    expect(feed.url).toMatch(new RegExp(`^${server.url}/feeds/pmf_[A-Za-z0-9_-]{43}\\.ics$`));

    const res = await poll(feed.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(res.headers.get('last-modified')).toBe('Sun, 01 Mar 2026 08:00:00 GMT');
    expect(res.text.endsWith('END:VCALENDAR\r\n')).toBe(true);
    const events = eventsOf(res.text);
    expect(events.map((e) => e.summary).sort()).toEqual(['Gas safety check', 'Renew licence, HMO; ask council']);
    const gas = events.find((e) => e.uid === timed.body.data.uuid);
    expect(gas).toMatchObject({ start: '2027-01-15T10:30:00Z', allDay: false });
    expect(events.find((e) => e.allDay)).toMatchObject({
      start: '2027-02-01',
      description: 'Call them.\nBring forms',
      lastModified: '2026-03-01T08:00:00Z',
    });
    // HEAD: the headers of GET (but its length, known only as it is written), without the calendar.
    const head = await fetch(feed.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(res.headers.get('etag'));
    expect(head.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(await head.text()).toBe('');
    expect((await fetch(feed.url, { method: 'POST' })).status).toBe(405);
    // The list without URLs, and no other account's feeds.
    const list = await acct.api('GET', '/calendar-feeds');
    expect(list.body.data).toEqual([{ uuid: feed.uuid, name: 'Phone', created_at: feed.created_at }]);
    expect((await other.api('GET', '/calendar-feeds')).body.data).toEqual([]);
  });

  it('answers 304 to its validators until a reminder is created, updated or deleted', async () => {
    const acct = await server.newAccount();
    server.clock.set('2026-04-01T09:00:00Z');
    const kept = await acct.api('POST', '/reminders', { title: 'Kept', due_at: '2027-01-01' });
    const gone = await acct.api('POST', '/reminders', { title: 'Gone soon', due_at: '2027-01-02' });
    const feed = await newFeed(acct);
    const first = await poll(feed.url);
    const etag = first.headers.get('etag') as string;
    const modified = first.headers.get('last-modified') as string;

    const again = await poll(feed.url, { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect((await poll(feed.url, { 'If-Modified-Since': modified })).status).toBe(304);
    // Another account's writes change nothing here.
    const other = await server.newAccount();
    await other.api('POST', '/reminders', { title: 'Elsewhere', due_at: '2027-01-01' });
    expect((await poll(feed.url, { 'If-None-Match': etag })).status).toBe(304);

    // A delete, with the server's clock where it was at the last write: the count moves, and the
    // delete's stamp (the database's clock), which If-Modified-Since alone sees.
    const deleted = await acct.api('DELETE', `/reminders/${gone.body.data.uuid}`);
    expect(deleted.status).toBe(204);
    const afterDelete = await poll(feed.url, { 'If-None-Match': etag });
    expect(afterDelete.status).toBe(200);
    expect(eventsOf(afterDelete.text).map((e) => e.summary)).toEqual(['Kept']);
    expect((await poll(feed.url, { 'If-Modified-Since': modified })).status).toBe(200);
    const etag2 = afterDelete.headers.get('etag') as string;
    expect(etag2).not.toBe(etag);

    server.clock.advance(2_000);
    await acct.api('PUT', `/reminders/${kept.body.data.uuid}`, { title: 'Kept, renamed' });
    const afterUpdate = await poll(feed.url, { 'If-None-Match': etag2 });
    expect(afterUpdate.status).toBe(200);
    expect(eventsOf(afterUpdate.text).map((e) => e.summary)).toEqual(['Kept, renamed']);
    const etag3 = afterUpdate.headers.get('etag') as string;
    expect((await poll(feed.url, { 'If-Modified-Since': modified })).status).toBe(200);

    server.clock.advance(2_000);
    await acct.api('POST', '/reminders', { title: 'New', due_at: '2027-03-01T12:00:00Z' });
    const afterCreate = await poll(feed.url, { 'If-None-Match': etag3 });
    expect(afterCreate.status).toBe(200);
    expect(eventsOf(afterCreate.text)).toHaveLength(2);
  });

  it('is revoked at once, and a forged or cut secret is a 404 that names nothing', async () => {
    const acct = await server.newAccount();
    await acct.api('POST', '/reminders', { title: 'Private', due_at: '2027-01-01' });
    const feed = await newFeed(acct);
    const keep = await newFeed(acct, 'Laptop');
    expect((await poll(feed.url)).status).toBe(200);
    const secret = (feed.url.split('/feeds/')[1] as string).slice(0, -'.ics'.length);

    const forged = [
      `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}.ics`,
      `pmf_${'A'.repeat(43)}.ics`,
      secret,
      `${secret.slice(0, 20)}.ics`,
      `${secret}.ics/x`,
    ];
    for (const path of forged) {
      const res = await poll(`${server.url}/feeds/${path}`);
      expect(res.status, path).toBe(404);
      expect(res.text, path).not.toContain(secret.slice(4, 20));
      expect(res.text, path).not.toContain('Private');
    }

    expect((await acct.api('DELETE', `/calendar-feeds/${feed.uuid}`)).status).toBe(204);
    const revoked = await poll(feed.url);
    expect(revoked.status).toBe(404);
    // The same answer as a secret never made (each names its own request id, nothing else differs).
    const body = (text: string) => ({ ...JSON.parse(text), request_id: undefined });
    expect(body(revoked.text)).toEqual(body((await poll(`${server.url}/feeds/pmf_${'A'.repeat(43)}.ics`)).text));
    expect((await acct.api('DELETE', `/calendar-feeds/${feed.uuid}`)).status).toBe(404);
    expect((await poll(keep.url)).status).toBe(200);
    expect((await acct.api('GET', '/calendar-feeds')).body.data.map((f: { name: string }) => f.name)).toEqual([
      'Laptop',
    ]);
    // Another account cannot revoke it.
    const other = await server.newAccount();
    expect((await other.api('DELETE', `/calendar-feeds/${keep.uuid}`)).status).toBe(404);
    expect((await poll(keep.url)).status).toBe(200);
  });

  it('needs reminders.read and reminders.write to be made; a read-only token gets 403', async () => {
    const acct = await server.newAccount();
    const readOnly = await acct.token2(['reminders.read']);
    const res = await readOnly.api('POST', '/calendar-feeds', { name: 'Phone' });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/lacks the reminders\.write scope/);
    expect((await readOnly.api('GET', '/calendar-feeds')).status).toBe(200);
    const writeOnly = await acct.token2(['reminders.write']);
    expect((await writeOnly.api('POST', '/calendar-feeds', { name: 'Phone' })).status).toBe(403);
    const propertiesOnly = await acct.token2(['properties.read', 'properties.write']);
    expect((await propertiesOnly.api('GET', '/calendar-feeds')).status).toBe(403);
    expect((await acct.api('GET', '/calendar-feeds', undefined, { token: null })).status).toBe(401);
    expect((await acct.api('GET', '/calendar-feeds')).body.data).toEqual([]);
  });

  it('checks its name: required, a string, at most 255 characters, nothing else', async () => {
    const acct = await server.newAccount();
    const bad = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 5 }, 'name'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ name: 'ok', url: 'http://x' }, 'url'],
    ] as const;
    // A key of the body is a name, never the object's prototype.
    const proto = await acct.api('POST', '/calendar-feeds', undefined, {
      raw: '{"name":"ok","__proto__":{"x":1}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(proto.status).toBe(422);
    expect(Object.keys(proto.body.errors)).toEqual(['__proto__']);
    for (const [body, field] of bad) {
      const res = await acct.api('POST', '/calendar-feeds', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toEqual([field]);
    }
    expect((await acct.api('POST', '/calendar-feeds', ['x'])).status).toBe(400);
    expect((await acct.api('GET', '/calendar-feeds')).body.data).toEqual([]);
  });

  it('ends with the token that made it: revoked, the token closes its feeds; another token’s feed goes on', async () => {
    const acct = await server.newAccount();
    await acct.api('POST', '/reminders', { title: 'Boiler service', due_at: '2027-03-01' });
    const phone = await acct.token2(['reminders.read', 'reminders.write'], 'phone');
    const made = await phone.api('POST', '/calendar-feeds', { name: 'Made by the phone token' });
    expect(made.status).toBe(201);
    const other = await newFeed(acct, 'Made by the first token');
    expect((await poll(made.body.data.url)).status).toBe(200);

    expect(await server.store.revokeToken(phone.id)).toBe(true);
    const gone = await poll(made.body.data.url);
    expect(gone.status).toBe(404);
    expect(gone.text).not.toContain('pmf_');
    // Not listed either; the feed of a token still in use goes on.
    const listed = (await acct.api('GET', '/calendar-feeds')).body.data as { name: string }[];
    expect(listed.map((f) => f.name)).toEqual(['Made by the first token']);
    const still = await poll(other.url);
    expect(still.status).toBe(200);
    expect(eventsOf(still.text).map((e) => e.summary)).toEqual(['Boiler service']);
  });

  it('is written as it is read: a reminder made after its first bytes were sent is in it, at the end', async () => {
    const acct = await server.newAccount();
    // More text than the sockets between server and client hold (some MiB), so that the server,
    // writing no faster than this client reads, has not read the last reminders when it stops.
    const details = 'x'.repeat(65_000);
    const n = 400;
    const post = (i: number) =>
      fetch(`${server.url}/reminders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Check ${i}`, description: details, due_at: '2027-01-15' }),
      }).then((res) => res.arrayBuffer());
    for (let i = 0; i < n; i += 8) await Promise.all(Array.from({ length: Math.min(8, n - i) }, (_, k) => post(i + k)));
    const feed = await newFeed(acct);
    const res = await fetch(feed.url);
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const chunks: Uint8Array[] = [(await reader.read()).value as Uint8Array];
    expect(
      Buffer.from(chunks[0] as Uint8Array)
        .toString()
        .startsWith('BEGIN:VCALENDAR\r\n'),
    ).toBe(true);
    // Made while the calendar is on its way: it comes after every reminder made before it.
    const late = await acct.api('POST', '/reminders', { title: 'Made while it was written', due_at: '2027-02-01' });
    expect(late.status).toBe(201);
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    const text = Buffer.concat(chunks).toString();
    expect(text.endsWith('END:VCALENDAR\r\n')).toBe(true);
    const events = eventsOf(text);
    expect(events).toHaveLength(n + 1);
    expect(events.at(-1)).toMatchObject({ uid: late.body.data.uuid, summary: 'Made while it was written' });
    expect(events[0]?.description).toBe(details);
  }, 120_000);
});

describe('a calendar feed’s rate limit', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ rateLimit: { limit: 3, windowMs: 60_000 } });
  });
  afterAll(() => limited.close());

  it('is its own, by the feed: reading it never spends its owner’s API budget; past it, 429 with Retry-After', async () => {
    const acct = await limited.newAccount();
    const made = await acct.api('POST', '/calendar-feeds', { name: 'Phone' });
    const second = await acct.api('POST', '/calendar-feeds', { name: 'Laptop' });
    const url = made.body.data.url as string;
    const spent = Number(second.headers.get('x-ratelimit-remaining'));
    expect(spent).toBe(1);
    for (let i = 0; i < 3; i++) {
      const res = await poll(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(2 - i));
    }
    const refused = await poll(url);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(JSON.parse(refused.text).message).toContain('This calendar feed has been read too often');
    // Another feed of the same account has its own window, and the owner's token its own budget.
    expect((await poll(second.body.data.url as string)).status).toBe(200);
    const own = await acct.api('GET', '/reminders');
    expect(own.status).toBe(200);
    expect(own.headers.get('x-ratelimit-remaining')).toBe('0');
  });
});
