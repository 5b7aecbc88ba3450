/**
 * Attachments over real HTTP, on either store (the postgres project runs this file again): files
 * uploaded by clients that are not pm (curl's multipart/form-data, a raw body), read back whole,
 * by range and with validators; listed and filtered like notes; the live count on their parent;
 * the size limit answered while the client is still sending; an upload cut off half-way leaving
 * nothing; deleted with their parent; another account's a 404; scopes; the rate limit.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { checkAnswer } from '../helpers/openapi.js';
import { backend, onlooker, openSpoolFiles, uploadsCopying } from '../helpers/spool.js';
import { type Account, ON_POSTGRES, startTestServer, type TestServer } from '../helpers/server.js';

const LIMIT = 3 * 1024 * 1024;
let server: TestServer;
let dir: string;

beforeAll(async () => {
  server = await startTestServer({ maxAttachmentBytes: LIMIT, rateLimit: { limit: 10_000, windowMs: 60_000 } });
  dir = mkdtempSync(join(tmpdir(), 'pm-attachments-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
});

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A request with a token, its answer read as bytes (JSON answers checked against the OpenAPI document). */
async function send(acct: Account | string, method: string, path: string, init: RequestInit = {}) {
  const token = typeof acct === 'string' ? acct : acct.token;
  const headers = { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) };
  const res = await fetch(server.url + path, { ...init, method, headers });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = Buffer.from(bytes).toString('utf8');
  if ((res.headers.get('content-type') ?? '').includes('json') || res.status >= 300)
    checkAnswer(method, path, { status: res.status, headers: res.headers, text });
  return { status: res.status, headers: res.headers, bytes, text, json: () => JSON.parse(text) };
}

/** A raw upload: the bytes as the body, the name in the query. */
function upload(acct: Account, parent: string, bytes: Uint8Array, name: string, type = 'application/octet-stream') {
  return send(acct, 'POST', `/${parent}/attachments?name=${encodeURIComponent(name)}`, {
    headers: { 'content-type': type },
    body: bytes,
  });
}

async function newProperty(acct: Account, address = '1 High Street') {
  const res = await acct.api('POST', '/properties', { address, postcode: 'LS1 1AA' });
  expect(res.status).toBe(201);
  return res.body.data.uuid as string;
}

/** How many chunks of bytes the store holds that belong to no attachment. */
async function strayChunks(): Promise<number> {
  const rows = await server.sql(
    'SELECT COUNT(*) AS n FROM attachment_chunks WHERE attachment NOT IN (SELECT uuid FROM attachments)',
  );
  return Number(rows[0]?.n);
}

async function chunksOf(uuid: string): Promise<number> {
  const rows = await server.sql('SELECT COUNT(*) AS n FROM attachment_chunks WHERE attachment = ?', [uuid]);
  return Number(rows[0]?.n);
}

