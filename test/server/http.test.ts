/** Transport and auth: 400, 413, 415, 401, 403, and 404 across accounts. */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/resources/index.js';
import { makeApi, startTestServer, type TestServer } from '../helpers/server.js';
import { contactBody, create, customFieldBody, listKeys, propertyBody, reminderBody } from './fixtures.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('request bodies', () => {
  it('malformed JSON is 400, on POST and PUT, and nothing is written', async () => {
    const { api } = await server.newAccount();
    const headers = { 'content-type': 'application/json' };
    for (const raw of ['{"title": "x"', "{'title': 'x'}", '{"title": "x"}}', 'nul']) {
      const res = await api('POST', '/reminders', undefined, { raw, headers });
      expect(res.status, raw).toBe(400);
      expect(res.body.message).toMatch(/JSON/);
    }
    const r = await create(api, '/reminders', reminderBody());
    expect((await api('PUT', `/reminders/${r.uuid}`, undefined, { raw: '{', headers })).status).toBe(400);
    expect((await api('POST', '/reminders', undefined, { raw: '', headers })).status).toBe(400);
    expect((await api('GET', '/reminders')).body.meta.pagination.total).toBe(1);
  });

  it('a content type other than JSON is 415; charset utf-8 and any case are fine', async () => {
    const { api } = await server.newAccount();
    const raw = JSON.stringify(reminderBody());
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', '']) {
      const res = await api('POST', '/reminders', undefined, { raw, headers: type ? { 'content-type': type } : {} });
      expect(res.status, type).toBe(415);
      expect(res.body.message).toContain('application/json');
    }
    const r = await create(api, '/reminders', reminderBody());
    expect(
      (await api('PUT', `/reminders/${r.uuid}`, undefined, { raw, headers: { 'content-type': 'text/plain' } })).status,
    ).toBe(415);
    for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=UTF-8']) {
      const res = await api('POST', '/reminders', undefined, { raw, headers: { 'content-type': type } });
      expect(res.status, type).toBe(201);
    }
  });

  it('a body over 1 MiB is 413; exactly 1 MiB is read (and validated)', async () => {
    const { api } = await server.newAccount();
    const make = (size: number) => {
      const head = '{"title":"';
      const tail = '"}';
      return head + 'x'.repeat(size - head.length - tail.length) + tail;
    };
    const headers = { 'content-type': 'application/json' };
    const over = await api('POST', '/reminders', undefined, { raw: make(1024 * 1024 + 1), headers });
    expect(over.status).toBe(413);
    expect(over.body.message).toMatch(/larger/);
    const at = await api('POST', '/reminders', undefined, { raw: make(1024 * 1024), headers });
    expect(at.status).toBe(422);
    expect(at.body.errors.title).toBeDefined();
    const r = await create(api, '/reminders', reminderBody());
    expect((await api('PUT', `/reminders/${r.uuid}`, undefined, { raw: make(2 * 1024 * 1024), headers })).status).toBe(
      413,
    );
    const p = await create(api, '/properties', propertyBody());
    expect(
      (await api('POST', `/properties/${p.uuid}/notes`, undefined, { raw: make(1024 * 1024 + 10), headers })).status,
    ).toBe(413);
  });

  it('a body refused before it is read is read and thrown away, so the next request on the connection is not broken', async () => {
    const { api } = await server.newAccount();
    const raw = JSON.stringify(reminderBody({ description: 'd'.repeat(900 * 1024) }));
    const headers = { 'content-type': 'application/json' };
    const refused = [
      await api('POST', '/reminders', undefined, { raw: raw + ' '.repeat(200 * 1024), headers }),
      await api('POST', '/reminders', undefined, { raw, headers, token: 'pm_wrong' }),
      await api('POST', '/reminders', undefined, { raw, headers: { 'content-type': 'text/plain' } }),
      await (await (await server.newAccount()).token2(['reminders.read'])).api('POST', '/reminders', undefined, {
        raw,
        headers,
      }),
    ];
    expect(refused.map((r) => r.status)).toEqual([413, 401, 415, 403]);
    // Under 4 MiB, the rest is read and thrown away: the connection stays usable.
    for (const r of refused) expect(r.headers.get('connection')).not.toBe('close');
    // Back to back, on whatever connection the client reuses.
    for (let i = 0; i < 5; i++) expect((await api('POST', '/reminders', reminderBody())).status).toBe(201);
    // A body that was read keeps the connection open.
    const read = await api('POST', '/reminders', reminderBody({ title: 'x'.repeat(300) }));
    expect(read.status).toBe(422);
    expect(read.headers.get('connection')).not.toBe('close');
  });

  it('a client still sending a body the server will not read gets its answer, not a broken pipe', async () => {
    // 1.5 MiB, written in pieces as a slow client would, then the answer read.
    const u = new URL(server.url);
    const send = (head: string, body: Buffer, chunked: boolean) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(u.port), u.hostname, async () => {
          socket.write(head);
          for (let i = 0; i < body.length; i += 64 * 1024) {
            const piece = body.subarray(i, i + 64 * 1024);
            socket.write(
              chunked
                ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
                : piece,
            );
            await new Promise((r) => setTimeout(r, 2));
          }
          if (chunked) socket.write('0\r\n\r\n');
        });
        let text = '';
        socket.on('data', (d) => {
          text += d;
          if (/\r\n\r\n[\s\S]*\}$/.test(text)) {
            socket.end();
            resolve(text);
          }
        });
        socket.on('error', reject);
      });
    const big = Buffer.alloc(1.5 * 1024 * 1024, 'x');
    for (let round = 0; round < 5; round++) {
      const noToken = await send(
        `POST /reminders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\n\r\n`,
        big,
        false,
      );
      expect(noToken).toMatch(/^HTTP\/1\.1 413/);
      const auth = `Authorization: Bearer ${server.token}\r\nContent-Type: application/json\r\n`;
      const chunked = await send(
        `POST /reminders HTTP/1.1\r\nHost: x\r\n${auth}Transfer-Encoding: chunked\r\n\r\n`,
        big,
        true,
      );
      expect(chunked).toMatch(/^HTTP\/1\.1 413/);
      const unauth = await send(
        `POST /reminders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 900000\r\n\r\n`,
        big.subarray(0, 900_000),
        false,
      );
      expect(unauth).toMatch(/^HTTP\/1\.1 401/);
    }
  });

  it('a chunked body (no Content-Length) over 1 MiB is 413 too', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"title":"'));
        if (sent >= 20) {
          controller.enqueue(new TextEncoder().encode('"}'));
          controller.close();
          return;
        }
        sent++;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${server.url}/reminders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
  });
});

