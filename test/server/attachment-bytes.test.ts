/**
 * What one account's files may cost the others, over real HTTP on either store (the postgres
 * project runs this file again): a disk that takes fewer bytes than it is given, one account's
 * uploads while another reads, the quota of stored bytes, and downloads whose client reads slowly
 * or not at all.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { downloadReads } from '../../src/server/blobs.js';
import { openSpoolFiles } from '../helpers/spool.js';
import { type Account, ON_POSTGRES, startTestServer, type TestServer } from '../helpers/server.js';

const MiB = 1024 * 1024;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function newProperty(acct: Account): Promise<string> {
  const res = await acct.api('POST', '/properties', { address: '1 High Street', postcode: 'LS1 1AA' });
  expect(res.status).toBe(201);
  return res.body.data.uuid as string;
}

/** Chunks of bytes the store holds that belong to no attachment. */
async function strayChunks(server: TestServer): Promise<number> {
  const rows = await server.sql(
    'SELECT COUNT(*) AS n FROM attachment_chunks WHERE attachment NOT IN (SELECT uuid FROM attachments)',
  );
  return Number(rows[0]?.n);
}

/**
 * A raw upload sent by hand: `send(n)` sends the next n bytes of the body, `answer` is what the
 * server answers (the connection closed after it).
 */
async function rawUpload(server: TestServer, acct: Account, property: string, length: number, name: string) {
  const url = new URL(server.url);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise((r) => socket.once('connect', r));
  socket.on('error', () => {});
  const answer = new Promise<{ status: number; body: string }>((resolve) => {
    const got: Buffer[] = [];
    socket.on('data', (b) => got.push(b));
    socket.on('close', () => {
      const text = Buffer.concat(got).toString('utf8');
      resolve({ status: Number(text.split(' ')[1]), body: text.split('\r\n\r\n')[1] ?? '' });
    });
  });
  socket.write(
    `POST /properties/${property}/attachments?name=${name} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${acct.token}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`,
  );
  return {
    send: (bytes: Uint8Array) =>
      new Promise<void>((r) => {
        if (socket.destroyed) r();
        else socket.write(bytes, () => r());
      }),
    answer,
  };
}

const asRoot = process.getuid?.() === 0;

// The spool file: PostgreSQL's uploads wait in one when no connection is spared for them (a pool
// under four spares none).
describe.runIf(ON_POSTGRES)('a disk nearly full under the upload directory', () => {
  it.skipIf(!asRoot)('a write the disk takes short is written again: 507, and nothing stored', async () => {
    const server = await startTestServer({ maxAttachmentBytes: 64 * MiB, poolSize: 3 });
    onTestFinished(() => server.close());
    // A small file system of its own as the upload directory.
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', server.uploadDir]);
    onTestFinished(() => {
      execFileSync('umount', [server.uploadDir]);
    });
    const free = () => {
      const s = statfsSync(server.uploadDir);
      return s.bavail * s.bsize;
    };
    // A filler leaves a chunk and a half free.
    const filler = join(server.uploadDir, 'filler');
    writeFileSync(filler, Buffer.alloc(free() - 1.5 * MiB));
    const acct = await server.newAccount();
    const property = await newProperty(acct);
    const bytes = randomBytes(4 * MiB);
    const up = await rawUpload(server, acct, property, bytes.length, 'full.bin');
    await up.send(bytes.subarray(0, 2.25 * MiB));
    // The second chunk went in by half; then the space comes back, and the rest is sent.
    await new Promise((r) => setTimeout(r, 1000));
    rmSync(filler);
    await up.send(bytes.subarray(2.25 * MiB));
    const got = await up.answer;
    expect(got.status).toBe(507);
    expect(JSON.parse(got.body).message).toMatch(/disk is full/);
    expect((await acct.api('GET', '/attachments')).body.data).toEqual([]);
    expect(await strayChunks(server)).toBe(0);
    await expect.poll(() => openSpoolFiles(server.uploadDir), { timeout: 5000 }).toEqual([]);
    expect(readdirSync(server.uploadDir)).toEqual([]);
  });
});

describe('an upload under way', () => {
  it('is written as it comes yet seen by nobody: not listed, counted, got nor read until its record is written', async () => {
    const server = await startTestServer({ maxAttachmentBytes: 64 * MiB });
    onTestFinished(() => server.close());
    const acct = await server.newAccount();
    const property = await newProperty(acct);
    const bytes = randomBytes(12 * MiB + 7);
    const up = await rawUpload(server, acct, property, bytes.length, 'coming.bin');
    await up.send(bytes.subarray(0, 8 * MiB));
    if (!ON_POSTGRES) {
      // On SQLite its chunks are in the data file already, each written by a transaction of its
      // own (no transaction holds the one writer for the whole file), under the uuid its record
      // will take, which nothing answers for yet.
      await expect.poll(() => strayChunks(server), { timeout: 10_000 }).toBeGreaterThanOrEqual(6);
      const [staged] = (await server.sql('SELECT DISTINCT attachment AS key FROM attachment_chunks')) as {
        key: string;
      }[];
      for (const path of [`/attachments/${staged?.key}`, `/attachments/${staged?.key}/download`])
        expect((await acct.api('GET', path)).status).toBe(404);
    }
    const list = await acct.api('GET', '/attachments');
    expect(list.body.data).toEqual([]);
    expect(list.body.meta.pagination.total).toBe(0);
    expect((await acct.api('GET', `/attachments?property[uuid]=${property}`)).body.data).toEqual([]);
    expect((await acct.api('GET', `/properties/${property}`)).body.data.num_attachments).toBe(0);
    await up.send(bytes.subarray(8 * MiB));
    const got = await up.answer;
    expect(got.status).toBe(201);
    const rec = JSON.parse(got.body).data;
    expect(rec.sha256).toBe(sha256(bytes));
    const back = await fetch(`${server.url}/attachments/${rec.uuid}/download`, {
      headers: { authorization: `Bearer ${acct.token}` },
    });
    expect(sha256(Buffer.from(await back.arrayBuffer()))).toBe(sha256(bytes));
    expect((await acct.api('GET', `/properties/${property}`)).body.data.num_attachments).toBe(1);
    expect(await strayChunks(server)).toBe(0);
  });
});

