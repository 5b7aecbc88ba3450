/**
 * The embedded default: the answers of `pm serve`, given in-process, without loading node:http's
 * server or Node's fetch classes (whose start-up every CLI run would pay).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Embedded, openEmbedded } from '../../src/server/embedded.js';
import { type BuiltServer, buildServer } from '../helpers/build-server.js';
import { checkAnswer } from '../helpers/openapi.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { propertyBody } from './fixtures.js';

/**
 * Run in a child on the compiled server: a list through the dispatcher, then which of node:http's
 * server and undici (Node's fetch classes) were loaded; then both loaded on purpose, to show the
 * checks see them.
 */
const CHILD = `
import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const [embeddedUrl, dataFile] = process.argv.slice(1);
const resolved = [];
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => resolved.push(url));
port1.unref();
const hook = 'let port; export function initialize(d) { port = d.port; }' +
  'export async function resolve(s, c, next) { const r = await next(s, c); port.postMessage(r.url); return r; }';
register('data:text/javascript,' + encodeURIComponent(hook), { data: { port: port2 }, transferList: [port2] });
/** Every module resolved so far has been reported once this marker has. */
async function flush() {
  const marker = 'data:text/javascript,export default ' + Date.now();
  await import(marker);
  while (!resolved.includes(marker)) await new Promise((r) => setTimeout(r, 5));
}
const loaded = async () => {
  await flush();
  const files = [...resolved, ...Object.keys(createRequire(import.meta.url).cache)];
  return {
    httpServer:
      process.moduleLoadList.includes('NativeModule _http_server') || files.some((f) => /^(node:)?https?$/.test(f)),
    undici: process.moduleLoadList.some((m) => m.includes('internal/deps/undici')),
  };
};
const { openEmbedded } = await import(embeddedUrl);
const e = openEmbedded(dataFile);
const res = await e.dispatcher.request({
  origin: e.url,
  path: '/properties?city=leeds&per_page=5',
  method: 'GET',
  headers: { authorization: 'Bearer ' + e.token },
});
let text = '';
for await (const chunk of res.body) text += chunk;
await e.close();
const before = await loaded();
(await import('node:http')).createServer();
new Response('x');
console.log(JSON.stringify({ status: res.statusCode, body: JSON.parse(text), before, after: await loaded() }));
`;

describe('what the embedded default loads', () => {
  let built: BuiltServer;
  let dir: string;
  beforeAll(() => {
    built = buildServer('pm-embedded-', ['embedded.ts']);
    dir = mkdtempSync(join(tmpdir(), 'pm-embedded-'));
  });
  afterAll(() => {
    built?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers a list with neither node:http's server nor undici loaded", () => {
    const embedded = new URL('embedded.js', built.module).href;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', CHILD, embedded, join(dir, 'pm.db')], {
      cwd: new URL('.', built.module),
      encoding: 'utf8',
      timeout: 15_000,
    });
    const result = JSON.parse(out);
    expect(result.status).toBe(200);
    expect(result.body.meta.pagination.total).toBe(0);
    expect(result.before).toEqual({ httpServer: false, undici: false });
    expect(result.after).toEqual({ httpServer: true, undici: true });
  });
});

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly text: string;
}

type Send = (method: string, path: string, body?: unknown, token?: string) => Promise<Answer>;

describe('the embedded default answers as the server does', () => {
  let server: TestServer;
  let embedded: Embedded;
  let dir: string;
  beforeAll(async () => {
    server = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'pm-embedded-'));
    embedded = openEmbedded(join(dir, 'pm.db'));
  });
  afterAll(async () => {
    await embedded?.close();
    rmSync(dir, { recursive: true, force: true });
    await server?.close();
  });

  const headers = (token: string, body: unknown): Record<string, string> => ({
    authorization: `Bearer ${token}`,
    ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
  });
  const overHttp: Send = async (method, path, body, token = server.token) => {
    const res = await fetch(server.url + path, {
      method,
      headers: headers(token, body),
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    checkAnswer(method, path, { status: res.status, headers: res.headers, text });
    return { status: res.status, headers: Object.fromEntries(res.headers), text };
  };
  const inProcess: Send = async (method, path, body, token = embedded.token) => {
    const res = await embedded.dispatcher.request({
      origin: embedded.url,
      path,
      method,
      headers: headers(token, body),
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    let text = '';
    for await (const chunk of res.body) text += chunk;
    const h = new Headers();
    for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
    checkAnswer(method, path, { status: res.statusCode, headers: h, text });
    return { status: res.statusCode, headers: res.headers, text };
  };

  /** The same requests to both; what differs by nature (uuids, times, the origin) made alike. */
  async function exchange(send: Send, origin: string) {
    const p = JSON.parse((await send('POST', '/properties', propertyBody({ city: 'Leeds', bedrooms: 3 }))).text);
    await send('POST', '/properties', propertyBody({ city: 'Leeds', bedrooms: 2 }));
    await send('POST', '/properties', propertyBody({ city: 'Leeds town', bedrooms: 3 }));
    const answers = [
      await send('GET', '/properties?city=leeds&bedrooms=3&per_page=1'),
      await send('GET', '/properties?city=leeds&bedrooms=3&per_page=1&page=2'),
      await send('GET', '/properties?colour=red'),
      await send('GET', `/properties/${p.data.uuid}?embed=contact`),
      await send('GET', '/properties/00000000-0000-4000-8000-000000000000'),
      await send('POST', '/properties', propertyBody({ city: 'York' })),
      await send('POST', '/properties', { bedrooms: 'three' }),
      await send('GET', '/properties', undefined, 'pm_wrong'),
      await send('PATCH', '/properties', {}),
      await send('PUT', '/notes/00000000-0000-4000-8000-000000000000', { content: 'x' }),
      await send('GET', '/houses'),
      await send('HEAD', '/properties'),
      await send('DELETE', `/properties/${p.data.uuid}`),
    ];
    const uuids = new Map<string, string>();
    const alike = (s: string) =>
      s
        // An error body's request id is pm serve's, for its log: the embedded default has none.
        .replace(/,"request_id":"[^"]*"/g, '')
        .replaceAll(origin, 'ORIGIN')
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00/g, 'TIME')
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/g, (u) => {
          if (!uuids.has(u)) uuids.set(u, `uuid${uuids.size}`);
          return uuids.get(u) as string;
        });
    // Not content-type on a 204, which has none.
    const names = (a: Answer) => [
      ...(a.status === 204 ? [] : ['content-type']),
      'location',
      'allow',
      'www-authenticate',
    ];
    return answers.map((a) => ({
      status: a.status,
      body: alike(a.text),
      headers: Object.fromEntries(names(a).map((k) => [k, alike(a.headers[k] ?? '')])),
    }));
  }

  it('status, body and headers, request by request', async () => {
    const http = await exchange(overHttp, server.url);
    const local = await exchange(inProcess, embedded.url);
    expect(http.map((a) => a.status)).toEqual([200, 200, 400, 200, 404, 201, 422, 401, 405, 405, 404, 200, 204]);
    expect(http[5]?.headers.location).toMatch(/^ORIGIN\/properties\/uuid\d+$/);
    expect(local).toEqual(http);
  });
});
