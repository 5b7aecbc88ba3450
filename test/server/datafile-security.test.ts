/**
 * The data file and the token beside it, attacked as docs/security.md says: a file planted where
 * the token goes, a link, an SQLite file that is not pm's; and the modes of what pm creates.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { tokenFileFor } from '../../src/core/paths.js';
import { bootstrap, openStore, startServer } from '../../src/server/index.js';
import { makeApi } from '../helpers/server.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const dir = mkdtempSync(join(tmpdir(), 'pm-datafile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(dir, `d${++n}`, 'pm.db');
const mode = (file: string) => statSync(file).mode & 0o777;
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('files pm creates', () => {
  it('a new data file, its -wal and -shm, and its token file are its owner’s alone', async () => {
    const file = fresh();
    const old = process.umask(0o022);
    try {
      const server = await startServer({ dataFile: file });
      await server.close();
    } finally {
      process.umask(old);
    }
    expect(mode(file)).toBe(0o600);
    expect(mode(tokenFileFor(file))).toBe(0o600);
    const store = openStore(file);
    store.db.exec('CREATE TEMP TABLE t (x); INSERT INTO t VALUES (1)');
    store.createAccount('x');
    expect(mode(`${file}-wal`)).toBe(0o600);
    expect(mode(`${file}-shm`)).toBe(0o600);
    store.close();
  });
});

describe('a file planted where the token goes', () => {
  it('that others may write is refused, unread and unchanged', async () => {
    const file = fresh();
    openStore(file).close();
    const planted = tokenFileFor(file);
    writeFileSync(planted, 'attacker\n');
    chmodSync(planted, 0o666);
    await expect(startServer({ dataFile: file })).rejects.toThrow(/refusing to write the token .*mode 0666/);
    expect(readFileSync(planted, 'utf8')).toBe('attacker\n');
    // Nothing was created either: the next start with the file removed makes the first account.
    rmSync(planted);
    const server = await startServer({ dataFile: file });
    expect(server.createdToken).toBeDefined();
    await server.close();
  });

  it('a link is never written through', async () => {
    const file = fresh();
    openStore(file).close();
    const target = join(dir, `target-${n}`);
    writeFileSync(target, 'x', { mode: 0o600 });
    symlinkSync(target, tokenFileFor(file));
    const store = openStore(file);
    expect(() => bootstrap(store)).toThrow(/symbolic link/);
    store.close();
    expect(readFileSync(target, 'utf8')).toBe('x');
  });

  it.runIf(process.getuid?.() === 0)('another user’s is refused', async () => {
    const file = fresh();
    openStore(file).close();
    writeFileSync(tokenFileFor(file), '', { mode: 0o600 });
    chownSync(tokenFileFor(file), 65534, 65534);
    await expect(startServer({ dataFile: file })).rejects.toThrow(/belongs to another user \(uid 65534\)/);
  });

  it('one of its own is replaced, and keeps mode 0600', () => {
    const file = fresh();
    const store = openStore(file);
    const first = bootstrap(store) as string;
    rmSync(tokenFileFor(file));
    writeFileSync(tokenFileFor(file), 'old\n', { mode: 0o600 });
    rmSync(tokenFileFor(file));
    const renewed = bootstrap(store, { ensure: true });
    store.close();
    expect(renewed).toBeDefined();
    expect(renewed).not.toBe(first);
    expect(readFileSync(tokenFileFor(file), 'utf8')).toBe(`${renewed}\n`);
    expect(mode(tokenFileFor(file))).toBe(0o600);
  });
});

describe('an SQLite file that is not pm’s', () => {
  it('is refused without changing a byte (no WAL, no tables, no account)', () => {
    const file = join(dir, 'other.db');
    const other = new Database(file);
    other.exec("CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('Ann')");
    other.close();
    const before = sha(file);
    expect(() => openStore(file)).toThrow(/not a pm data file/);
    expect(sha(file)).toBe(before);
    const again = new Database(file, { readonly: true });
    expect(again.pragma('journal_mode', { simple: true })).toBe('delete');
    again.close();
  });

  it('even with a table named as pm’s', () => {
    const file = join(dir, 'clash.db');
    const other = new Database(file);
    other.exec('CREATE TABLE properties (id INTEGER PRIMARY KEY, colour TEXT)');
    other.close();
    const before = sha(file);
    expect(() => openStore(file)).toThrow(/not a pm data file/);
    expect(sha(file)).toBe(before);
  });
});

describe('the Host header', () => {
  /** A request with a Host header of the test's choosing (fetch would not send a forged one). */
  function send(url: string, token: string, path: string, method = 'GET', body?: string) {
    return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const u = new URL(url);
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path,
          method,
          headers: {
            host: 'evil.example',
            authorization: `Bearer ${token}`,
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => {
            text += d;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  it('is not trusted with --public-url: links and Location use the public origin', async () => {
    const server = await startServer({ dataFile: fresh(), publicUrl: 'https://pm.example.com' });
    try {
      const token = server.createdToken as string;
      const created = await send(server.url, token, '/reminders', 'POST', '{"title":"a"}');
      expect(created.status).toBe(201);
      expect(created.headers.location).toMatch(/^https:\/\/pm\.example\.com\/reminders\//);
      await send(server.url, token, '/reminders', 'POST', '{"title":"b"}');
      const list = await send(server.url, token, '/reminders?per_page=1');
      expect(JSON.parse(list.body).meta.pagination.links.next).toBe(
        'https://pm.example.com/reminders?per_page=1&page=2',
      );
      expect(list.body).not.toContain('evil.example');
    } finally {
      await server.close();
    }
  });

  it('without it, is what links are made from (documented: trust it only behind a proxy that sets it)', async () => {
    const server = await startServer({ dataFile: fresh() });
    try {
      const token = server.createdToken as string;
      for (const title of ['a', 'b']) await send(server.url, token, '/reminders', 'POST', JSON.stringify({ title }));
      const list = await send(server.url, token, '/reminders?per_page=1');
      expect(JSON.parse(list.body).meta.pagination.links.next).toBe('http://evil.example/reminders?per_page=1&page=2');
    } finally {
      await server.close();
    }
  });
});

describe('a data file that cannot be trusted to hold', () => {
  it('damaged in the middle: pm serve refuses to start, saying so', async () => {
    const file = fresh();
    const store = openStore(file);
    const { userId } = store.createAccount('a');
    const { token } = store.createToken(userId, 't', ['reminders.write']);
    store.close();
    const server = await startServer({ dataFile: file });
    const api = makeApi(server.url, token);
    for (let i = 0; i < 300; i++) await api('POST', '/reminders', { title: `reminder ${i} ${'x'.repeat(200)}` });
    await server.close();
    const db = new Database(file);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.close();
    expect(pages).toBeGreaterThan(10);
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, 4096 * Math.floor(pages / 2));
    closeSync(fd);
    await expect(startServer({ dataFile: file })).rejects.toThrow(/is damaged .*restore it from a backup/);
  });

  it('a full disk is a 507 saying so, with nothing written; reads go on', async () => {
    const file = fresh();
    const store = openStore(file);
    const server = await startServer({ dataFile: file, store });
    try {
      const api = makeApi(server.url, server.createdToken as string);
      expect((await api('POST', '/reminders', { title: 'before' })).status).toBe(201);
      store.db.pragma(`max_page_count = ${store.db.pragma('page_count', { simple: true })}`);
      let full: Awaited<ReturnType<typeof api>> | undefined;
      for (let i = 0; i < 200 && !full; i++) {
        const res = await api('POST', '/reminders', { title: 'y', description: 'y'.repeat(2000) });
        if (res.status !== 201) full = res;
      }
      expect(full?.status).toBe(507);
      expect(full?.body.message).toMatch(/disk is full/);
      expect((await api('GET', '/reminders?title=before')).status).toBe(200);
    } finally {
      await server.close();
      store.close();
    }
  });
});

describe('a body from a client without a valid token', () => {
  it('is not read: the 401 comes while the client is still sending, and a client that stops is cut off', async () => {
    const server = await startServer({ dataFile: fresh() });
    try {
      const u = new URL(server.url);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(u.port), u.hostname, () => {
          socket.write(
            'POST /reminders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer nope\r\n' +
              'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
          );
          // A first chunk of a body that would be a megabyte: the rest is never sent.
          socket.write(`10000\r\n${'x'.repeat(0x10000)}\r\n`);
        });
        let text = '';
        socket.on('data', (d) => {
          text += d;
        });
        const started = Date.now();
        socket.on('close', () => resolve(`${text}\nclosed after ${Date.now() - started} ms`));
        socket.on('error', reject);
        setTimeout(() => socket.destroy(), 8000);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 401/);
      // The server stops waiting for the rest a few seconds after the client stopped sending.
      const after = Number(/closed after (\d+) ms/.exec(answer)?.[1]);
      expect(after).toBeLessThan(6000);
    } finally {
      await server.close();
    }
  });
});

