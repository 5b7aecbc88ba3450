/**
 * Operating `pm serve` as a team runs it, black-box (the built bin/pm as a process): its access
 * log on stdout in both formats, request ids from the client's header to the answer, the log line
 * and error bodies, a server error logged once, the /metrics port scraped and parsed, and the stop
 * on SIGTERM (a request still sending its body answered, new connections refused, exit 0).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, pmBin, tempHome } from '../helpers/cli.js';

interface Served {
  readonly child: ChildProcess;
  readonly url: string;
  readonly metricsUrl: string | undefined;
  readonly token: string;
  readonly data: string;
  readonly home: string;
  stdout(): string;
  stderr(): string;
  /** The log's lines so far. */
  lines(): string[];
  /** Waits until the log has a line that `test` accepts, and returns it. */
  line(test: (line: string) => boolean): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

async function serve(args: string[] = []): Promise<Served> {
  const home = tempHome();
  const data = join(home, 'pm.db');
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data', data, '--readers', '1', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: home },
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  const waiting = new Set<() => void>();
  child.stdout?.on('data', (d) => {
    stdout += d;
    for (const w of waiting) w();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (d) => {
      stderr += d;
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m && (!args.includes('--metrics-port') || /metrics on /.test(stderr))) resolve(m[1] as string);
    });
    void exited.then(({ code }) => reject(new Error(`pm serve exited ${code}: ${stderr}`)));
  });
  const lines = () => stdout.split('\n').filter((l) => l !== '');
  return {
    child,
    url,
    metricsUrl: /metrics on (http:\/\/\S+)/.exec(stderr)?.[1],
    token: readFileSync(`${data}.token`, 'utf8').trim(),
    data,
    home,
    stdout: () => stdout,
    stderr: () => stderr,
    lines,
    line: (test) =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no such log line in:\n${stdout}`)), 10_000);
        const check = () => {
          const found = lines().find(test);
          if (found === undefined) return;
          clearTimeout(timer);
          waiting.delete(check);
          resolve(found);
        };
        waiting.add(check);
        check();
      }),
    exited,
  };
}

const auth = (s: Served) => ({ authorization: `Bearer ${s.token}` });
const json = { 'content-type': 'application/json' };

/** The bytes of a raw HTTP/1.1 exchange on a socket of its own: what was answered, once the server closes. */
function rawSocket(url: string): Promise<{ socket: Socket; answer: Promise<string> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      let text = '';
      socket.on('data', (d) => {
        text += d;
      });
      const answer = new Promise<string>((done) => socket.on('close', () => done(text)));
      resolve({ socket, answer });
    });
    socket.once('error', reject);
  });
}

describe('pm serve: the access log', () => {
  it.each(['text', 'json'] as const)(
    '--log-format %s: a line per request, with the request id the answer carries, and no secret',
    async (format) => {
      const s = await serve(['--log-format', format]);
      const given = await fetch(`${s.url}/reminders`, { headers: { ...auth(s), 'x-request-id': 'trace-7f3c' } });
      expect(given.headers.get('x-request-id')).toBe('trace-7f3c');
      const created = await fetch(`${s.url}/reminders`, {
        method: 'POST',
        headers: { ...auth(s), ...json },
        body: JSON.stringify({ title: 'Call the plumber' }),
      });
      expect(created.status).toBe(201);
      const made = created.headers.get('x-request-id') as string;
      expect(made).toMatch(/^[0-9a-f-]{36}$/);
      // An id that is not sane (a space in it; too long) is replaced, not echoed.
      for (const bad of ['two words', 'x'.repeat(129)]) {
        const r = await fetch(`${s.url}/health`, { headers: { 'x-request-id': bad } });
        expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      }
      const denied = await fetch(`${s.url}/reminders?title=plumber`, { headers: { authorization: 'Bearer pm_wrong' } });
      expect(denied.status).toBe(401);
      const deniedId = denied.headers.get('x-request-id') as string;
      expect(((await denied.json()) as { request_id: string }).request_id).toBe(deniedId);
      // A real feed, read by its secret URL; a forged secret; the real one spelt with escapes.
      const madeFeed = await fetch(`${s.url}/calendar-feeds`, {
        method: 'POST',
        headers: { ...auth(s), ...json },
        body: JSON.stringify({ name: 'phone' }),
      });
      const feedUrl = new URL(((await madeFeed.json()) as { data: { url: string } }).data.url);
      const secret = feedUrl.pathname
        .split('/')
        .pop()
        ?.replace(/\.ics$/, '') as string;
      const feed = await fetch(`${s.url}/feeds/pmf_forgedforgedforgedforged.ics?x=1`);
      const feedId = feed.headers.get('x-request-id') as string;
      const hidden = await fetch(`${s.url}/%66eeds/${secret}.ics`);
      const hiddenId = hidden.headers.get('x-request-id') as string;
      // Escapes are not decoded in a feed's path: a 404, whose line must hide the secret all the same.
      expect(hidden.status).toBe(404);
      const read = await fetch(`${s.url}${feedUrl.pathname}`);
      expect(read.status).toBe(200);
      const readId = read.headers.get('x-request-id') as string;

      if (format === 'json') {
        const line = JSON.parse(await s.line((l) => l.includes(made))) as Record<string, unknown>;
        expect(line).toEqual({
          level: 'info',
          time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          msg: 'request',
          method: 'POST',
          path: '/reminders',
          status: 201,
          duration_ms: expect.any(Number),
          bytes: Number(created.headers.get('content-length')),
          bytes_in: JSON.stringify({ title: 'Call the plumber' }).length,
          request_id: made,
          account_id: 1,
          remote: '127.0.0.1',
        });
        const first = JSON.parse(await s.line((l) => l.includes('trace-7f3c')));
        expect(first).toMatchObject({ method: 'GET', path: '/reminders', status: 200, account_id: 1 });
        // The query string as sent; no account before a token is accepted.
        const refused = JSON.parse(await s.line((l) => l.includes(deniedId)));
        expect(refused).toMatchObject({ path: '/reminders?title=plumber', status: 401 });
        expect(refused).not.toHaveProperty('account_id');
        expect(JSON.parse(await s.line((l) => l.includes(feedId)))).toMatchObject({
          path: '/feeds/***?x=1',
          status: 404,
        });
        expect(JSON.parse(await s.line((l) => l.includes(hiddenId)))).toMatchObject({
          path: '/feeds/***',
          status: 404,
        });
        expect(JSON.parse(await s.line((l) => l.includes(readId)))).toMatchObject({ path: '/feeds/***', status: 200 });
      } else {
        expect(await s.line((l) => l.includes(made))).toMatch(
          new RegExp(
            `^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z 201 POST /reminders \\d+\\.\\d\\d ms ${created.headers.get('content-length')} B request_id=${made} account=1 remote=127\\.0\\.0\\.1$`,
          ),
        );
        expect(await s.line((l) => l.includes(deniedId))).toContain(' 401 GET /reminders?title=plumber ');
        expect(await s.line((l) => l.includes(deniedId))).toContain(' account=- ');
        expect(await s.line((l) => l.includes(feedId))).toContain(' 404 GET /feeds/***?x=1 ');
        expect(await s.line((l) => l.includes(hiddenId))).toContain(' 404 GET /feeds/*** ');
        expect(await s.line((l) => l.includes(readId))).toContain(' 200 GET /feeds/*** ');
      }
      expect(s.lines()).toHaveLength(9);
      const all = s.stdout() + s.stderr();
      for (const hidden of [s.token, 'pm_wrong', secret, 'forgedforged', 'Call the plumber'])
        expect(all).not.toContain(hidden);
    },
  );

  it('a server error: answered 500 with its request id, its cause logged once with that id; pm quotes the id', async () => {
    const s = await serve(['--log-format', 'json']);
    // The table goes away under the server: its next write fails inside.
    const db = new Database(s.data);
    db.exec('ALTER TABLE reminders RENAME TO reminders_gone');
    db.close();
    const failed = await fetch(`${s.url}/reminders`, {
      method: 'POST',
      headers: { ...auth(s), ...json, 'x-request-id': 'ci-job-0312' },
      body: '{"title":"x"}',
    });
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ message: 'Server Error', request_id: 'ci-job-0312' });
    await s.line((l) => l.includes('"status":500'));
    const about = s.lines().filter((l) => l.includes('ci-job-0312'));
    const errors = about.map((l) => JSON.parse(l)).filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ request_id: 'ci-job-0312', msg: expect.stringContaining('reminders') });
    expect(errors[0].stack).toContain('at ');
    expect(about).toHaveLength(2);

    // The CLI, against it: the 5xx message carries the id; --debug shows it in the headers.
    const env = { PATH: process.env.PATH ?? '', HOME: s.home, PM_BASE_URL: s.url, PM_TOKEN: s.token };
    const r = await pmBin(['reminders', 'create', '--title', 'x'], env);
    expect(r.code).not.toBe(0);
    const id = /\(request id ([0-9a-f-]{36})\)/.exec(r.stderr)?.[1];
    expect(r.stderr).toMatch(/^error: the server failed \(500\): Server Error \(request id [0-9a-f-]{36}\)$/m);
    await s.line((l) => l.includes(`"request_id":"${id}"`) && l.includes('"level":"error"'));
    const debug = await pmBin(['reminders', 'create', '--title', 'x', '--debug'], env);
    const shown = /^< x-request-id: (\S+)$/m.exec(debug.stderr)?.[1];
    expect(shown).toMatch(/^[0-9a-f-]{36}$/);
    expect(debug.stderr).toContain(`(request id ${shown})`);
  });

  it('--log-level error writes only errors; debug adds a line as each request starts', async () => {
    const quiet = await serve(['--log-level', 'error']);
    expect((await fetch(`${quiet.url}/reminders`, { headers: auth(quiet) })).status).toBe(200);
    const db = new Database(quiet.data);
    db.exec('ALTER TABLE reminders RENAME TO reminders_gone');
    db.close();
    const failed = await fetch(`${quiet.url}/reminders`, {
      method: 'POST',
      headers: { ...auth(quiet), ...json },
      body: '{"title":"x"}',
    });
    const id = failed.headers.get('x-request-id') as string;
    await quiet.line((l) => l.includes(`error request_id=${id} `));
    expect(quiet.lines().filter((l) => / (200|500) (GET|POST) /.test(l))).toEqual([]);

    const loud = await serve(['--log-level', 'debug']);
    const r = await fetch(`${loud.url}/health`);
    const rid = r.headers.get('x-request-id') as string;
    await loud.line((l) => l.includes(` 200 GET /health `));
    expect(
      loud
        .lines()
        .filter((l) => l.includes(rid))
        .map((l) => l.split(' ')[1]),
    ).toEqual(['started', '200']);
  });

  it('a log whose reader went away is given up, said once on stderr; the server goes on answering', async () => {
    const s = await serve();
    s.child.stdout?.destroy();
    for (let i = 0; i < 20; i++) expect((await fetch(`${s.url}/reminders`, { headers: auth(s) })).status).toBe(200);
    expect(s.stderr().match(/the log could not be written \(EPIPE\)/g)).toHaveLength(1);
    s.child.kill('SIGTERM');
    expect(await s.exited).toEqual({ code: 0, signal: null });
  });

  it('refuses bad flags, naming them (exit 2)', async () => {
    const home = tempHome();
    const env = { PATH: process.env.PATH ?? '', HOME: home };
    for (const [args, flag] of [
      [['--log-format', 'xml'], '--log-format'],
      [['--log-level', 'loud'], '--log-level'],
      [['--metrics-host', '0.0.0.0'], '--metrics-port'],
      [['--metrics-port', 'ninety'], '--metrics-port'],
      [['--shutdown-grace', '-1'], '--shutdown-grace'],
    ] as const) {
      const r = await pmBin(['serve', '--data', join(home, 'x.db'), ...args], env);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain(flag);
    }
  });
});

/** `name{labels} value` lines of the Prometheus text format, by name and labels. */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{.*\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a metric line: ${line}`);
    out.set(`${m[1]}${m[2] ?? ''}`, Number(m[3]));
  }
  return out;
}

