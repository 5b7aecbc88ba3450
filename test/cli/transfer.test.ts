/**
 * pm export from one server and pm import into another: a round trip loses nothing. The first
 * server is on SQLite (the default); the second on the suite's store, so that in the postgres
 * project this is a team moving from SQLite to PostgreSQL.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runPm } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  [a, b] = await Promise.all([startTestServer({ store: 'sqlite' }), startTestServer()]);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
});

type Rec = Record<string, unknown>;
const read = (dir: string, name: string): Rec[] =>
  readFileSync(join(dir, `${name}.ndjson`), 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec);

/** An export with uuids replaced by what they point at, and server-set times dropped. */
function canonical(dir: string): Record<string, unknown[]> {
  const label = new Map<string, string>();
  const contacts = read(dir, 'contacts');
  const properties = read(dir, 'properties');
  for (const c of contacts) label.set(c.uuid as string, `contact:${c.email}`);
  for (const p of properties) label.set(p.uuid as string, `property:${p.address}`);
  const strip = (r: Rec): Rec => {
    const { uuid: _u, created_at: _c, updated_at: _up, ...rest } = r;
    for (const k of ['contact', 'property']) if (typeof rest[k] === 'string') rest[k] = label.get(rest[k] as string);
    return rest;
  };
  return Object.fromEntries(
    ['custom-fields', 'contacts', 'properties', 'notes', 'reminders'].map((n) => [n, read(dir, n).map(strip)]),
  );
}

it('copies every record, custom field value, contact link and note parent', async () => {
  const envA = { PM_BASE_URL: a.url, PM_TOKEN: (await a.newAccount()).token };
  const envB = { PM_BASE_URL: b.url, PM_TOKEN: (await b.newAccount()).token };
  const pmA = (args: string[]) => runPm(args, { env: envA });
  const q = async (args: string[]) => (await pmA([...args, '-q'])).stdout.trim();

  await q(['custom-fields', 'create', '--label', 'Boiler', '--type', '1', '--entity-type', 'property']);
  await q(['custom-fields', 'create', '--label', 'Tier', '--name', 'tier', '--type', '1', '--entity-type', 'contact']);
  const ann = await q(['contacts', 'create', '--name', 'Ann', '--email', 'ann@x.test', '--custom-field', 'tier=gold']);
  await q(['contacts', 'create', '--name', 'Bob', '--email', 'bob@x.test', '--city', 'Hull']);
  const p1 = await q([
    'properties',
    'create',
    '--address',
    '1 A St',
    '--postcode',
    'A1',
    '--contact',
    'ann@x.test',
    '--custom-field',
    'boiler=Worcester',
    '--bedrooms',
    '2',
    '--has-garden',
  ]);
  await q(['properties', 'create', '--address', '2 B St', '--postcode', 'B2', '--type', 'flat']);
  await q(['notes', 'create', '--property', p1, '--content', 'Boiler serviced']);
  await q(['notes', 'create', '--contact', ann, '--content', 'Prefers email']);
  await q(['notes', 'create', '--property', p1, '--content', 'Keys with neighbour']);
  await q(['reminders', 'create', '--title', 'Gas', '--due-at', '2026-12-01']);
  await q([
    'reminders',
    'create',
    '--title',
    'Viewing',
    '--due-at',
    '2026-12-02T15:30:00Z',
    '--description',
    'Bring keys',
  ]);

  const d1 = mkdtempSync(join(tmpdir(), 'pm-export-'));
  const exp = await pmA(['export', '--dir', d1, '--force']);
  expect(exp.stderr).toContain('Exported 2 custom fields, 2 contacts, 2 properties, 3 notes, 2 reminders');
  expect(exp.code).toBe(0);
  const imp = await runPm(['import', '--dir', d1], { env: envB });
  expect(imp.stderr).toContain('Imported 2 custom fields, 2 contacts, 2 properties, 3 notes, 2 reminders');
  expect(imp.code).toBe(0);
  const map = JSON.parse(readFileSync(join(d1, 'uuid-map.json'), 'utf8')) as Record<string, string>;
  expect(Object.keys(map)).toHaveLength(11);

  const d2 = mkdtempSync(join(tmpdir(), 'pm-export-'));
  expect((await runPm(['export', '--dir', d2, '--force'], { env: envB })).code).toBe(0);
  const before = canonical(d1);
  expect(canonical(d2)).toEqual(before);
  // And the comparison itself sees what matters.
  expect(before.properties).toContainEqual(
    expect.objectContaining({
      address: '1 A St',
      contact: 'contact:ann@x.test',
      custom_fields: [{ name: 'boiler', value: 'Worcester' }],
      num_notes: 2,
    }),
  );
  expect(before.notes).toContainEqual(
    expect.objectContaining({ content: 'Prefers email', contact: 'contact:ann@x.test' }),
  );
  // Run again with the map in the folder: nothing is created twice.
  const twice = await runPm(['import', '--dir', d1], { env: envB });
  expect(twice.code).toBe(0);
  expect(twice.stderr).toContain(
    'Imported 0 custom fields, 0 contacts, 0 properties, 0 notes, 0 reminders; 11 already imported from this folder',
  );
  const d3 = mkdtempSync(join(tmpdir(), 'pm-export-'));
  expect((await runPm(['export', '--dir', d3, '--force'], { env: envB })).code).toBe(0);
  expect(canonical(d3)).toEqual(before);
  // A record deleted since is created again; into another account, everything is.
  const gone = read(d2, 'reminders')[0]?.uuid as string;
  expect((await runPm(['reminders', 'delete', gone, '--yes'], { env: envB })).code).toBe(0);
  const again = await runPm(['import', '--dir', d1], { env: envB });
  expect(again.stderr).toContain('Imported 0 custom fields, 0 contacts, 0 properties, 0 notes, 1 reminder; 10 already');
  const envC = { PM_BASE_URL: b.url, PM_TOKEN: (await b.newAccount()).token };
  const other = await runPm(['import', '--dir', d1], { env: envC });
  expect(other.stderr).toContain('Imported 2 custom fields, 2 contacts, 2 properties, 3 notes, 2 reminders;');
  expect(other.stderr).not.toContain('already');
  expect(readdirSync(d2).sort()).toEqual([
    'contacts.ndjson',
    'custom-fields.ndjson',
    'notes.ndjson',
    'properties.ndjson',
    'reminders.ndjson',
  ]);
});