describe('connections held at once', () => {
  it('are capped: one more is closed as it comes, and the ones held go on', async () => {
    const server = await startServer({ dataFile: fresh(), maxConnections: 2 });
    const u = new URL(server.url);
    const open = () =>
      new Promise<Socket>((resolve, reject) => {
        const s = connect(Number(u.port), u.hostname, () => resolve(s));
        s.on('error', reject);
      });
    const held = [await open(), await open()];
    try {
      const third = await open();
      const closed = await new Promise<boolean>((resolve) => {
        third.on('close', () => resolve(true));
        setTimeout(() => resolve(false), 2000);
      });
      expect(closed).toBe(true);
      const answer = await new Promise<string>((resolve) => {
        let text = '';
        held[0]?.on('data', (d) => {
          text += d;
          if (text.includes('\r\n\r\n')) resolve(text);
        });
        held[0]?.write('GET /reminders HTTP/1.1\r\nHost: x\r\n\r\n');
      });
      expect(answer).toMatch(/^HTTP\/1\.1 401/);
    } finally {
      for (const s of held) s.destroy();
      await server.close();
    }
  });
});

describe('time a client may take (--header-timeout, --request-timeout)', () => {
  /** Sends `head`, then `trickle` a byte every 200 ms; what the server answered, and when it closed. */
  async function slowClient(url: string, head: string, trickle: string): Promise<{ answer: string; ms: number }> {
    const u = new URL(url);
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const s = connect(Number(u.port), u.hostname, () => {
        s.write(head);
        let i = 0;
        const timer = setInterval(() => {
          if (i < trickle.length && !s.destroyed) s.write(trickle[i++] as string);
        }, 200);
        let answer = '';
        s.on('data', (d) => {
          answer += d;
        });
        s.on('close', () => {
          clearInterval(timer);
          resolve({ answer, ms: Date.now() - started });
        });
      });
      s.on('error', () => {});
      setTimeout(() => reject(new Error('the server never closed the connection')), 15_000);
    });
  }

  it('a body trickling in is cut at the request timeout, and the server goes on answering', async () => {
    const server = await startServer({ dataFile: fresh(), requestTimeoutMs: 1500, headersTimeoutMs: 1000 });
    try {
      const token = server.createdToken as string;
      const head = `POST /reminders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n`;
      const slow = await slowClient(server.url, head, `{"title":"${'x'.repeat(180)}"}`);
      expect(slow.answer).toMatch(/^HTTP\/1\.1 408/);
      expect(slow.ms).toBeGreaterThanOrEqual(1400);
      expect(slow.ms).toBeLessThan(4500);
      expect((await makeApi(server.url, token)('GET', '/reminders')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('headers trickling in are cut at the header timeout', async () => {
    const server = await startServer({ dataFile: fresh(), requestTimeoutMs: 5000, headersTimeoutMs: 1000 });
    try {
      const slow = await slowClient(
        server.url,
        'GET /reminders HTTP/1.1\r\n',
        'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      );
      expect(slow.answer).toMatch(/^HTTP\/1\.1 408/);
      expect(slow.ms).toBeLessThan(3500);
    } finally {
      await server.close();
    }
  });
});