describe('authentication: 401 with WWW-Authenticate: Bearer', () => {
  const expect401 = async (res: { status: number; headers: Headers; body: { message: string } }) => {
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    expect(res.body.message).toBe('Unauthenticated.');
  };

  it('no token, an unknown token, a malformed header', async () => {
    await expect401(await server.api('GET', '/properties', undefined, { token: null }));
    await expect401(await server.api('GET', '/properties', undefined, { token: 'pm_nope' }));
    await expect401(await server.api('GET', '/properties', undefined, { token: `${server.token}x` }));
    await expect401(
      await server.api('GET', '/properties', undefined, {
        token: null,
        headers: { authorization: `Token ${server.token}` },
      }),
    );
    await expect401(
      await server.api('GET', '/properties', undefined, { token: null, headers: { authorization: server.token } }),
    );
    await expect401(await server.api('POST', '/properties', propertyBody(), { token: null }));
    await expect401(await server.api('DELETE', '/properties/x', undefined, { token: null }));
  });

  it('the scheme name is case-insensitive', async () => {
    const res = await server.api('GET', '/properties', undefined, {
      token: null,
      headers: { authorization: `bearer ${server.token}` },
    });
    expect(res.status).toBe(200);
  });

  it('a revoked token stops working at once; other tokens of the user keep working', async () => {
    const acct = await server.newAccount();
    const extra = await acct.token2(ALL_SCOPES, 'to revoke');
    expect((await extra.api('GET', '/properties')).status).toBe(200);
    expect(await server.store.revokeToken(extra.id)).toBe(true);
    await expect401(await extra.api('GET', '/properties'));
    expect((await acct.api('GET', '/properties')).status).toBe(200);
  });

  it('the server stores only a hash of each token, and records its last use', async () => {
    const acct = await server.newAccount();
    const t = await acct.token2(['reminders.read'], 'watch');
    const rows = (await server.sql('SELECT hash, hint FROM tokens')) as { hash: string; hint: string }[];
    expect(rows.some((r) => r.hash.includes(t.token) || t.token.includes(r.hash))).toBe(false);
    const info = async () => (await server.store.listTokens()).find((x) => x.id === t.id);
    expect(await info()).toMatchObject({
      name: 'watch',
      scopes: ['reminders.read'],
      last_used_at: null,
      hint: t.token.slice(-4),
    });
    server.clock.set('2026-04-01T10:00:00Z');
    await t.api('GET', '/reminders');
    expect((await info())?.last_used_at).toBe('2026-04-01T10:00:00+00:00');
    // Recorded at most once a minute.
    server.clock.set('2026-04-01T10:00:30Z');
    await t.api('GET', '/reminders');
    expect((await info())?.last_used_at).toBe('2026-04-01T10:00:00+00:00');
    server.clock.set('2026-04-01T10:05:00Z');
    await t.api('GET', '/reminders');
    expect((await info())?.last_used_at).toBe('2026-04-01T10:05:00+00:00');
  });

  it('an unknown path is 404 even without a token', async () => {
    expect((await server.api('GET', '/nope', undefined, { token: null })).status).toBe(404);
  });
});