describe('a quota of stored bytes an account (pm serve --quota)', () => {
  it('counts kept files and uploads under way: past it, 413 for a declared length, 507 for bytes as they come, naming it', async () => {
    const server = await startTestServer({ maxAttachmentBytes: 64 * MiB, quotaBytes: 5 * MiB });
    onTestFinished(() => server.close());
    const [a, b] = [await server.newAccount(), await server.newAccount()];
    const [pa, pb] = [await newProperty(a), await newProperty(b)];
    const post = (
      acct: Account,
      property: string,
      body: Uint8Array | ReadableStream,
      name: string,
      type = 'application/octet-stream',
    ) =>
      fetch(`${server.url}/properties/${property}/attachments?name=${name}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.token}`, 'content-type': type },
        body,
        ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
      } as RequestInit);
    expect((await post(a, pa, randomBytes(3 * MiB), 'kept.bin')).status).toBe(201);
    // An upload under way counts while it comes...
    const bytes = randomBytes(Math.round(1.8 * MiB));
    const coming = await rawUpload(server, a, pa, bytes.length, 'coming.bin');
    await coming.send(bytes.subarray(0, 1.2 * MiB));
    await new Promise((r) => setTimeout(r, 500));
    // ...so that 3 MiB kept, 1.2 under way and 1 declared pass the 5: a 413 before a byte is read.
    const declared = await post(a, pa, randomBytes(1 * MiB), 'over.bin');
    expect(declared.status).toBe(413);
    const said = ((await declared.json()) as { message: string }).message;
    expect(said).toContain('quota of 5 MiB (5242880 bytes)');
    await coming.send(bytes.subarray(1.2 * MiB));
    expect((await coming.answer).status).toBe(201);
    // A body of no declared length is stopped as it passes the quota: 507, nothing kept.
    const streamed = new ReadableStream({
      start(c) {
        c.enqueue(randomBytes(MiB));
        c.enqueue(randomBytes(MiB));
        c.close();
      },
    });
    const chunked = await post(a, pa, streamed, 'chunked.bin');
    expect(chunked.status).toBe(507);
    expect(((await chunked.json()) as { message: string }).message).toContain('quota of 5 MiB');
    const listed = (await a.api('GET', '/attachments')).body.data.map((f: { name: string }) => f.name).sort();
    expect(listed).toEqual(['coming.bin', 'kept.bin']);
    // Another account has its own.
    expect((await post(b, pb, randomBytes(4 * MiB), 'other.bin')).status).toBe(201);
    await expect.poll(() => strayChunks(server)).toBe(0);
  });
});

describe('a download whose client does not read', () => {
  it('reads no chunk ahead of what the client takes: one in hand at most, however big the file', async () => {
    const server = await startTestServer({ maxAttachmentBytes: 64 * MiB });
    onTestFinished(() => server.close());
    const acct = await server.newAccount();
    const property = await newProperty(acct);
    const bytes = randomBytes(24 * MiB);
    const made = await fetch(`${server.url}/properties/${property}/attachments?name=big.bin`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.token}`, 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    const uuid = ((await made.json()) as { data: { uuid: string } }).data.uuid;
    const url = new URL(server.url);
    // A client with a receive window of a few KiB that reads the answer's head and then nothing.
    const before = downloadReads.chunks;
    const client = spawn('python3', [
      '-c',
      `import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect((sys.argv[1], int(sys.argv[2])))
s.sendall(('GET /attachments/${uuid}/download HTTP/1.1\\r\\nHost: x\\r\\nAuthorization: Bearer ${acct.token}\\r\\n\\r\\n').encode())
print(s.recv(512).split(b' ')[1].decode(), flush=True)
time.sleep(60)`,
      url.hostname,
      url.port,
    ]);
    onTestFinished(() => {
      client.kill('SIGKILL');
    });
    const [status] = (await once(client.stdout, 'data')) as [Buffer];
    expect(status.toString().trim()).toBe('200');
    await new Promise((r) => setTimeout(r, 1500));
    // What the system's socket buffers took (its send buffer grows to 4 MiB at most here:
    // net.ipv4.tcp_wmem) and one chunk in hand; reading ahead of the client, two batches of four
    // were read besides.
    expect(downloadReads.chunks - before).toBeGreaterThanOrEqual(1);
    expect(downloadReads.chunks - before).toBeLessThan(6);
    // A client that reads gets every byte.
    const whole = await fetch(`${server.url}/attachments/${uuid}/download`, {
      headers: { authorization: `Bearer ${acct.token}` },
    });
    expect(sha256(Buffer.from(await whole.arrayBuffer()))).toBe(sha256(bytes));
  });
});
