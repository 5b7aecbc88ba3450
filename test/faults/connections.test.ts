/**
 * What one client may hold of `pm serve`'s connections, met head on over real sockets: a flood of
 * half-open and idle connections from one address, the server's cap filled from several, pipelined
 * requests whose answers are never read, and bodies far over the limit from clients that write the
 * whole body before they read (Python's http.client, fetch). Loopback answers on all of 127/8, so
 * 127.0.0.2 is a second client.
 */
import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../../src/server/api.js';
import { addressKey, MAX_CONNECTIONS_PER_ADDRESS, MAX_PIPELINED } from '../../src/server/connections.js';
import { createHttpServer } from '../../src/server/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const FIRST = '127.0.0.1';
const SECOND = '127.0.0.2';

/** A client's connection: what it was sent, and whether the server has closed it. */
interface Client {
  readonly socket: Socket;
  readonly text: () => string;
  readonly closed: () => boolean;
}

/**
 * A connection to `port` from `from`, once it is open; it reads what it is sent, unless `paused`
 * (until its socket is resumed).
 */
function open(port: number, from: string, paused = false): Promise<Client> {
  return new Promise((resolve, reject) => {
    let text = '';
    let closed = false;
    const socket = connect({ host: '127.0.0.1', port, localAddress: from }, () =>
      resolve({ socket, text: () => text, closed: () => closed }),
    );
    socket.once('error', reject);
    socket.on('error', () => {});
    socket.on('data', (d) => {
      text += d;
    });
    if (paused) socket.pause();
    for (const event of ['end', 'close', 'error'])
      socket.on(event, () => {
        closed = true;
      });
  });
}

/** One `GET path` on a fresh connection from `from`: the status line, or why there was none. */
function getOnce(port: number, from: string, path = '/health'): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port, localAddress: from }, () =>
      s.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
    );
    let text = '';
    s.on('data', (d) => {
      text += d;
    });
    s.on('close', () => resolve(text.split('\r\n', 1)[0] || 'closed without an answer'));
    s.on('error', (e) => resolve(`error: ${(e as NodeJS.ErrnoException).code}`));
    setTimeout(() => {
      s.destroy();
      resolve('no answer in 5 s');
    }, 5000).unref();
  });
}

const GET_HEALTH = 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n';

describe('addresses, as connections are counted', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::7', '2001:db8:1:2::/64'],
    ['2001:DB8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ])('%s counts as %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });
});

describe('pm serve: one address cannot take every connection', () => {
  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    server = await startTestServer();
    port = Number(new URL(server.url).port);
  });
  afterAll(() => server.close());

  it('a client at a second address is served while 300 half-open and idle keep-alive connections come from the first', async () => {
    const held: Client[] = [];
    try {
      // 150 that send part of a request (slowloris) or nothing at all, 150 idle after one answer.
      for (let i = 0; i < 300; i++) {
        const c = await open(port, FIRST);
        held.push(c);
        if (i >= 150) c.socket.write(GET_HEALTH);
        else if (i % 2) c.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
      }
      const started = Date.now();
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await getOnce(port, SECOND));
      expect(answers).toEqual(Array(5).fill('HTTP/1.1 200 OK'));
      expect(Date.now() - started).toBeLessThan(4000);
      // The first address holds its share, no more; those that got in were answered.
      await expect.poll(() => held.filter((c) => !c.closed()).length).toBe(MAX_CONNECTIONS_PER_ADDRESS);
      const idle = held.slice(150).filter((c) => !c.closed());
      await expect.poll(() => idle.every((c) => c.text().startsWith('HTTP/1.1 200 OK'))).toBe(true);
    } finally {
      for (const c of held) c.socket.destroy();
    }
  });
});

