/**
 * pm against a server that misbehaves on purpose (test/helpers/faulty-server.ts), in front of the
 * real server: each fault, and what pm does about it. Reads are retried; a write is never done
 * twice, and a write that was done is never reported lost. docs/faults.md lists them all.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { run } from '../../src/cli/run.js';
import { Buffer_, tempHome, pmAgainstServer } from '../helpers/cli.js';
import { type FaultyServer, startFaultyServer } from '../helpers/faulty-server.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let faulty: FaultyServer;
let acct: Account;

const pm = pmAgainstServer(() => ({ url: faulty.url, token: acct.token }), { env: { PM_RETRY_BASE_MS: '10' } });

/** Reminders with this title on the real server. */
async function onServer(title: string): Promise<Record<string, unknown>[]> {
  const res = await acct.api('GET', `/reminders?per_page=100&title=${encodeURIComponent(title)}`);
  expect(res.status).toBe(200);
  return res.body.data.filter((r: { title: string }) => r.title === title);
}

async function makeReminder(title: string): Promise<string> {
  const res = await acct.api('POST', '/reminders', { title });
  expect(res.status).toBe(201);
  return res.body.data.uuid;
}

/** Nothing pm prints ever has the token, or a stack trace. */
function clean(r: { stdout: string; stderr: string }): void {
  expect(r.stdout + r.stderr).not.toContain(acct.token);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

beforeAll(async () => {
  server = await startTestServer();
  faulty = await startFaultyServer({ upstream: server.url });
});
afterAll(async () => {
  await faulty.close();
  await server.close();
});
afterEach(() => faulty.reset());

describe('reads (GET) are retried', () => {
  beforeAll(async () => {
    acct = await server.newAccount();
  });

  it('503, 502, 504 then the answer: success after four attempts', async () => {
    await makeReminder('retried read');
    faulty.script(
      'GET',
      { kind: 'respond', status: 503, body: '{"message":"Service Unavailable"}' },
      { kind: 'respond', status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' },
      { kind: 'respond', status: 504, body: '' },
    );
    const r = await pm(['reminders', 'list', '--title', 'retried read', '--json', 'title']);
    clean(r);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ title: 'retried read' }]);
    expect(faulty.count('GET')).toBe(4);
  });

  it('a 500 is not retried: exit 1, the server blamed', async () => {
    faulty.script('GET', { kind: 'respond', status: 500, body: '{"message":"Server Error"}' });
    const r = await pm(['reminders', 'list']);
    clean(r);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: the server failed (500): Server Error');
    expect(faulty.count('GET')).toBe(1);
  });

  it('503 every time: exit 5 after 1 + --retries attempts', async () => {
    faulty.script(
      'GET',
      ...Array(3).fill({ kind: 'respond', status: 503, body: '{"message":"Down for maintenance"}' }),
    );
    const r = await pm(['--retries', '2', 'reminders', 'list']);
    clean(r);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('error: the server is unavailable (503): Down for maintenance (3 attempts)');
    expect(faulty.count('GET')).toBe(3);
  });

  it('--retries 0 sends once', async () => {
    faulty.script('GET', { kind: 'respond', status: 503 });
    const r = await pm(['--retries', '0', 'reminders', 'list']);
    expect(r.code).toBe(5);
    expect(faulty.count('GET')).toBe(1);
  });

  it('a bad --retries or --timeout is a usage error before any request', async () => {
    for (const args of [
      ['--retries', 'many'],
      ['--retries', '11'],
      ['--timeout', '0'],
      ['--timeout', 'soon'],
    ]) {
      const r = await pm([...args, 'reminders', 'list']);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(args[0]);
    }
    expect(faulty.requests).toHaveLength(0);
  });

  it('429 with Retry-After in seconds: waits that long, then succeeds', async () => {
    faulty.script('GET', {
      kind: 'respond',
      status: 429,
      headers: { 'retry-after': '1' },
      body: '{"message":"Too Many Attempts."}',
    });
    const started = Date.now();
    const r = await pm(['reminders', 'list', '--json', 'title']);
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(faulty.count('GET')).toBe(2);
  });

  it('429 with Retry-After as an HTTP date', async () => {
    const at = new Date(Date.now() + 1500).toUTCString();
    faulty.script('GET', { kind: 'respond', status: 429, headers: { 'retry-after': at } });
    const started = Date.now();
    const r = await pm(['reminders', 'list']);
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(faulty.count('GET')).toBe(2);
  });

  it('429 asking for an hour: not waited for; exit 1 saying when to try again', async () => {
    faulty.script('GET', {
      kind: 'respond',
      status: 429,
      headers: { 'retry-after': '3600' },
      body: '{"message":"Too Many Attempts."}',
    });
    const r = await pm(['reminders', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: rate limited: Too Many Attempts.\nTry again in 3600 seconds.\n');
    expect(faulty.count('GET')).toBe(1);
  });

  it('the connection reset before the request was read: retried', async () => {
    faulty.script('GET', { kind: 'reset' });
    const r = await pm(['reminders', 'list']);
    expect(r.code).toBe(0);
    expect(faulty.count('GET')).toBe(2);
  });

  it('the connection reset as soon as it opened: retried', async () => {
    faulty.scriptConnections('reset-on-connect', 'reset-on-connect');
    const r = await pm(['reminders', 'list']);
    expect(r.code).toBe(0);
    expect(faulty.connections.slice(0, 3)).toEqual(['reset-on-connect', 'reset-on-connect', 'serve']);
  });

  it('no answer at all (a stall before the headers): --timeout, then retried', async () => {
    faulty.script('GET', { kind: 'stall' });
    const started = Date.now();
    const r = await pm(['--timeout', '0.5', 'reminders', 'list']);
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(faulty.count('GET')).toBe(2);
  });

  it('a stall in the middle of the body: --timeout, then retried', async () => {
    await makeReminder('stalled body');
    faulty.script('GET', { kind: 'forward-stall-body' });
    const r = await pm(['--timeout', '0.5', 'reminders', 'list', '--title', 'stalled body', '--json', 'title']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ title: 'stalled body' }]);
    expect(faulty.count('GET')).toBe(2);
  });

  it('a body shorter than its Content-Length: retried', async () => {
    faulty.script('GET', { kind: 'forward-truncate' });
    const r = await pm(['reminders', 'list']);
    expect(r.code).toBe(0);
    expect(faulty.count('GET')).toBe(2);
  });

  it('a hung server never hangs pm: exit 5 after the attempts time out', async () => {
    faulty.script('GET', { kind: 'stall' }, { kind: 'stall' });
    const started = Date.now();
    const r = await pm(['--timeout', '0.3', '--retries', '1', 'reminders', 'list']);
    clean(r);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`error: no answer from ${faulty.url}: timed out waiting for an answer (2 attempts)`);
    expect(r.stderr).toContain('--timeout SECONDS waits longer');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('Ctrl-C while waiting for an answer: exit 130 at once', async () => {
    faulty.script('GET', { kind: 'stall' });
    const ac = new AbortController();
    const stderr = new Buffer_();
    const home = tempHome();
    const started = Date.now();
    setTimeout(() => ac.abort(), 200);
    const code = await run(['reminders', 'list'], {
      io: { stdout: new Buffer_(), stderr, stdin: Object.assign(Readable.from([]), { isTTY: false }) },
      env: { HOME: home, PM_BASE_URL: faulty.url, PM_TOKEN: acct.token },
      cwd: home,
      home,
      now: Date.now,
      signal: ac.signal,
    });
    expect(code).toBe(130);
    expect(stderr.text).toBe('error: interrupted\n');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(faulty.count('GET')).toBe(1);
  });

  it('nothing listening: exit 5, connection refused, after the retries', async () => {
    const gone = await startFaultyServer();
    const url = gone.url;
    await gone.close();
    const r = await pm(['reminders', 'list'], { env: { PM_BASE_URL: url } });
    clean(r);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`error: could not reach ${url}: connection refused (4 attempts)`);
  });
});