it('refuses to write into a folder with files in it, unless --force', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-export-'));
  const env = { PM_BASE_URL: a.url, PM_TOKEN: (await a.newAccount()).token };
  expect((await runPm(['export', '--dir', dir], { env })).code).toBe(0);
  const again = await runPm(['export', '--dir', dir], { env });
  expect(again.code).toBe(2);
  expect(again.stderr).toContain('--force');
});

it('names the file and its line for an export line that is not a record, and creates nothing', async () => {
  const env = { PM_BASE_URL: b.url, PM_TOKEN: (await b.newAccount()).token };
  const dir = mkdtempSync(join(tmpdir(), 'pm-import-'));
  // A good contact, and a bad line in a file imported after contacts: nothing is created.
  writeFileSync(join(dir, 'contacts.ndjson'), '{"name":"Ann","email":"ann@x.test"}\n');
  writeFileSync(join(dir, 'reminders.ndjson'), '\n\nnull\n');
  const r = await runPm(['import', '--dir', dir], { env });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(`${join(dir, 'reminders.ndjson')} line 3: each line must be a JSON object.`);
  expect(JSON.parse((await runPm(['contacts', 'list', '--json'], { env })).stdout)).toEqual([]);
  rmSync(join(dir, 'reminders.ndjson'));
  // A record the server refuses is named by its line in the file, blank lines counted.
  writeFileSync(join(dir, 'contacts.ndjson'), '\n{"first_name":"Ann"}\n');
  const refused = await runPm(['import', '--dir', dir], { env });
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toMatch(/^error: contacts\.ndjson line 2: /);
  expect(JSON.parse((await runPm(['contacts', 'list', '--json'], { env })).stdout)).toEqual([]);
});