/** An HTTP door in front of a stand-in API that counts its calls and may hold them. */
async function door(limits: Parameters<typeof createHttpServer>[1]) {
  let calls = 0;
  let hold: Promise<void> | undefined;
  const api: Api = async () => {
    calls++;
    await hold;
    return { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"status":"ok"}' };
  };
  const server: Server = createHttpServer(api, limits);
  let parsed = 0;
  server.on('request', () => parsed++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    /** Requests the API was asked to answer. */
    calls: () => calls,
    /** Requests Node parsed. */
    parsed: () => parsed,
    /** Holds every answer until the returned function is called. */
    holdAnswers(): () => void {
      let release = () => {};
      hold = new Promise((r) => {
        release = () => {
          hold = undefined;
          r();
        };
      });
      return release;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("at the server's cap", () => {
  it('a new connection takes the place of the one idle longest, of the address holding most; one being answered is never closed', async () => {
    const d = await door({ maxConnections: 6, maxConnectionsPerAddress: 4 });
    const THIRD = '127.0.0.3';
    const held: Client[] = [];
    try {
      // The cap filled: four from the first address, two from a third.
      for (const from of [FIRST, FIRST, FIRST, FIRST, THIRD, THIRD]) held.push(await open(d.port, from));
      // Past its share, the first address gets nothing more (its own are not yet idle long enough).
      const fifth = await open(d.port, FIRST);
      held.push(fifth);
      await expect.poll(() => fifth.closed()).toBe(true);
      // Once idle a while, the one idle longest of the first address makes way for the second.
      await new Promise((r) => setTimeout(r, 1200));
      expect(await getOnce(d.port, SECOND)).toBe('HTTP/1.1 200 OK');
      await expect.poll(() => held.map((c) => c.closed())).toEqual([true, false, false, false, false, false, true]);

      // Every connection with a request in hand: none is idle, so a newcomer is the one closed.
      await new Promise((r) => setTimeout(r, 100));
      const release = d.holdAnswers();
      const busy = [...held.slice(1, 6), await open(d.port, THIRD)];
      for (const c of busy) c.socket.write(GET_HEALTH);
      await expect.poll(() => d.calls()).toBe(1 + busy.length);
      await new Promise((r) => setTimeout(r, 1200));
      expect(await getOnce(d.port, SECOND)).toMatch(/closed without an answer|ECONNRESET/);
      expect(busy.map((c) => c.closed())).toEqual(Array(6).fill(false));
      release();
      await expect.poll(() => busy.every((c) => c.text().startsWith('HTTP/1.1 200 OK'))).toBe(true);
      held.push(...busy);
    } finally {
      for (const c of held) c.socket.destroy();
      await d.close();
    }
  });
});

describe('pipelined requests', () => {
  it(`up to ${MAX_PIPELINED} at once are answered in order, on a connection kept open`, async () => {
    const d = await door({});
    const c = await open(d.port, FIRST);
    try {
      for (let round = 1; round <= 2; round++) {
        c.socket.write(GET_HEALTH.repeat(MAX_PIPELINED));
        await expect.poll(() => c.text().split('HTTP/1.1 200 OK').length - 1).toBe(round * MAX_PIPELINED);
      }
      expect(c.closed()).toBe(false);
    } finally {
      c.socket.destroy();
      await d.close();
    }
  });

  it('whose answers are not read are not all taken, nor all read: the connection is closed and others are served', async () => {
    const d = await door({});
    const clients: Client[] = [];
    try {
      // 20 connections, 10,000 requests each (350 KB), and no answer read.
      const burst = GET_HEALTH.repeat(10_000);
      for (let i = 0; i < 20; i++) {
        const c = await open(d.port, FIRST, true);
        c.socket.write(burst);
        clients.push(c);
      }
      await expect.poll(() => d.calls()).toBeGreaterThanOrEqual(20);
      await new Promise((r) => setTimeout(r, 300));
      // Taken: a few each, not 200,000. Parsed: up to the read (64 KiB) that held the one too many.
      expect(d.calls()).toBeLessThanOrEqual(20 * MAX_PIPELINED);
      expect(d.parsed()).toBeLessThanOrEqual(20 * 2 * Math.ceil(65_536 / GET_HEALTH.length));
      expect(await getOnce(d.port, SECOND)).toBe('HTTP/1.1 200 OK');
      // Each was closed by the server (what the clients sent went unread, so maybe with a reset).
      for (const c of clients) c.socket.resume();
      await expect.poll(() => clients.every((c) => c.closed()), { timeout: 5000 }).toBe(true);
    } finally {
      for (const c of clients) c.socket.destroy();
      await d.close();
    }
  });
});

/** Runs Python's http.client: `rounds` POSTs of `size` bytes, each on a new connection, written whole before the answer is read. */
function python(url: string, token: string | null, size: number, chunked: boolean, rounds = 5): Promise<string[]> {
  const script = `
import http.client, sys
host, port, token, size, chunked, rounds = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5] == '1', int(sys.argv[6])
body = b'x' * size
for _ in range(rounds):
    c = http.client.HTTPConnection(host, port, timeout=20)
    headers = {'Content-Type': 'application/json'}
    if token:
        headers['Authorization'] = 'Bearer ' + token
    try:
        if chunked:
            c.request('POST', '/reminders', body=iter([body[i:i + 65536] for i in range(0, size, 65536)]), headers=headers, encode_chunked=True)
        else:
            c.request('POST', '/reminders', body=body, headers=headers)
        r = c.getresponse()
        r.read()
        print(r.status, flush=True)
    except Exception as e:
        print(type(e).__name__, flush=True)
    finally:
        c.close()
`;
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const child = spawn(
      'python3',
      ['-c', script, u.hostname, u.port, token ?? '', String(size), chunked ? '1' : '0', String(rounds)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', () => resolve(out.trim().split('\n')));
  });
}

describe('an answer sent before the body was read is read by the client', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());
  const MiB = 1024 * 1024;

  it("a 5 MiB body: 413, read by Python's http.client five times in five", async () => {
    expect(await python(server.url, server.token, 5 * MiB, false)).toEqual(Array(5).fill('413'));
  });

  it('a 20 MiB chunked body without a token: 401, five times in five', async () => {
    expect(await python(server.url, null, 20 * MiB, true)).toEqual(Array(5).fill('401'));
  });
});