describe('scopes: 403 when the token lacks one', () => {
  it('read and write scopes are separate, per resource', async () => {
    const acct = await server.newAccount();
    const p = await create(acct.api, '/properties', propertyBody());
    const ro = await acct.token2(['properties.read']);
    expect((await ro.api('GET', '/properties')).status).toBe(200);
    expect((await ro.api('GET', `/properties/${p.uuid}`)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/properties', propertyBody()],
      ['PUT', `/properties/${p.uuid}`, propertyBody()],
      ['DELETE', `/properties/${p.uuid}`, undefined],
      ['GET', '/contacts', undefined],
      ['GET', '/reminders', undefined],
      ['GET', '/notes', undefined],
      ['GET', '/custom-fields', undefined],
    ] as const) {
      const res = await ro.api(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.message).toMatch(/scope/);
    }
    expect((await acct.api('GET', `/properties/${p.uuid}`)).status).toBe(200);
    const wo = await acct.token2(['reminders.write']);
    expect((await wo.api('POST', '/reminders', reminderBody())).status).toBe(201);
    expect((await wo.api('GET', '/reminders')).status).toBe(403);
  });

  it('the message names the missing scope', async () => {
    const t = await (await server.newAccount()).token2(['notes.read']);
    const res = await t.api('GET', '/custom-fields');
    expect(res.body.message).toContain('custom-fields.read');
  });

  it('relational filters need read on the related resource too', async () => {
    const acct = await server.newAccount();
    const notesOnly = await acct.token2(['notes.read']);
    expect((await notesOnly.api('GET', '/notes')).status).toBe(200);
    const res = await notesOnly.api('GET', '/notes?property[city]=leeds');
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('properties.read');
    expect((await notesOnly.api('GET', '/notes?contact[email]=x')).status).toBe(403);
    const both = await acct.token2(['notes.read', 'properties.read']);
    expect((await both.api('GET', '/notes?property[city]=leeds')).status).toBe(200);
    const props = await acct.token2(['properties.read']);
    expect((await props.api('GET', '/properties?custom_fields[value]=x')).status).toBe(403);
    // Embedding custom values reads them: custom-fields.read too (docs/security.md).
    expect((await props.api('GET', '/properties?embed=custom_fields')).status).toBe(403);
  });

  it('creating a note under a property needs notes.write only', async () => {
    const acct = await server.newAccount();
    const p = await create(acct.api, '/properties', propertyBody());
    const t = await acct.token2(['notes.write']);
    expect((await t.api('POST', `/properties/${p.uuid}/notes`, { content: 'x' })).status).toBe(201);
    const noNotes = await acct.token2(['properties.write', 'properties.read']);
    expect((await noNotes.api('POST', `/properties/${p.uuid}/notes`, { content: 'x' })).status).toBe(403);
  });

  it('a token with no scopes can do nothing', async () => {
    const t = await (await server.newAccount()).token2([]);
    for (const path of ['/properties', '/contacts', '/custom-fields', '/notes', '/reminders'])
      expect((await t.api('GET', path)).status, path).toBe(403);
  });
});

