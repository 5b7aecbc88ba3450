/**
 * The answers that carry a file's bytes, over real HTTP on either store (the postgres project runs
 * this file again): never a page of the API's origin (sandboxed, and an active type sent as an
 * attachment even on /stream), and counted, whole or a range, by the access log and the metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
const logged: string[] = [];

beforeAll(async () => {
  server = await startTestServer({
    log: { format: 'json', level: 'info', out: { write: (line: string) => logged.push(line) } },
    metrics: true,
  });
});
afterAll(() => server.close());

async function newProperty(acct: Account) {
  const res = await acct.api('POST', '/properties', { address: '1 High Street', postcode: 'LS1 1AA' });
  expect(res.status).toBe(201);
  return res.body.data.uuid as string;
}

/** An upload of `bytes` as `type`: the new attachment's uuid. */
async function upload(acct: Account, name: string, type: string, bytes: string | Uint8Array) {
  const property = await newProperty(acct);
  const res = await fetch(`${server.url}/properties/${property}/attachments?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${acct.token}`, 'content-type': type },
    body: bytes,
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { uuid: string } }).data.uuid;
}

const get = (acct: Account, path: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${acct.token}`, ...headers } });

describe('a file’s bytes', () => {
  it('are sandboxed; HTML, SVG, XHTML, XML and JavaScript are attachments even on /stream', async () => {
    const acct = await server.newAccount();
    const active = [
      ['page.html', 'text/html', '<script>fetch("/properties")</script>'],
      ['logo.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'],
      ['page.xhtml', 'application/xhtml+xml', '<html xmlns="http://www.w3.org/1999/xhtml"></html>'],
      ['feed.xml', 'application/xml', '<?xml version="1.0"?><x/>'],
      ['app.js', 'text/javascript', 'alert(1)'],
    ] as const;
    for (const [name, type, body] of active) {
      const uuid = await upload(acct, name, type, body);
      for (const how of ['stream', 'download']) {
        const res = await get(acct, `/attachments/${uuid}/${how}`);
        expect(res.status, `${how} ${name}`).toBe(200);
        expect(res.headers.get('content-security-policy'), `${how} ${name}`).toBe('sandbox');
        expect(res.headers.get('content-disposition'), `${how} ${name}`).toMatch(/^attachment; /);
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(await res.text()).toBe(body);
      }
    }
    // A picture is still shown inline by /stream, sandboxed too, ranges and 304s included.
    const png = await upload(acct, 'photo.png', 'image/png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]));
    const shown = await get(acct, `/attachments/${png}/stream`);
    expect(shown.headers.get('content-disposition')).toMatch(/^inline; /);
    expect(shown.headers.get('content-security-policy')).toBe('sandbox');
    const part = await get(acct, `/attachments/${png}/stream`, { range: 'bytes=0-3' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-security-policy')).toBe('sandbox');
    const same = await get(acct, `/attachments/${png}/stream`, {
      'if-none-match': shown.headers.get('etag') as string,
    });
    expect(same.status).toBe(304);
    expect(same.headers.get('content-security-policy')).toBe('sandbox');
  });

  it('are counted by the access log and the metrics, a download whole and a range (206)', async () => {
    const acct = await server.newAccount();
    const size = 300_000;
    const uuid = await upload(acct, 'plan.pdf', 'application/pdf', new Uint8Array(size).fill(7));
    const before = await sentOn(`/attachments/{uuid}/download`);
    const whole = await get(acct, `/attachments/${uuid}/download`, { 'x-request-id': `whole-${uuid}` });
    expect((await whole.arrayBuffer()).byteLength).toBe(size);
    const part = await get(acct, `/attachments/${uuid}/download`, {
      range: 'bytes=100-1099',
      'x-request-id': `part-${uuid}`,
    });
    expect(part.status).toBe(206);
    expect((await part.arrayBuffer()).byteLength).toBe(1000);

    expect((await lineOf(`whole-${uuid}`)).bytes).toBe(size);
    const partLine = await lineOf(`part-${uuid}`);
    expect(partLine).toMatchObject({ status: 206, bytes: 1000 });
    expect((await sentOn(`/attachments/{uuid}/download`)) - before).toBe(size + 1000);
  });
});

/** The log's line of a request (written once its answer is sent), as JSON. */
async function lineOf(requestId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const line = logged.find((l) => l.includes(`"${requestId}"`));
    if (line) return JSON.parse(line) as Record<string, unknown>;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no log line of ${requestId}`);
}

/** pm_http_response_body_bytes_total of a route, as GET /metrics says it now. */
async function sentOn(route: string): Promise<number> {
  const text = await (await fetch(server.metricsUrl as string)).text();
  const line = text.split('\n').find((l) => l.startsWith(`pm_http_response_body_bytes_total{route="${route}"}`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}