describe('pm serve --metrics-port', () => {
  it('serves GET /metrics in the Prometheus text format, on loopback, apart from the API', async () => {
    const s = await serve(['--metrics-port', '0', '--rate-limit', '3/min']);
    expect(s.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const metricsUrl = s.metricsUrl as string;
    for (let i = 0; i < 4; i++) await fetch(`${s.url}/reminders?title=x`, { headers: auth(s) });
    const created = await fetch(`${s.url}/reminders`, { method: 'POST', headers: { ...auth(s), ...json }, body: '{}' });
    expect(created.status).toBe(429);
    await fetch(`${s.url}/nowhere/at/all/here`);
    expect((await fetch(`${s.url}/metrics`)).status).toBe(404);
    // A connection held open while scraping.
    const held = await rawSocket(s.url);
    const res = await fetch(metricsUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = parseMetrics(await res.text());
    held.socket.destroy();
    const above = (n: number) => expect.toSatisfy((v: number) => v > n);
    expect(Object.fromEntries(m)).toMatchObject({
      'pm_http_requests_total{method="GET",route="/reminders",status="200"}': 3,
      'pm_http_requests_total{method="GET",route="/reminders",status="429"}': 1,
      'pm_http_requests_total{method="POST",route="/reminders",status="429"}': 1,
      'pm_http_requests_total{method="GET",route="unmatched",status="404"}': 2,
      pm_http_rate_limited_requests_total: 2,
      'pm_http_request_duration_seconds_count{method="GET",route="/reminders"}': 4,
      'pm_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/reminders"}': 4,
      'pm_http_request_duration_seconds_sum{method="GET",route="/reminders"}': above(0),
      'pm_http_response_body_bytes_total{route="/reminders"}': above(100),
      pm_http_open_connections: above(0),
      pm_sqlite_reader_threads: 1,
      pm_sqlite_reader_threads_busy: 0,
      process_cpu_user_seconds_total: above(0),
      process_resident_memory_bytes: above(1e6),
    });
    // No body was read (the 429 came first).
    expect(m.get('pm_http_request_body_bytes_total{route="/reminders"}') ?? 0).toBe(0);
    expect(m.has('nodejs_eventloop_lag_seconds')).toBe(true);
    // The scrape itself is not counted as an API request, and the API port never serves it.
    expect([...m.keys()].some((k) => k.includes('route="/metrics"'))).toBe(false);
    expect((await fetch(metricsUrl.replace('/metrics', '/'))).status).toBe(404);
  });
});

/**
 * A POST /reminders on a connection of its own whose body (`declared` bytes long) is still being
 * sent: only `sent` of it is, and the server has had time to read its headers.
 */
async function slowPost(s: Served, sent: string, declared = 100) {
  const c = await rawSocket(s.url);
  c.socket.write(
    `POST /reminders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.token}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n${sent}`,
  );
  await new Promise((r) => setTimeout(r, 300));
  return c;
}

/** SIGTERM (or another signal), once pm serve has said it is shutting down. */
async function terminate(s: Served, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  s.child.kill(signal);
  await new Promise<void>((resolve) => {
    const check = () => (s.stderr().includes('shutting down') ? resolve() : setTimeout(check, 20));
    check();
  });
}

describe('pm serve: the stop', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s: a request still sending its body is answered 201, /health says 503, new connections are refused, exit 0',
    async (signal) => {
      const s = await serve(['--shutdown-grace', '10', '--log-format', 'json']);
      const body = JSON.stringify({ title: 'sent slowly' });
      const probe = await rawSocket(s.url);
      probe.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
      const slow = await slowPost(s, body.slice(0, 5), body.length);
      await terminate(s, signal);
      const refused = await rawSocket(s.url).then(
        (c) => {
          c.socket.destroy();
          return 'connected';
        },
        (e: NodeJS.ErrnoException) => e.code,
      );
      expect(refused).toBe('ECONNREFUSED');
      probe.socket.write('\r\n');
      const health = await probe.answer;
      expect(health).toMatch(/^HTTP\/1\.1 503 /);
      expect(health.toLowerCase()).toContain('connection: close');
      expect(health).toContain('"status":"stopping"');
      slow.socket.write(body.slice(5));
      const answer = await slow.answer;
      expect(answer).toMatch(/^HTTP\/1\.1 201 /);
      expect(answer.toLowerCase()).toContain('connection: close');
      expect(await s.exited).toEqual({ code: 0, signal: null });
      // The answer was logged before the process ended, and the record is in the data file.
      expect(s.lines().some((l) => l.includes('"status":201'))).toBe(true);
      const db = new Database(s.data, { readonly: true });
      expect(db.prepare('SELECT title FROM reminders').all()).toEqual([{ title: 'sent slowly' }]);
      db.close();
    },
  );

  it('a second signal stops it at once, without waiting for the grace', async () => {
    const s = await serve(['--shutdown-grace', '60']);
    const slow = await slowPost(s, '{');
    await terminate(s);
    const started = Date.now();
    s.child.kill('SIGTERM');
    const end = await s.exited;
    // Well before the grace's 60 s.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(end.signal).toBe('SIGTERM');
    expect(s.stderr()).toContain('stopping now');
    slow.socket.destroy();
  });

  it('after the grace, a request still in flight is cut off, and pm serve still ends with exit 0', async () => {
    const s = await serve(['--shutdown-grace', '1']);
    const slow = await slowPost(s, '{');
    s.child.kill('SIGTERM');
    expect(await slow.answer).toBe('');
    expect(await s.exited).toEqual({ code: 0, signal: null });
  });
});