describe('an upload', () => {
  it('by curl, multipart/form-data: kept whole, described, and counted on its property', async () => {
    const acct = await server.newAccount();
    const property = await newProperty(acct);
    const bytes = new Uint8Array([...Buffer.from('%PDF-1.4\n'), ...randomBytes(2_500_000)]);
    const file = join(dir, 'gas-safety.pdf');
    writeFileSync(file, bytes);
    const { stdout } = await promisify(execFile)('curl', [
      '-sS',
      '-H',
      `Authorization: Bearer ${acct.token}`,
      '-F',
      `file=@${file};type=application/pdf`,
      '-F',
      'description=Gas safety certificate 2026',
      '-w',
      '\n%{http_code}',
      `${server.url}/properties/${property}/attachments`,
    ]);
    const [body, status] = stdout.split('\n');
    expect(status).toBe('201');
    const rec = JSON.parse(body as string).data;
    expect(rec).toMatchObject({
      name: 'gas-safety.pdf',
      description: 'Gas safety certificate 2026',
      size: bytes.length,
      mime_type: 'application/pdf',
      type: 'Document',
      sha256: sha256(bytes),
      download_url: `${server.url}/attachments/${rec.uuid}/download`,
      stream_url: `${server.url}/attachments/${rec.uuid}/stream`,
    });
    expect((await acct.api('GET', `/properties/${property}`)).body.data.num_attachments).toBe(1);
    const got = await send(acct, 'GET', `/attachments/${rec.uuid}/download`);
    expect(got.status).toBe(200);
    expect(sha256(got.bytes)).toBe(sha256(bytes));
    expect(got.headers.get('content-type')).toBe('application/pdf');
    expect(got.headers.get('content-length')).toBe(String(bytes.length));
    expect(got.headers.get('content-disposition')).toBe(
      `attachment; filename="gas-safety.pdf"; filename*=UTF-8''gas-safety.pdf`,
    );
    expect(got.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
    expect(got.headers.get('accept-ranges')).toBe('bytes');
  });

  it('as a raw body: the name its last path part without control characters; a generic type told by the bytes', async () => {
    const acct = await server.newAccount();
    const contact = (await acct.api('POST', '/contacts', { name: 'Ann', email: 'ann@example.com' })).body.data.uuid;
    // A 1x1 PNG, sent as application/octet-stream.
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      'base64',
    );
    const res = await upload(acct, `contacts/${contact}`, png, 'C:\\photos\\kitchen\u0007 é.png');
    expect(res.status).toBe(201);
    const rec = res.json().data;
    expect(rec).toMatchObject({ name: 'kitchen é.png', mime_type: 'image/png', type: 'Image', size: png.length });
    expect(res.headers.get('location')).toBe(`${server.url}/attachments/${rec.uuid}`);
    const streamed = await send(acct, 'GET', `/attachments/${rec.uuid}/stream`);
    expect(streamed.headers.get('content-disposition')).toBe(
      `inline; filename="kitchen _.png"; filename*=UTF-8''kitchen%20%C3%A9.png`,
    );
    expect(Buffer.from(streamed.bytes).equals(png)).toBe(true);
    expect((await acct.api('GET', `/contacts/${contact}`)).body.data.num_attachments).toBe(1);
    // An empty file is a file.
    const empty = await upload(acct, `contacts/${contact}`, new Uint8Array(), 'empty.txt', 'text/plain');
    expect(empty.json().data).toMatchObject({ size: 0, mime_type: 'text/plain', sha256: sha256(new Uint8Array()) });
    expect((await send(acct, 'GET', `/attachments/${empty.json().data.uuid}/download`)).bytes.length).toBe(0);
  });

  it('needs a name, a parent of the account, and no other query parameter', async () => {
    const acct = await server.newAccount();
    const other = await server.newAccount();
    const property = await newProperty(acct);
    const nameless = await send(acct, 'POST', `/properties/${property}/attachments`, { body: 'x' });
    expect(nameless.status).toBe(422);
    expect(nameless.json().errors.name).toBeDefined();
    const elsewhere = await upload(other, `properties/${property}`, Buffer.from('x'), 'a.txt');
    expect(elsewhere.status).toBe(404);
    const unknown = await send(acct, 'POST', `/properties/${property}/attachments?name=a&colour=red`, { body: 'x' });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('colour');
    expect(await strayChunks()).toBe(0);
  });
});

