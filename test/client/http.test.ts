/**
 * The HTTP client on its own: the retry policy's pieces, a POST sent again after a refused
 * connection, pacing of concurrent requests against the real server's rate limit, and the
 * guards (size, origin, plain http).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InsecureTransportError, NetworkError, ProtocolError } from '../../src/client/errors.js';
import { HttpClient } from '../../src/client/http.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../src/client/outcome.js';
import type { PacerClock } from '../../src/client/pacer.js';
import { ResourceClient } from '../../src/client/resources.js';
import { BEFORE_REQUEST, backoffMs, classify, retryPolicy } from '../../src/client/retry.js';
import { reminders } from '../../src/resources/index.js';
import { startServer } from '../../src/server/index.js';
import { type FaultyServer, startFaultyServer } from '../helpers/faulty-server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('backoff: exponential with full jitter', () => {
  const p = retryPolicy({ baseMs: 500 });
  it.each([
    [1, 500],
    [2, 1000],
    [3, 2000],
    [6, 16_000],
    [7, 20_000],
    [20, 20_000],
  ])('retry %i waits between 0 and %i ms', (n, ceiling) => {
    expect(backoffMs(n, p, () => 0)).toBe(0);
    expect(backoffMs(n, p, () => 0.999999)).toBe(ceiling - 1);
    expect(backoffMs(n, p, () => 0.5)).toBe(ceiling / 2);
  });

  it('defaults: 3 retries, 500 ms base, 20 s cap, Retry-After waited up to 120 s', () => {
    expect(retryPolicy()).toEqual({ retries: 3, baseMs: 500, capMs: 20_000, maxRetryAfterMs: 120_000 });
  });
});

describe('what a network error means for the request', () => {
  const err = (code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(code), { code, ...extra });
  it.each([
    ['connection refused: never sent, worth retrying', err('ECONNREFUSED'), 'no', true],
    ['a reset while connecting: never sent', err('ECONNRESET', { [BEFORE_REQUEST]: true }), 'no', true],
    ['a reset after connecting: maybe sent', err('ECONNRESET'), 'maybe', true],
    [
      'a socket closed before a byte was written: never sent',
      err('UND_ERR_SOCKET', { socket: { bytesWritten: 0 } }),
      'no',
      true,
    ],
    [
      'a socket closed after writing: maybe sent',
      err('UND_ERR_SOCKET', { socket: { bytesWritten: 120 } }),
      'maybe',
      true,
    ],
    ['a connect timeout: never sent', err('UND_ERR_CONNECT_TIMEOUT'), 'no', true],
    ['a headers timeout: maybe sent', err('UND_ERR_HEADERS_TIMEOUT'), 'maybe', true],
    ['an unknown host: never sent, not worth retrying', err('ENOTFOUND'), 'no', false],
    ['an untrusted certificate: never sent, not worth retrying', err('SELF_SIGNED_CERT_IN_CHAIN'), 'no', false],
    ['something else: maybe sent, not retried', new Error('odd'), 'maybe', false],
  ])('%s', (_name, e, sent, transient) => {
    const f = classify(e);
    expect(f.sent).toBe(sent);
    expect(f.transient).toBe(transient);
  });
});

describe('against a server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('a POST whose connection was refused is sent again, and creates one record', async () => {
    const acct = await server.newAccount();
    const probe = await startFaultyServer({ upstream: server.url });
    const port = probe.port;
    await probe.close();
    let revived: FaultyServer | undefined;
    // The wait before the retry brings the server back on the same port.
    const clock: PacerClock = {
      now: Date.now,
      sleep: async () => {
        revived ??= await startFaultyServer({ upstream: server.url, port });
      },
    };
    const lines: string[] = [];
    const http = new HttpClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: acct.token,
      clock,
      debug: (l) => lines.push(l),
    });
    try {
      const rec = await new ResourceClient(http).create(reminders, { title: 'after refusal' });
      expect(rec.title).toBe('after refusal');
      expect(lines).toContain('* POST /reminders: connection refused (ECONNREFUSED)');
      expect(revived?.count('POST')).toBe(1);
      const list = await acct.api('GET', '/reminders');
      expect(list.body.data.map((r: { title: string }) => r.title)).toEqual(['after refusal']);
    } finally {
      await http.close();
      await revived?.close();
    }
  });

  it('the wait before a retry is cut short by the abort signal', async () => {
    const acct = await server.newAccount();
    const faulty = await startFaultyServer({ upstream: server.url });
    faulty.script('GET', { kind: 'respond', status: 503 });
    const ac = new AbortController();
    const http = new HttpClient({
      baseUrl: faulty.url,
      token: acct.token,
      retryBaseMs: 60_000,
      signal: ac.signal,
      random: () => 1,
    });
    try {
      const started = Date.now();
      const pending = http.request('GET', '/reminders');
      setTimeout(() => ac.abort(), 100);
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await http.close();
      await faulty.close();
    }
  });

  it('an answer larger than the limit is refused, not held in memory', async () => {
    const acct = await server.newAccount();
    const faulty = await startFaultyServer({ upstream: server.url });
    faulty.script('GET', { kind: 'respond', status: 200, body: JSON.stringify({ data: [], pad: 'x'.repeat(5000) }) });
    const http = new HttpClient({ baseUrl: faulty.url, token: acct.token, maxResponseBytes: 1000 });
    try {
      await expect(http.request('GET', '/reminders')).rejects.toThrow(
        new ProtocolError('the server answered 200, but its answer is larger than 1000 bytes'),
      );
    } finally {
      await http.close();
      await faulty.close();
    }
  });

  it('an answer that grows without end is given up on at the limit, while it is read', async () => {
    let written = 0;
    const endless = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":[');
      const chunk = Buffer.from('{"title":"x"},'.repeat(4096));
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(endless.address() as AddressInfo).port}`;
    const http = new HttpClient({ baseUrl: url, token: 'pm_test', maxResponseBytes: 1024 * 1024, retries: 0 });
    try {
      await expect(http.request('GET', '/reminders')).rejects.toThrow(
        new ProtocolError('the server answered 200, but its answer is larger than 1 MiB'),
      );
      // Stopped at the limit: what the server got out is the limit and the sockets' buffers.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(written).toBeLessThan(16 * 1024 * 1024);
    } finally {
      await http.close();
      endless.closeAllConnections();
      await new Promise((resolve) => endless.close(resolve));
    }
  });

  it('an answer that says it is larger than the limit is not read at all', async () => {
    // Headers saying 1 GiB, then nothing: reading any of it would wait for the timeout.
    const liar = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 ** 30) });
      res.flushHeaders();
    });
    await new Promise<void>((resolve) => liar.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(liar.address() as AddressInfo).port}`;
    const http = new HttpClient({ baseUrl: url, token: 'pm_test', timeout: 10, retries: 0 });
    try {
      const started = Date.now();
      await expect(http.request('GET', '/reminders')).rejects.toThrow(
        new ProtocolError('the server answered 200, but its answer is larger than 64 MiB'),
      );
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await http.close();
      liar.closeAllConnections();
      await new Promise((resolve) => liar.close(resolve));
    }
  });

  it('JSON nested deeper than pm reads is a clear error, not a stack overflow; brackets in strings do not count', async () => {
    const deep = `${'['.repeat(5_000_000)}${']'.repeat(5_000_000)}`;
    const bodies = [deep, JSON.stringify({ data: [], note: '['.repeat(10_000) })];
    const s = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(bodies.shift());
    });
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    const http = new HttpClient({ baseUrl: url, token: 'pm_test', retries: 0 });
    try {
      await expect(http.request('GET', '/reminders')).rejects.toThrow(
        new ProtocolError(
          `the server answered 200, but its answer is JSON nested more than ${MAX_JSON_DEPTH} levels deep, deeper than pm reads`,
        ),
      );
      expect((await http.request('GET', '/reminders')).body).toEqual({ data: [], note: '['.repeat(10_000) });
    } finally {
      await http.close();
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
  });

  it('never sends the token to another origin', async () => {
    const acct = await server.newAccount();
    const http = new HttpClient({ baseUrl: server.url, token: acct.token });
    await expect(http.request('GET', 'http://127.0.0.2:9/reminders')).rejects.toBeInstanceOf(ProtocolError);
    await http.close();
  });
});

describe('a token over plain http', () => {
  it('to another host: refused when the client is made', () => {
    expect(() => new HttpClient({ baseUrl: 'http://api.example.test', token: 't' })).toThrow(InsecureTransportError);
    expect(
      () => new HttpClient({ baseUrl: 'http://api.example.test', token: 't', allowInsecureHttp: true }),
    ).not.toThrow();
    expect(() => new HttpClient({ baseUrl: 'http://api.example.test' })).not.toThrow();
    expect(() => new HttpClient({ baseUrl: 'https://api.example.test', token: 't' })).not.toThrow();
    expect(() => new HttpClient({ baseUrl: 'http://[::1]:8080', token: 't' })).not.toThrow();
  });
});

describe('pacing concurrent requests by the server rate limit (real clock, 10 a second)', () => {
  let dir: string;
  let running: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pm-pacing-'));
    running = await startServer({ dataFile: join(dir, 'pm.db'), port: 0, rateLimit: { limit: 10, windowMs: 1000 } });
  });
  afterAll(async () => {
    await running.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function bulk(pacing: boolean, jobs: number) {
    const lines: string[] = [];
    const http = new HttpClient({
      baseUrl: running.url,
      token: running.createdToken as string,
      debug: (l) => lines.push(l),
      retryBaseMs: 10,
      ...(pacing ? {} : { pacer: false as const }),
    });
    const client = new ResourceClient(http);
    let next = 0;
    const started = Date.now();
    let failed = 0;
    const worker = async () => {
      while (next < jobs) {
        const i = next++;
        await client.create(reminders, { title: `paced ${i}` }).catch(() => failed++);
      }
    };
    try {
      await Promise.all(Array.from({ length: 4 }, worker));
    } finally {
      await http.close();
    }
    return {
      started,
      elapsed: Date.now() - started,
      failed,
      refused: lines.filter((l) => l.startsWith('< 429')).length,
    };
  }

  it('35 creates, 4 at a time: done in the least time the windows allow, with no 429', async () => {
    // Start early in a window, so that the first one's budget is the whole limit.
    while (Date.now() % 1000 > 300) await new Promise((r) => setTimeout(r, 20));
    const { started, elapsed, refused, failed } = await bulk(true, 35);
    const least = (Math.floor(started / 1000) + 3) * 1000 - started; // 10 + 10 + 10 + 5
    expect(failed).toBe(0);
    expect(refused).toBe(0);
    expect(elapsed).toBeGreaterThanOrEqual(least);
    // Within the last window (one more would mean a window's budget went unused).
    expect(elapsed).toBeLessThan(least + 1000);
  }, 15_000);

  it('the same job without pacing runs into the limit (so the test above can fail)', async () => {
    while (Date.now() % 1000 > 300) await new Promise((r) => setTimeout(r, 20));
    const { refused } = await bulk(false, 25);
    expect(refused).toBeGreaterThan(0);
  }, 15_000);
});

it('a NetworkError says whether the request was sent', () => {
  const e = new NetworkError('x', 'ECONNRESET', 'POST', 'maybe');
  expect([e.method, e.requestSent, e.attempts]).toEqual(['POST', 'maybe', 1]);
});

describe('how deep JSON nests, counted without recursion', () => {
  it.each([
    ['[]', 1, false],
    ['[[]]', 1, true],
    ['{"a":{"b":[1]}}', 3, false],
    ['{"a":{"b":[1]}}', 2, true],
    ['["[[[[", "\\"[[["]', 1, false],
    ['{"a\\\\":[[1]]}', 2, true],
  ])('%s deeper than %i: %s', (text, max, deeper) => {
    expect(nestedDeeperThan(text, max)).toBe(deeper);
  });
});