describe('accounts: a record of another account is a missing one', () => {
  it('is invisible in list, get, update, delete, note create and relational filters', async () => {
    const a = await server.newAccount();
    const b = await server.newAccount();
    await create(a.api, '/custom-fields', customFieldBody({ label: 'Colour' }));
    const contact = await create(a.api, '/contacts', contactBody({ email: 'a@a.example' }));
    const prop = await create(
      a.api,
      '/properties',
      propertyBody({
        city: 'Leeds',
        contact: { uuid: contact.uuid },
        custom_fields: [{ name: 'colour', value: 'red' }],
      }),
    );
    const note = await create(a.api, `/properties/${prop.uuid}/notes`, { content: 'secret' });
    const reminder = await create(a.api, '/reminders', reminderBody());

    for (const path of ['/properties', '/contacts', '/custom-fields', '/notes', '/reminders'])
      expect(await listKeys(b.api, path), path).toEqual([]);
    for (const [path, rec] of [
      ['properties', prop],
      ['contacts', contact],
      ['notes', note],
      ['reminders', reminder],
    ] as const) {
      const got = await b.api('GET', `/${path}/${rec.uuid}`);
      expect(got.status, path).toBe(404);
      if (path !== 'notes')
        expect((await b.api('PUT', `/${path}/${rec.uuid}`, propertyBody({ name: 'x', title: 'x' }))).status).toBeOneOf([
          404, 422,
        ]);
      expect((await b.api('DELETE', `/${path}/${rec.uuid}`)).status, path).toBe(404);
    }
    expect((await b.api('PUT', `/properties/${prop.uuid}`, propertyBody())).status).toBe(404);
    expect((await b.api('PUT', `/reminders/${reminder.uuid}`, { title: 'mine now' })).status).toBe(404);
    expect((await b.api('PUT', `/contacts/${contact.uuid}`, { name: 'mine now' })).status).toBe(404);
    expect((await b.api('POST', `/properties/${prop.uuid}/notes`, { content: 'x' })).status).toBe(404);
    expect((await b.api('POST', `/contacts/${contact.uuid}/notes`, { content: 'x' })).status).toBe(404);

    // B makes records of its own that would match, so an unconfined filter would show A's too.
    const bProp = await create(b.api, '/properties', propertyBody({ city: 'Leeds' }));
    const bNote = await create(b.api, `/properties/${bProp.uuid}/notes`, { content: 'mine' });
    expect(await listKeys(b.api, `/notes?property[uuid]=${prop.uuid}`)).toEqual([]);
    expect(await listKeys(b.api, '/notes?property[city]=leeds')).toEqual([bNote.uuid]);
    expect(await listKeys(b.api, '/notes?contact[email]=a%40a')).toEqual([]);
    expect(await listKeys(b.api, '/properties?custom_fields[value]=red')).toEqual([]);
    expect(await listKeys(b.api, '/properties?custom_fields[name]=colour')).toEqual([]);
    expect(await listKeys(b.api, `/properties?uuid=${prop.uuid}`)).toEqual([]);
    // A's custom field cannot take B's values.
    const bad = await b.api('POST', '/properties', propertyBody({ custom_fields: [{ name: 'colour', value: 'x' }] }));
    expect(bad.status).toBe(422);

    // A's records are untouched.
    expect((await a.api('GET', `/properties/${prop.uuid}?embed=custom_fields`)).body.data).toMatchObject({
      city: 'Leeds',
      num_notes: 1,
      custom_fields: { data: [expect.objectContaining({ value: 'red' })] },
    });
    expect((await a.api('GET', `/reminders/${reminder.uuid}`)).body.data.title).toBe(reminder.title);
    expect((await a.api('GET', `/contacts/${contact.uuid}`)).body.data.name).toBe(contact.name);
    expect(await listKeys(a.api, '/notes')).toEqual([note.uuid]);
  });

  it('two users of one account see the same records', async () => {
    const a = await server.newAccount();
    const [user] = await server.sql(
      "INSERT INTO users (account_id, name, created_at) VALUES (?, 'second', 0) RETURNING id",
      [a.accountId],
    );
    const second = makeApi(server.url, (await server.store.createToken(Number(user?.id), 't', ALL_SCOPES)).token);
    const r = await create(a.api, '/reminders', reminderBody());
    expect(await listKeys(second, '/reminders')).toEqual([r.uuid]);
  });
});

describe('GET /health, for load balancers', () => {
  it('200 without a token while the store answers; HEAD too; other methods 405; never cached', async () => {
    const res = await fetch(`${server.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', store: 'ok' });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect((await fetch(`${server.url}/health`, { method: 'HEAD' })).status).toBe(200);
    const post = await fetch(`${server.url}/health`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});