describe('reading a file', () => {
  let acct: Account;
  let uuid: string;
  const bytes = randomBytes(2 * 1024 * 1024 + 77);
  beforeAll(async () => {
    acct = await server.newAccount();
    const property = await newProperty(acct);
    uuid = (await upload(acct, `properties/${property}`, bytes, 'scan.bin')).json().data.uuid;
  });

  it('by range: 206 with Content-Range, across chunks, from the end; 416 outside it', async () => {
    const across = await send(acct, 'GET', `/attachments/${uuid}/download`, {
      headers: { range: 'bytes=1048570-2097160' },
    });
    expect(across.status).toBe(206);
    expect(across.headers.get('content-range')).toBe(`bytes 1048570-2097160/${bytes.length}`);
    expect(Buffer.from(across.bytes).equals(bytes.subarray(1048570, 2097161))).toBe(true);
    const tail = await send(acct, 'GET', `/attachments/${uuid}/stream`, { headers: { range: 'bytes=-10' } });
    expect(tail.status).toBe(206);
    expect(Buffer.from(tail.bytes).equals(bytes.subarray(bytes.length - 10))).toBe(true);
    const past = await send(acct, 'GET', `/attachments/${uuid}/download`, {
      headers: { range: `bytes=${bytes.length}-` },
    });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
  });

  it('with its ETag: 304 and no bytes; HEAD has the headers alone', async () => {
    const etag = `"${sha256(bytes)}"`;
    const same = await send(acct, 'GET', `/attachments/${uuid}/download`, { headers: { 'if-none-match': etag } });
    expect(same.status).toBe(304);
    expect(same.bytes.length).toBe(0);
    const changed = await send(acct, 'GET', `/attachments/${uuid}/download`, { headers: { 'if-none-match': '"x"' } });
    expect(changed.status).toBe(200);
    const head = await send(acct, 'HEAD', `/attachments/${uuid}/download`);
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes.length));
  });

  it('of another account is a 404 everywhere; scopes attachments.read and attachments.write', async () => {
    const other = await server.newAccount();
    for (const path of [`/attachments/${uuid}`, `/attachments/${uuid}/download`, `/attachments/${uuid}/stream`])
      expect((await send(other, 'GET', path)).status).toBe(404);
    expect((await send(other, 'DELETE', `/attachments/${uuid}`)).status).toBe(404);
    const readOnly = await acct.token2(['attachments.read', 'properties.read']);
    expect((await send(readOnly.token, 'GET', `/attachments/${uuid}/download`)).status).toBe(200);
    const property = await newProperty(acct, '2 Low Road');
    const refused = await send(readOnly.token, 'POST', `/properties/${property}/attachments?name=a`, { body: 'x' });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('attachments.write');
    const noRead = await acct.token2(['properties.read']);
    expect((await send(noRead.token, 'GET', `/attachments/${uuid}/download`)).status).toBe(403);
  });

  it('is counted by the rate limit', async () => {
    const first = await send(acct, 'GET', `/attachments/${uuid}/download`, { headers: { range: 'bytes=0-0' } });
    const second = await send(acct, 'GET', `/attachments/${uuid}/download`, { headers: { range: 'bytes=0-0' } });
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(
      Number(first.headers.get('x-ratelimit-remaining')) - 1,
    );
  });
});

describe('lists', () => {
  it('filter by parent, by name; delete one; deleting the parent deletes its files and their bytes', async () => {
    const acct = await server.newAccount();
    const a = await newProperty(acct, '1 Ash Grove');
    const b = await newProperty(acct, '2 Birch Lane');
    const lease = (await upload(acct, `properties/${a}`, randomBytes(1_500_000), 'lease.pdf')).json().data;
    await upload(acct, `properties/${a}`, Buffer.from('inventory'), 'inventory.txt', 'text/plain');
    await upload(acct, `properties/${b}`, Buffer.from('photo'), 'front.jpg', 'image/jpeg');
    const ofA = await acct.api('GET', `/attachments?property[uuid]=${a}`);
    expect(ofA.body.data.map((x: { name: string }) => x.name).sort()).toEqual(['inventory.txt', 'lease.pdf']);
    expect(ofA.body.data[0].download_url).toMatch(/^http:\/\/.*\/attachments\/.*\/download$/);
    const named = await acct.api('GET', '/attachments?name=LEAS');
    expect(named.body.data.map((x: { uuid: string }) => x.uuid)).toEqual([lease.uuid]);
    expect((await acct.api('GET', `/attachments?property[address]=birch`)).body.data[0].name).toBe('front.jpg');
    expect(await chunksOf(lease.uuid)).toBe(2);
    expect((await acct.api('DELETE', `/attachments/${lease.uuid}`)).status).toBe(204);
    expect(await chunksOf(lease.uuid)).toBe(0);
    expect((await acct.api('GET', `/properties/${a}`)).body.data.num_attachments).toBe(1);
    const left = (await acct.api('GET', `/attachments?property[uuid]=${a}`)).body.data[0].uuid;
    expect((await acct.api('DELETE', `/properties/${a}`)).status).toBe(204);
    expect((await acct.api('GET', `/attachments/${left}`)).status).toBe(404);
    expect(await chunksOf(left)).toBe(0);
    expect((await acct.api('GET', '/attachments')).body.meta.pagination.total).toBe(1);
  });
});