describe('answers that are not what the contract says', () => {
  beforeAll(async () => {
    acct = await server.newAccount();
  });

  it("a proxy's HTML error page: its status and a clean excerpt, no markup", async () => {
    const page =
      '<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body{color:red}</style></head><body><h1>Bad Gateway</h1><p>The proxy could not reach the upstream server.</p></body></html>';
    faulty.script(
      'GET',
      ...Array(4).fill({ kind: 'respond', status: 502, headers: { 'content-type': 'text/html' }, body: page }),
    );
    const r = await pm(['reminders', 'list']);
    clean(r);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(
      'error: the server is unavailable (502): the server answered 502: 502 Bad Gateway Bad Gateway The proxy could not reach the upstream server. (4 attempts)',
    );
    expect(r.stderr).not.toContain('<');
  });

  it('an HTML 404 from a proxy: exit 3 with the excerpt', async () => {
    faulty.script('GET', {
      kind: 'respond',
      status: 404,
      headers: { 'content-type': 'text/html' },
      body: '<html><body>Not Found</body></html>',
    });
    const r = await pm(['reminders', 'get', '00000000-0000-0000-0000-000000000000']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('error: the server answered 404: Not Found');
  });

  it('a 200 with an HTML page (a captive portal): exit 1, one clear sentence', async () => {
    faulty.script('GET', {
      kind: 'respond',
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: '<html><body><h1>Welcome to Hotel Wi-Fi</h1><p>Accept the terms to continue.</p></body></html>',
    });
    const r = await pm(['reminders', 'list']);
    clean(r);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: unexpected answer from the server: the server answered 200 with a body that is not JSON: Welcome to Hotel Wi-Fi Accept the terms to continue.\n',
    );
  });

  it('truncated JSON in a 200 (the connection closed half way, no Content-Length): exit 1', async () => {
    await makeReminder('cut json');
    faulty.script('GET', { kind: 'forward-cut-json' });
    const r = await pm(['reminders', 'list']);
    clean(r);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: unexpected answer from the server: the server answered 200 with a body that is not JSON: \{"data":\[/,
    );
  });

  it.each([
    [
      'a list that is an object',
      '{"data":{"uuid":"x"}}',
      "the server's answer for a list of reminders has no data array",
    ],
    ['a list of numbers', '{"data":[1,2]}', "item 1 of the server's list of reminders is not a record: 1"],
    ['a list with no data at all', '{"items":[]}', "the server's answer for a list of reminders has no data array"],
    ['a string', '"ok"', "the server's answer for a list of reminders has no data array"],
  ])('a 200 list of the wrong shape (%s): exit 1', async (_name, body, message) => {
    faulty.script('GET', { kind: 'respond', status: 200, body });
    const r = await pm(['reminders', 'list']);
    clean(r);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: unexpected answer from the server: ${message}\n`);
  });

  it('a 200 record of the wrong shape: exit 1', async () => {
    faulty.script('GET', { kind: 'respond', status: 200, body: '{"data":[]}' });
    const r = await pm(['reminders', 'get', '00000000-0000-0000-0000-000000000000']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "error: unexpected answer from the server: the server's answer for a reminder has no record in it\n",
    );
  });

  it('a server that ignores ?page: --all stops with exit 1 instead of asking for ever', async () => {
    const page = JSON.stringify({
      data: [{ uuid: 'a', title: 'same' }],
      meta: { pagination: { total: 3, count: 1, per_page: 1, current_page: 1, total_pages: 3 } },
    });
    faulty.script('GET', { kind: 'respond', status: 200, body: page }, { kind: 'respond', status: 200, body: page });
    const r = await pm(['reminders', 'list', '--all', '-q']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the server answered page 1 of reminders when asked for page 2');
    expect(faulty.count('GET')).toBe(2);
  });

  it('tolerance: a record without the data wrapper, a list without pagination', async () => {
    const uuid = await makeReminder('unwrapped');
    faulty.script('GET', {
      kind: 'respond',
      status: 200,
      body: JSON.stringify({ uuid, title: 'unwrapped', created_at: '2026-01-15T12:00:00+01:00' }),
    });
    const one = await pm(['reminders', 'get', uuid, '--json', 'title']);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toEqual({ title: 'unwrapped' });
    faulty.script('GET', {
      kind: 'respond',
      status: 200,
      body: JSON.stringify({ data: [{ uuid, title: 'unwrapped' }] }),
    });
    const list = await pm(['reminders', 'list', '--all', '--json', 'title']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([{ title: 'unwrapped' }]);
  });

  it('tolerance: a create answered with an empty body reads the record back from Location', async () => {
    faulty.script('POST', { kind: 'forward-replace', body: '' });
    const r = await pm(['reminders', 'create', '--title', 'empty answer', '--json', 'title']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ title: 'empty answer' });
    expect(await onServer('empty answer')).toHaveLength(1);
  });

  it('a Location on another server is never followed (it would get the token)', async () => {
    faulty.script('POST', {
      kind: 'forward-replace',
      body: '',
      headers: { location: 'http://127.0.0.2:9/reminders/x' },
    });
    const r = await pm(['reminders', 'create', '--title', 'elsewhere', '-q']);
    expect(r.code).toBe(0);
    expect(faulty.count('GET')).toBe(0);
    expect(await onServer('elsewhere')).toHaveLength(1);
  });
});

/**
 * A server that does not say it keeps idempotency keys: its /openapi.json, which pm asks once a
 * POST's fate is in doubt, is a 404. Then a POST is sent again only when it certainly never
 * reached the server.
 */
const noKeys = () => faulty.script('GET', { kind: 'respond', status: 404, body: '{"message":"Not Found"}' });

describe('writes: nothing done twice, nothing done reported lost', () => {
  beforeAll(async () => {
    acct = await server.newAccount();
  });

  it('POST answered 503, to a server without keys: not retried (exit 5), nothing created', async () => {
    noKeys();
    faulty.script('POST', { kind: 'respond', status: 503, body: '{"message":"Service Unavailable"}' });
    const r = await pm(['reminders', 'create', '--title', 'post 503']);
    clean(r);
    expect(r.code).toBe(5);
    expect(faulty.count('POST')).toBe(1);
    expect(await onServer('post 503')).toHaveLength(0);
  });

  it('POST answered 429: the server did nothing, so it is sent again after Retry-After', async () => {
    faulty.script('POST', {
      kind: 'respond',
      status: 429,
      headers: { 'retry-after': '0' },
      body: '{"message":"Too Many Attempts."}',
    });
    const r = await pm(['reminders', 'create', '--title', 'post 429', '-q']);
    expect(r.code).toBe(0);
    expect(faulty.count('POST')).toBe(2);
    expect(await onServer('post 429')).toHaveLength(1);
  });

  it('POST reset before the server read it, to a server without keys: not retried (it may have got there); exit 5 saying so; nothing created', async () => {
    noKeys();
    faulty.script('POST', { kind: 'reset' });
    const r = await pm(['reminders', 'create', '--title', 'post reset before']);
    clean(r);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`error: no answer from ${faulty.url}: `);
    expect(r.stderr).toContain(
      'The request may have reached the server before the connection failed, so pm did not send it again: check whether it was done (`pm reminders list`) before trying again.',
    );
    expect(faulty.count('POST')).toBe(1);
    expect(await onServer('post reset before')).toHaveLength(0);
  });

  it('POST done, then the connection reset, to a server without keys: not sent again; exactly one record', async () => {
    noKeys();
    faulty.script('POST', { kind: 'forward-then-reset' });
    const r = await pm(['reminders', 'create', '--title', 'post reset after']);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('pm did not send it again');
    expect(faulty.count('POST')).toBe(1);
    expect(await onServer('post reset after')).toHaveLength(1);
  });

  it('POST done, then no answer, to a server without keys: --timeout, not sent again; exactly one record', async () => {
    noKeys();
    faulty.script('POST', { kind: 'forward-then-stall' });
    const r = await pm(['--timeout', '0.5', 'reminders', 'create', '--title', 'post stalled']);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('timed out waiting for an answer');
    expect(faulty.count('POST')).toBe(1);
    expect(await onServer('post stalled')).toHaveLength(1);
  });

  it.each([
    ['stalls in the middle of its body', 'forward-stall-body'],
    ['is cut short of its Content-Length', 'forward-truncate'],
    ['is truncated JSON', 'forward-cut-json'],
  ] as const)(
    'POST answered 201 whose body %s, to a server without keys: the record is read back from Location; exit 0',
    async (_n, kind) => {
      const title = `post ${kind}`;
      // A body cut off is what a key would send again for (pm asks the server then); JSON that ends
      // early but whole came as it was sent.
      if (kind !== 'forward-cut-json') noKeys();
      faulty.script('POST', { kind });
      const r = await pm(['--timeout', '0.5', 'reminders', 'create', '--title', title, '--json', 'title']);
      clean(r);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ title });
      expect(faulty.count('POST')).toBe(1);
      expect(await onServer(title)).toHaveLength(1);
    },
  );

  it('POST done, then the connection reset, to a server that keeps keys: sent again with the same key, the first answer replayed; exactly one record', async () => {
    faulty.script('POST', { kind: 'forward-then-reset' });
    const r = await pm(['reminders', 'create', '--title', 'post reset, keyed', '--json', 'title']);
    clean(r);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ title: 'post reset, keyed' });
    const posts = faulty.requests.filter((q) => q.method === 'POST');
    expect(posts).toHaveLength(2);
    const [key, again] = posts.map((q) => q.headers['idempotency-key']);
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(again).toBe(key);
    expect(await onServer('post reset, keyed')).toHaveLength(1);
  });

  it('POST answered 503, then done, to a server that keeps keys: sent again; one record', async () => {
    faulty.script('POST', { kind: 'respond', status: 503, body: '{"message":"Service Unavailable"}' });
    const r = await pm(['reminders', 'create', '--title', 'post 503, keyed', '-q']);
    expect(r.code).toBe(0);
    expect(faulty.count('POST')).toBe(2);
    expect(await onServer('post 503, keyed')).toHaveLength(1);
  });

  it('POST done, then no answer, to a server that keeps keys: --timeout, sent again, the first answer replayed; one record', async () => {
    faulty.script('POST', { kind: 'forward-then-stall' });
    const r = await pm(['--timeout', '0.5', 'reminders', 'create', '--title', 'post stalled, keyed', '-q']);
    expect(r.code).toBe(0);
    expect(faulty.count('POST')).toBe(2);
    expect(await onServer('post stalled, keyed')).toHaveLength(1);
  });

  it('an upload done, then the connection reset, to a server that keeps keys: sent again with the same key; one attachment', async () => {
    const property = (await acct.api('POST', '/properties', { address: '1 Mill Lane', postcode: 'LS1 1AA' })).body.data
      .uuid;
    const file = join(mkdtempSync(join(tmpdir(), 'pm-keyed-upload-')), 'gas.txt');
    writeFileSync(file, 'gas safety certificate');
    faulty.script('POST', { kind: 'forward-then-reset' });
    const r = await pm(['attachments', 'upload', file, '--property', property]);
    clean(r);
    expect(r.code, r.stderr).toBe(0);
    const posts = faulty.requests.filter((q) => q.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[1]?.headers['idempotency-key']).toBe(posts[0]?.headers['idempotency-key']);
    const listed = await acct.api('GET', `/attachments?property[uuid]=${property}`);
    expect(listed.body.data.map((a: { uuid: string }) => a.uuid)).toEqual([r.stdout.trim()]);
  });

  it('POST answered 201 with a cut body and no Location: exit 1 saying it was created', async () => {
    faulty.script('POST', { kind: 'forward-replace', body: '{"data":{"uu', headers: { location: '' } });
    const r = await pm(['reminders', 'create', '--title', 'no location']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('so the reminder was created, but its answer is not JSON');
    expect(await onServer('no location')).toHaveLength(1);
  });

  it('PUT done, then the connection reset: sent again (the same change twice is one change)', async () => {
    const uuid = await makeReminder('put before');
    faulty.script('PUT', { kind: 'forward-then-reset' });
    const r = await pm(['reminders', 'update', uuid, '--title', 'put after', '--json', 'title']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ title: 'put after' });
    expect(faulty.count('PUT')).toBe(2);
    expect(await onServer('put after')).toHaveLength(1);
  });

  it('PUT answered 503 then 200: retried', async () => {
    const uuid = await makeReminder('put 503');
    faulty.script('PUT', { kind: 'respond', status: 503 });
    const r = await pm(['reminders', 'update', uuid, '--description', 'x', '-q']);
    expect(r.code).toBe(0);
    expect(faulty.count('PUT')).toBe(2);
  });

  it('DELETE done, then the connection reset: sent again; its 404 counts as deleted', async () => {
    const uuid = await makeReminder('delete me');
    faulty.script('DELETE', { kind: 'forward-then-reset' });
    const r = await pm(['reminders', 'delete', '--yes', uuid]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`Deleted reminder ${uuid}.\n`);
    expect(faulty.requests.filter((q) => q.method === 'DELETE').map((q) => q.upstreamStatus)).toEqual([204, 404]);
    expect(await onServer('delete me')).toHaveLength(0);
  });

  it('DELETE of a missing record is still exit 3 when nothing went wrong on the way', async () => {
    const r = await pm(['reminders', 'delete', '--yes', '00000000-0000-0000-0000-000000000000']);
    expect(r.code).toBe(3);
  });
});

describe('--debug', () => {
  beforeAll(async () => {
    acct = await server.newAccount();
  });

  it('shows the exchange with the token redacted, and each retry decision', async () => {
    faulty.script('GET', { kind: 'respond', status: 503, body: '{"message":"busy"}' });
    faulty.script('POST', { kind: 'forward-then-reset' });
    const read = await pm(['--debug', 'reminders', 'list']);
    expect(read.code).toBe(0);
    expect(read.stderr).toContain(`> GET ${faulty.url}/reminders`);
    expect(read.stderr).toContain('> authorization: Bearer ***');
    expect(read.stderr).toMatch(/< 503 \(\d+ ms\)/);
    expect(read.stderr).toMatch(/\* retrying \(1 of 3\) after 503: waiting \d+\.\d\ds/);
    expect(read.stderr).toContain('(attempt 2 of 4)');
    noKeys();
    const write = await pm(['--debug', 'reminders', 'create', '--title', 'debugged']);
    expect(write.code).toBe(5);
    expect(write.stderr).toContain('* not retried: the POST may have reached the server, and pm never sends one twice');
    expect(write.stderr).toMatch(/\n\s+at /); // the stack trace, with --debug only
    for (const r of [read, write]) {
      expect(r.stdout + r.stderr).not.toContain(acct.token);
      const auth = faulty.requests.map((q) => q.headers.authorization);
      expect(auth.every((a) => a === `Bearer ${acct.token}`)).toBe(true);
    }
  });
});
