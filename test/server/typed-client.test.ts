/**
 * A typed client generated from the OpenAPI document works: openapi-typescript makes the types
 * from what `pm serve` serves at /openapi.json, TypeScript checks a short openapi-fetch script
 * against them (and refuses one that breaks them), and the script runs against the server.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

let server: TestServer;
let dir: string;
beforeAll(async () => {
  server = await startTestServer();
  // Inside the project, so that the script finds openapi-fetch in its node_modules.
  mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
  dir = mkdtempSync(join(ROOT, 'node_modules', '.cache', 'pm-typed-client-'));
  const doc = (await server.api('GET', '/openapi.json', undefined, { token: null })).body;
  writeFileSync(join(dir, 'schema.d.ts'), astToString(await openapiTS(doc)));
  writeFileSync(join(dir, 'package.json'), '{"type": "module"}\n');
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
});

const PRELUDE = `
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const client = createClient<paths>({
  baseUrl: process.env.PM_URL,
  headers: { Authorization: \`Bearer \${process.env.PM_TOKEN}\` },
});
function must<T>(r: { data?: T; error?: unknown; response: Response }): T {
  if (r.data === undefined) throw new Error(\`\${r.response.status}: \${JSON.stringify(r.error)}\`);
  return r.data;
}
`;

const SCRIPT = `${PRELUDE}
const contact = must(await client.POST('/contacts', { body: { name: 'Ada Lovelace', email: 'ada@example.com' } })).data;
const field = must(
  await client.POST('/custom-fields', { body: { label: 'Roof', type: { code: 1 }, entity_type: { code: 2 } } }),
).data;
const property = must(
  await client.POST('/properties', {
    body: {
      address: '1 High Street',
      postcode: 'LS1 1AA',
      city: 'Leeds',
      bedrooms: 3,
      has_garden: true,
      contact: { email: 'ADA@example.com' },
      custom_fields: [{ name: field.name, value: 'slate' }],
    },
  }),
).data;
const note = must(
  await client.POST('/properties/{uuid}/notes', {
    params: { path: { uuid: property.uuid } },
    body: { content: 'Boiler serviced' },
  }),
).data;
const reminder = must(await client.POST('/reminders', { body: { title: 'Renew insurance', due_at: '2026-12-01' } })).data;

const leeds = must(
  await client.GET('/properties', {
    params: { query: { city: 'leed', 'bedrooms[]': [2, 3], has_garden: 'true', embed: 'custom_fields,contact' } },
  }),
);
const none = must(await client.GET('/properties', { params: { query: { city: 'york' } } }));
const notes = must(await client.GET('/notes', { params: { query: { 'property[uuid]': property.uuid } } }));
const due = must(await client.GET('/reminders', { params: { query: { due_at: '2026-12-01/P1D', per_page: 5 } } }));
const missing = await client.GET('/properties/{uuid}', {
  params: { path: { uuid: '3f2a9c1e-5b7d-4c1a-9e0f-2b6d8a4c7e15' } },
});
const first = leeds.data[0];
console.log(
  JSON.stringify({
    contact: contact.email,
    property: property.address,
    numNotes: must(await client.GET('/properties/{uuid}', { params: { path: { uuid: property.uuid } } })).data.num_notes,
    note: note.content,
    reminder: [reminder.due_at, reminder.anytime],
    leeds: leeds.meta.pagination.total,
    embedded: [first?.custom_fields?.data[0]?.value, first?.contact?.data?.name],
    none: none.data.length,
    notes: notes.data.map((n) => n.content),
    due: due.data.map((r) => r.title),
    missing: [missing.response.status, missing.error?.message],
  }),
);
`;

async function typeCheck(name: string, source: string): Promise<{ ok: boolean; output: string }> {
  writeFileSync(join(dir, name), source);
  const args = [TSC, '--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext'];
  try {
    await run(process.execPath, [...args, '--moduleResolution', 'nodenext', '--outDir', 'out', name], { cwd: dir });
    return { ok: true, output: '' };
  } catch (e) {
    return { ok: false, output: String((e as { stdout?: string }).stdout) };
  }
}

describe('a client generated from the document', () => {
  it('type-checks, and runs against pm serve: writes, relations, custom values, filtered lists', async () => {
    const checked = await typeCheck('script.ts', SCRIPT);
    expect(checked.output).toBe('');
    expect(checked.ok).toBe(true);
    const { stdout } = await run(process.execPath, [join(dir, 'out', 'script.js')], {
      env: { ...process.env, PM_URL: server.url, PM_TOKEN: server.token },
    });
    expect(JSON.parse(stdout)).toEqual({
      contact: 'ada@example.com',
      property: '1 High Street',
      numNotes: 1,
      note: 'Boiler serviced',
      reminder: ['2026-12-01', true],
      leeds: 1,
      embedded: ['slate', 'Ada Lovelace'],
      none: 0,
      notes: ['Boiler serviced'],
      due: ['Renew insurance'],
      missing: [404, expect.stringMatching(/^No property/)],
    });
  }, 60_000);

  it('refuses at compile time what the API would refuse: a wrong type, an unknown field or path', async () => {
    const bad = `${PRELUDE}
await client.POST('/properties', { body: { address: 'x', postcode: 'y', bedrooms: 'three' } });
await client.POST('/reminders', { body: { titel: 'typo' } });
await client.GET('/propertys');
await client.PUT('/notes/{uuid}', { params: { path: { uuid: 'x' } }, body: { content: 'x' } });
`;
    const checked = await typeCheck('bad.ts', bad);
    expect(checked.ok).toBe(false);
    // One error on each of the four calls, and none elsewhere.
    const lines = bad.split('\n');
    const lineOf = (text: string) => lines.findIndex((l) => l.includes(text)) + 1;
    const errorLines = [...checked.output.matchAll(/^bad\.ts\((\d+),/gm)].map((m) => Number(m[1]));
    expect(errorLines).toEqual([lineOf("'three'"), lineOf('titel'), lineOf('/propertys'), lineOf("PUT('/notes")]);
    expect(checked.output).toMatch(/'string' is not assignable to type 'number'/);
    expect(checked.output).toMatch(/'titel' does not exist/);
  }, 60_000);
});