/** A request written on a socket of its own: its headers, then body pieces for as long as `keepSending`. */
function rawUpload(
  path: string,
  headers: Record<string, string>,
  opts: { bodyBytes: number; stopAfter?: number; chunked?: boolean },
): Promise<{ answer: string; writeErrorBeforeAnswer: boolean; sent: number }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    let sent = 0;
    let answered = false;
    let writeErrorBeforeAnswer = false;
    const piece = randomBytes(64 * 1024);
    const head = [
      `POST ${path} HTTP/1.1`,
      `Host: ${url.host}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    socket.on('connect', async () => {
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
      while (!socket.destroyed && !answered && sent < opts.bodyBytes) {
        if (opts.stopAfter !== undefined && sent >= opts.stopAfter) return;
        const data = opts.chunked
          ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
          : piece;
        sent += piece.length;
        if (!socket.write(data)) await new Promise((r) => socket.once('drain', r));
      }
    });
    socket.on('data', (d) => {
      answer += d.toString('latin1');
      const [headPart, body = ''] = answer.split('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(headPart as string)?.[1];
      if (length !== undefined && Buffer.byteLength(body, 'latin1') >= Number(length) && !answered) {
        answered = true;
        resolve({ answer, writeErrorBeforeAnswer, sent });
        socket.destroy();
      }
    });
    socket.on('error', (e) => {
      if (!answered) writeErrorBeforeAnswer = true;
      if (!answered) reject(new Error(`the connection failed before its answer: ${e.message}`));
    });
  });
}

describe('the size limit', () => {
  it('is a 413 with a JSON message, read by a client that keeps sending (declared length or chunked)', async () => {
    const acct = await server.newAccount();
    const property = await newProperty(acct);
    const path = `/properties/${property}/attachments?name=huge.bin`;
    const auth = { Authorization: `Bearer ${acct.token}`, 'Content-Type': 'application/octet-stream' };
    const declared = await rawUpload(
      path,
      { ...auth, 'Content-Length': String(40 * 1024 * 1024) },
      {
        bodyBytes: 40 * 1024 * 1024,
      },
    );
    expect(declared.answer).toMatch(/^HTTP\/1\.1 413/);
    expect(declared.writeErrorBeforeAnswer).toBe(false);
    const message = JSON.parse(declared.answer.split('\r\n\r\n')[1] as string).message;
    expect(message).toBe('The file is larger than the 3 MiB (3145728 bytes) this server takes for an attachment.');
    const chunked = await rawUpload(
      path,
      { ...auth, 'Transfer-Encoding': 'chunked' },
      {
        bodyBytes: 40 * 1024 * 1024,
        chunked: true,
      },
    );
    expect(chunked.answer).toMatch(/^HTTP\/1\.1 413/);
    // It was read up to the limit before the answer; nothing of it was written, and its file is gone.
    expect(chunked.sent).toBeGreaterThan(LIMIT);
    expect(await strayChunks()).toBe(0);
    await expect.poll(() => openSpoolFiles(server.uploadDir)).toEqual([]);
    expect((await acct.api('GET', '/attachments')).body.data).toEqual([]);
  });

  it('takes a file of the limit exactly', async () => {
    const acct = await server.newAccount();
    const property = await newProperty(acct);
    const bytes = randomBytes(LIMIT);
    const res = await upload(acct, `properties/${property}`, bytes, 'exact.bin');
    expect(res.status).toBe(201);
    expect(res.json().data.sha256).toBe(sha256(bytes));
  });
});

describe('an upload cut off half-way', () => {
  // A server of its own, whose limit lets an upload write some of its chunks before it is cut off.
  let big: TestServer;
  beforeAll(async () => {
    big = await startTestServer({ maxAttachmentBytes: 64 * 1024 * 1024 });
  });
  afterAll(() => big.close());

  it('leaves nothing while it comes nor after: no attachment listed, no chunk of it kept, no file kept', async () => {
    const server = big;
    const allChunks = async () => Number((await server.sql('SELECT COUNT(*) AS n FROM attachment_chunks'))[0]?.n);
    const acct = await server.newAccount();
    const property = await newProperty(acct);
    const url = new URL(server.url);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      `POST /properties/${property}/attachments?name=half.bin HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${acct.token}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${32 * 1024 * 1024}\r\n\r\n`,
    );
    socket.write(randomBytes(12 * 1024 * 1024));
    // Its bytes are on their way: on SQLite in the data file, a chunk a transaction, belonging
    // to no attachment; on PostgreSQL in the upload's transaction (a COPY under way), no file at
    // all and nothing in the database to anyone else...
    let pid = 0;
    const look = ON_POSTGRES ? await onlooker(server.postgres.database.url) : undefined;
    onTestFinished(() => look?.close());
    if (look) {
      await expect.poll(() => uploadsCopying(look.sql), { timeout: 10_000 }).toHaveLength(1);
      [pid] = (await uploadsCopying(look.sql)) as [number];
      expect(await allChunks()).toBe(0);
    } else await expect.poll(allChunks, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(openSpoolFiles(server.uploadDir)).toEqual([]);
    // ...and nothing of it is listed.
    expect((await acct.api('GET', '/attachments')).body.data).toEqual([]);
    expect(readdirSync(server.uploadDir)).toEqual([]);
    socket.destroy();
    // Once its client has gone, its chunks are deleted (SQLite); on PostgreSQL its transaction is
    // rolled back, and its connection is back in the pool, idle.
    if (look) {
      await expect.poll(() => backend(look.sql, pid), { timeout: 5000 }).toEqual({ state: 'idle', query: 'ROLLBACK' });
      expect(await uploadsCopying(look.sql)).toEqual([]);
    }
    await expect.poll(allChunks, { timeout: 5000 }).toBe(0);
    expect(openSpoolFiles(server.uploadDir)).toEqual([]);
    expect(readdirSync(server.uploadDir)).toEqual([]);
    expect((await acct.api('GET', '/attachments')).body.data).toEqual([]);
    expect((await acct.api('GET', `/properties/${property}`)).body.data.num_attachments).toBe(0);
  });
});

describe('a file of many chunks', () => {
  let big: TestServer;
  let acct: Account;
  let uuid: string;
  // Ten chunks of 1 MiB and a part: more than two of the batches PostgreSQL reads by one COPY.
  const bytes = randomBytes(10 * 1024 * 1024 + 12_345);
  beforeAll(async () => {
    big = await startTestServer({ maxAttachmentBytes: 64 * 1024 * 1024 });
    acct = await big.newAccount();
    const property = await newProperty(acct);
    const res = await fetch(`${big.url}/properties/${property}/attachments?name=survey.bin`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.token}`, 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    expect(res.status).toBe(201);
    uuid = ((await res.json()) as { data: { uuid: string } }).data.uuid;
  });
  afterAll(() => big.close());

  const read = async (range?: string) => {
    const res = await fetch(`${big.url}/attachments/${uuid}/download`, {
      headers: { authorization: `Bearer ${acct.token}`, ...(range ? { range } : {}) },
    });
    return { status: res.status, range: res.headers.get('content-range'), bytes: Buffer.from(await res.arrayBuffer()) };
  };

  it('is read back whole, and by ranges that start and end inside chunks and span several', async () => {
    const whole = await read();
    expect(whole.status).toBe(200);
    expect(sha256(whole.bytes)).toBe(sha256(bytes));
    for (const [start, end] of [
      [3 * 1024 * 1024 - 7, 9 * 1024 * 1024 + 3],
      [4 * 1024 * 1024, 8 * 1024 * 1024 - 1],
      [1, bytes.length - 2],
      [10 * 1024 * 1024 - 1, 10 * 1024 * 1024],
    ] as const) {
      const part = await read(`bytes=${start}-${end}`);
      expect(part.status).toBe(206);
      expect(part.range).toBe(`bytes ${start}-${end}/${bytes.length}`);
      expect(part.bytes.equals(bytes.subarray(start, end + 1))).toBe(true);
    }
  });
});

