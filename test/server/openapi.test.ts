/**
 * The OpenAPI document: served at /openapi.json without a token, valid by a third-party
 * validator, equal to docs/openapi.json, and naming exactly the routes the server has. (Every
 * answer of the server tests is checked against it by test/helpers/openapi.ts.)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/resources/index.js';
import { startServer } from '../../src/server/index.js';
import { create, propertyBody } from './fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

type Obj = Record<string, Record<string, unknown>>;
const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'];
const UUID = '3f2a9c1e-5b7d-4c1a-9e0f-2b6d8a4c7e15';

describe('GET /openapi.json', () => {
  it('is served without a token, as JSON, and HEAD gives its length', async () => {
    const res = await server.api('GET', '/openapi.json', undefined, { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.body.openapi).toBe('3.1.0');
    const head = await server.api('HEAD', '/openapi.json', undefined, { token: null });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(res.text)));
    const post = await server.api('POST', '/openapi.json', {}, { token: null });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('is a valid OpenAPI 3.1 document by a third-party validator', async () => {
    const res = await server.api('GET', '/openapi.json', undefined, { token: null });
    const result = await validate(structuredClone(res.body));
    expect(result.valid, JSON.stringify(result, null, 2)).toBe(true);
    expect(result.warnings).toEqual([]);
  });

  it('the validator refuses a broken one (a $ref to nothing)', async () => {
    const res = await server.api('GET', '/openapi.json', undefined, { token: null });
    const broken = structuredClone(res.body);
    broken.paths['/properties'].get.responses['200'].content['application/json'].schema = {
      $ref: '#/components/schemas/Nothing',
    };
    const result = await validate(broken);
    expect(result.valid).toBe(false);
    expect(JSON.stringify(result)).toMatch(/Nothing/);
  });

  it('equals docs/openapi.json (after a change of the API, `npm run openapi` writes it again), but for its server', async () => {
    const res = await server.api('GET', '/openapi.json', undefined, { token: null });
    const copy = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    expect(copy, 'docs/openapi.json is out of date: run `npm run openapi`').toEqual({
      ...res.body,
      servers: copy.servers,
    });
    // The copy names pm serve's default address; a served one, the server it is served from.
    expect(copy.servers).toEqual([expect.objectContaining({ url: 'http://127.0.0.1:8080' })]);
    expect(res.body.servers).toEqual([{ url: new URL(server.url).origin, description: 'this server' }]);
  });

  it('names the origin it is asked at: --public-url behind a proxy, else the Host it was sent to', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pm-openapi-'));
    const proxied = await startServer({ dataFile: join(dir, 'pm.db'), port: 0, publicUrl: 'https://pm.example.com' });
    try {
      const doc = (await (await fetch(`${proxied.url}/openapi.json`)).json()) as { servers: { url: string }[] };
      expect(doc.servers.map((x) => x.url)).toEqual(['https://pm.example.com']);
    } finally {
      await proxied.close();
      rmSync(dir, { recursive: true, force: true });
    }
    const port = new URL(server.url).port;
    const other = await fetch(`http://localhost:${port}/openapi.json`);
    expect(((await other.json()) as { servers: { url: string }[] }).servers[0]?.url).toBe(`http://localhost:${port}`);
  });
});

describe('the document and the routes', () => {
  it('every operation it lists is one the server has (no 404 "No endpoint", no 405)', async () => {
    const doc = (await server.api('GET', '/openapi.json', undefined, { token: null })).body as { paths: Obj };
    const p = await create(server.api, '/properties', propertyBody());
    let checked = 0;
    for (const [template, item] of Object.entries(doc.paths))
      for (const method of METHODS.filter((m) => m in item)) {
        const path = template.replace('{uuid}', template.startsWith('/properties/') ? p.uuid : UUID);
        const body = method === 'post' || method === 'put' ? {} : undefined;
        const res = await server.api(method.toUpperCase(), path, body);
        expect(res.status, `${method} ${template}: ${res.text}`).not.toBe(405);
        expect(res.text, `${method} ${template}`).not.toMatch(/No endpoint/);
        checked++;
      }
    expect(checked).toBeGreaterThan(20);
  });

  it('a method the document does not list for a path is 405 on the server', async () => {
    const doc = (await server.api('GET', '/openapi.json', undefined, { token: null })).body as { paths: Obj };
    for (const [template, item] of Object.entries(doc.paths))
      for (const method of METHODS.filter((m) => !(m in item))) {
        const body = method === 'get' || method === 'head' ? undefined : {};
        const res = await server.api(method.toUpperCase(), template.replace('{uuid}', UUID), body);
        expect(res.status, `${method} ${template}`).toBe(405);
      }
  });

  it('lists every resource with its scopes, and every field of its records', async () => {
    const doc = (await server.api('GET', '/openapi.json', undefined, { token: null })).body;
    for (const r of RESOURCES) {
      const get = doc.paths[`/${r.path}/{uuid}`].get;
      expect(get.security).toEqual([{ bearerAuth: [`${r.scope}.read`] }]);
      const schema = get.responses['200'].content['application/json'].schema.properties.data.$ref.split('/').pop();
      expect(doc.components.schemas[schema].required).toEqual(r.fields.map((f) => f.name));
    }
  });
});

describe('fidelity', () => {
  it('204 answers carry no Content-Type; HEAD answers carry the Content-Length of GET', async () => {
    const p = await create(server.api, '/properties', propertyBody());
    const get = await server.api('GET', `/properties/${p.uuid}`);
    const head = await server.api('HEAD', `/properties/${p.uuid}`);
    expect(head.text).toBe('');
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(get.text)));
    const del = await server.api('DELETE', `/properties/${p.uuid}`);
    expect(del.status).toBe(204);
    expect(del.headers.get('content-type')).toBeNull();
    expect(del.text).toBe('');
  });

  it('a reminder created without due_at answers due_at null, as the document says', async () => {
    const r = await create(server.api, '/reminders', { title: 'No date' });
    expect(r.due_at).toBeNull();
    const doc = (await server.api('GET', '/openapi.json', undefined, { token: null })).body;
    expect(doc.components.schemas.Reminder.properties.due_at.anyOf).toContainEqual({ type: 'null' });
  });
});