/**
 * An upload that has sent the start of its body and waits: `rest()` sends the remainder and reads
 * the answer (the connection closed after it).
 */
async function stalledUpload(server: TestServer, acct: Account, property: string, bytes: Buffer, name: string) {
  const url = new URL(server.url);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise((r) => socket.once('connect', r));
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const got: Buffer[] = [];
    socket.on('data', (b) => got.push(b));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(got).toString('utf8');
      resolve({ status: Number(text.split(' ')[1]), body: text.split('\r\n\r\n')[1] ?? '' });
    });
  });
  const half = bytes.length >> 1;
  socket.write(
    `POST /properties/${property}/attachments?name=${name} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${acct.token}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`,
  );
  socket.write(bytes.subarray(0, half));
  return {
    rest: async () => {
      socket.write(bytes.subarray(half));
      const got = await answer;
      return { status: got.status, data: got.status === 201 ? JSON.parse(got.body).data : got.body };
    },
  };
}

describe.runIf(ON_POSTGRES)('uploads streamed into their transaction (PostgreSQL)', () => {
  let own: TestServer;
  beforeAll(async () => {
    own = await startTestServer({ maxAttachmentBytes: 64 * 1024 * 1024 });
  });
  afterAll(() => own.close());

  it('hold a connection, two at most for one account: its third waits in a spool file, and another account still streams', async () => {
    const look = await onlooker(own.postgres.database.url);
    onTestFinished(() => look.close());
    const [a, b] = [await own.newAccount(), await own.newAccount()];
    const [pa, pb] = [await newProperty(a), await newProperty(b)];
    const files = [0, 1, 2, 3].map(() => randomBytes(3 * 1024 * 1024 + 5));
    const copying = () => uploadsCopying(look.sql);
    const first = await stalledUpload(own, a, pa, files[0] as Buffer, 'a1.bin');
    const second = await stalledUpload(own, a, pa, files[1] as Buffer, 'a2.bin');
    await expect.poll(copying, { timeout: 10_000 }).toHaveLength(2);
    // The account's third upload: no COPY of its own, its bytes in a spool file.
    const third = await stalledUpload(own, a, pa, files[2] as Buffer, 'a3.bin');
    await expect.poll(() => openSpoolFiles(own.uploadDir), { timeout: 10_000 }).toHaveLength(1);
    expect(await copying()).toHaveLength(2);
    // Another account's upload streams all the same.
    const other = await stalledUpload(own, b, pb, files[3] as Buffer, 'b1.bin');
    await expect.poll(copying, { timeout: 10_000 }).toHaveLength(3);
    expect(openSpoolFiles(own.uploadDir)).toHaveLength(1);
    // Nothing of them is listed while they come.
    expect((await a.api('GET', '/attachments')).body.data).toEqual([]);
    const done = await Promise.all([first, second, third, other].map((u) => u.rest()));
    expect(done.map((d) => d.status)).toEqual([201, 201, 201, 201]);
    expect(done.map((d) => d.data.sha256)).toEqual(files.map(sha256));
    for (const [i, acct] of [
      [2, a],
      [3, b],
    ] as const) {
      const res = await fetch(`${own.url}/attachments/${done[i]?.data.uuid}/download`, {
        headers: { authorization: `Bearer ${acct.token}` },
      });
      expect(sha256(Buffer.from(await res.arrayBuffer()))).toBe(sha256(files[i] as Buffer));
    }
    expect(await copying()).toEqual([]);
    expect(openSpoolFiles(own.uploadDir)).toEqual([]);
    expect((await a.api('GET', `/properties/${pa}`)).body.data.num_attachments).toBe(3);
  });

  it('wait in a spool file when the pool is too small to spare a connection (under four)', async () => {
    const small = await startTestServer({ maxAttachmentBytes: 64 * 1024 * 1024, poolSize: 3 });
    onTestFinished(() => small.close());
    const look = await onlooker(small.postgres.database.url);
    onTestFinished(() => look.close());
    const acct = await small.newAccount();
    const property = await newProperty(acct);
    const bytes = randomBytes(3 * 1024 * 1024 + 5);
    const upload = await stalledUpload(small, acct, property, bytes, 'small.bin');
    await expect.poll(() => openSpoolFiles(small.uploadDir), { timeout: 10_000 }).toHaveLength(1);
    expect(await uploadsCopying(look.sql)).toEqual([]);
    const done = await upload.rest();
    expect(done.status).toBe(201);
    expect(done.data.sha256).toBe(sha256(bytes));
    expect(openSpoolFiles(small.uploadDir)).toEqual([]);
  });
});
