/**
 * pm export from one server and pm import into another: a round trip loses nothing. The first
 * server is on SQLite (the default); the second on the suite's store, so that in the postgres
 * project this is a team moving from SQLite to PostgreSQL.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
  expect(exp.stderr).toContain(
    'Exported 2 custom fields, 0 statuses, 0 contact types, 0 competencies, 2 contacts, 2 properties, 3 notes, 2 reminders, 0 attachments',
  );
  expect(exp.code).toBe(0);
  const imp = await runPm(['import', '--dir', d1], { env: envB });
  expect(imp.stderr).toContain(
    'Imported 2 custom fields, 0 statuses, 0 contact types, 0 competencies, 2 contacts, 2 properties, 3 notes, 2 reminders, 0 attachments',
  );
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
    'Imported 0 custom fields, 0 statuses, 0 contact types, 0 competencies, 0 contacts, 0 properties, 0 notes, 0 reminders, 0 attachments; 11 already imported from this folder',
  );
  const d3 = mkdtempSync(join(tmpdir(), 'pm-export-'));
  expect((await runPm(['export', '--dir', d3, '--force'], { env: envB })).code).toBe(0);
  expect(canonical(d3)).toEqual(before);
  // A record deleted since is created again; into another account, everything is.
  const gone = read(d2, 'reminders')[0]?.uuid as string;
  expect((await runPm(['reminders', 'delete', gone, '--yes'], { env: envB })).code).toBe(0);
  const again = await runPm(['import', '--dir', d1], { env: envB });
  expect(again.stderr).toContain('Imported 0 custom fields, 0 statuses, 0 contact types, 0 competencies, 0 contacts');
  expect(again.stderr).toContain('0 notes, 1 reminder, 0 attachments; 10 already');
  const envC = { PM_BASE_URL: b.url, PM_TOKEN: (await b.newAccount()).token };
  const other = await runPm(['import', '--dir', d1], { env: envC });
  expect(other.stderr).toContain('Imported 2 custom fields, 0 statuses, 0 contact types, 0 competencies, 2 contacts');
  expect(other.stderr).not.toContain('already');
  expect(readdirSync(d2).sort()).toEqual([
    'attachments.ndjson',
    'competencies.ndjson',
    'contacts.ndjson',
    'custom-fields.ndjson',
    'notes.ndjson',
    'properties.ndjson',
    'reminders.ndjson',
    'statuses.ndjson',
    'types.ndjson',
  ]);
});

type Env = Record<string, string>;

/** `pm api` with a JSON body, its answer parsed; a refusal fails the test with pm's message. */
async function api(env: Env, method: string, path: string, body?: unknown): Promise<Rec> {
  const r = await runPm(['api', method, path, ...(body === undefined ? [] : ['--data', JSON.stringify(body)])], {
    env,
  });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Rec;
}

type Embedded = { data: Rec | null };
const labelOf = (e: unknown) => {
  const d = (e as Embedded).data;
  return d === null ? null : `${d.label}${d.type ? ` (${(d.type as { name: string }).name})` : ''}`;
};

/** An account's contacts and properties with what they link to by label (a status with its kind), by name and address. */
async function linkedByLabel(env: Env): Promise<Record<string, unknown>> {
  const list = async (path: string) => (await api(env, 'GET', `${path}&per_page=100`)).data as Rec[];
  const contacts = (await list('/contacts?embed=status,type,competencies')).map((c) => ({
    name: c.name,
    status: labelOf(c.status),
    type: labelOf(c.type),
    competencies: ((c.competencies as { data: Rec[] }).data.map((x) => x.label) as string[]).sort(),
  }));
  const properties = (await list('/properties?embed=status,contact')).map((p) => ({
    address: p.address,
    contact: (p.contact as Embedded).data?.email ?? null,
    status: labelOf(p.status),
  }));
  const by = (k: string) => (x: Rec, y: Rec) => String(x[k]).localeCompare(String(y[k]));
  return { contacts: contacts.sort(by('name')), properties: properties.sort(by('address')) };
}

/** How many records of each catalogue an account has. */
async function catalogueSizes(env: Env): Promise<number[]> {
  const total = async (path: string) =>
    ((await api(env, 'GET', `${path}?per_page=1`)).meta as { pagination: { total: number } }).pagination.total;
  return [await total('/statuses'), await total('/types'), await total('/competencies')];
}

it("carries statuses, contact types and competencies, each record's status and type and its set of competencies; a second import creates none again", async () => {
  const envA = { PM_BASE_URL: a.url, PM_TOKEN: (await a.newAccount()).token };
  const envB = { PM_BASE_URL: b.url, PM_TOKEN: (await b.newAccount()).token };
  const make = async (path: string, body: Rec) => ((await api(envA, 'POST', path, body)).data as Rec).uuid as string;
  // Two statuses share a label, one for each kind of record: a link travels by uuid, not by label.
  await make('/statuses', { label: 'Active', type: { code: 1 } });
  await make('/statuses', { label: 'Active', type: { code: 2 } });
  await make('/statuses', { label: 'For Let', type: { code: 2 } });
  await make('/types', { label: 'Tenant' });
  await make('/types', { label: 'Landlord' });
  for (const label of ['Photography', 'Plumbing', 'Gardening']) await make('/competencies', { label });
  await make('/contacts', {
    name: 'Ann',
    email: 'ann@x.test',
    status: { label: 'Active' },
    type: { label: 'Tenant' },
    competencies: [{ label: 'Photography' }, { label: 'Plumbing' }],
  });
  await make('/contacts', {
    name: 'Bob',
    email: 'bob@x.test',
    type: { label: 'Landlord' },
    competencies: [{ label: 'Plumbing' }],
  });
  await make('/contacts', { name: 'Cy', email: 'cy@x.test' });
  await make('/properties', {
    address: '1 A St',
    postcode: 'A1',
    contact: { email: 'ann@x.test' },
    status: { label: 'For Let' },
  });
  await make('/properties', { address: '2 B St', postcode: 'B2', status: { label: 'Active' } });
  await make('/properties', { address: '3 C St', postcode: 'C3' });
  const expected = {
    contacts: [
      { name: 'Ann', status: 'Active (Contact)', type: 'Tenant', competencies: ['Photography', 'Plumbing'] },
      { name: 'Bob', status: null, type: 'Landlord', competencies: ['Plumbing'] },
      { name: 'Cy', status: null, type: null, competencies: [] },
    ],
    properties: [
      { address: '1 A St', contact: 'ann@x.test', status: 'For Let (Property)' },
      { address: '2 B St', contact: null, status: 'Active (Property)' },
      { address: '3 C St', contact: null, status: null },
    ],
  };
  expect(await linkedByLabel(envA)).toEqual(expected);

  const dir = mkdtempSync(join(tmpdir(), 'pm-export-'));
  const exp = await runPm(['export', '--dir', dir, '--force'], { env: envA });
  expect(exp.code).toBe(0);
  expect(exp.stderr).toContain('3 statuses, 2 contact types, 3 competencies, 3 contacts, 3 properties');
  // On disk: the catalogues as records, and a link as the linked record's uuid, a set as a list of them.
  const uuidOf = (file: string, label: string) => read(dir, file).find((x) => x.label === label)?.uuid;
  expect(read(dir, 'types').map((t) => t.label)).toEqual(['Tenant', 'Landlord']);
  const ann = read(dir, 'contacts').find((c) => c.name === 'Ann') as Rec;
  expect(ann.type).toBe(uuidOf('types', 'Tenant'));
  expect(ann.competencies).toEqual([uuidOf('competencies', 'Photography'), uuidOf('competencies', 'Plumbing')]);
  expect(read(dir, 'contacts').find((c) => c.name === 'Cy')).toMatchObject({
    status: null,
    type: null,
    competencies: [],
  });
  expect(read(dir, 'properties').find((p) => p.address === '1 A St')?.status).toBe(uuidOf('statuses', 'For Let'));

  const imp = await runPm(['import', '--dir', dir], { env: envB });
  expect(imp.stderr).toContain(
    'Imported 0 custom fields, 3 statuses, 2 contact types, 3 competencies, 3 contacts, 3 properties, 0 notes, 0 reminders, 0 attachments;',
  );
  expect(imp.code).toBe(0);
  expect(await linkedByLabel(envB)).toEqual(expected);
  expect(await catalogueSizes(envB)).toEqual([3, 2, 3]);

  // Again: nothing is created twice, catalogues included, and every link still holds.
  const twice = await runPm(['import', '--dir', dir], { env: envB });
  expect(twice.code).toBe(0);
  expect(twice.stderr).toContain(
    'Imported 0 custom fields, 0 statuses, 0 contact types, 0 competencies, 0 contacts, 0 properties, 0 notes, 0 reminders, 0 attachments; 14 already imported from this folder',
  );
  expect(await catalogueSizes(envB)).toEqual([3, 2, 3]);
  expect(await linkedByLabel(envB)).toEqual(expected);

  // A competency the export names but does not hold stops the import at that line, naming it.
  writeFileSync(
    join(dir, 'contacts.ndjson'),
    `${JSON.stringify({ name: 'Di', email: 'di@x.test', competencies: ['0b0e7a4e-0000-4000-8000-000000000000'] })}\n`,
  );
  // (The map of the import above names contacts this file no longer has: it is moved away.)
  rmSync(join(dir, 'uuid-map.json'));
  const envC = { PM_BASE_URL: b.url, PM_TOKEN: (await b.newAccount()).token };
  const missing = await runPm(['import', '--dir', dir], { env: envC });
  expect(missing.code).not.toBe(0);
  expect(missing.stderr).toContain(
    'contacts.ndjson line 1: its competency 0b0e7a4e-0000-4000-8000-000000000000 was not imported.',
  );
});

it('imports an export made before statuses, contact types and competencies existed', async () => {
  const env = { PM_BASE_URL: b.url, PM_TOKEN: (await b.newAccount()).token };
  const dir = mkdtempSync(join(tmpdir(), 'pm-import-'));
  // Lines as pm export wrote them then: no catalogue files, no status, type or competencies keys.
  const contact = {
    uuid: '5d1c2a8e-6b7f-4c4e-9a51-0c1f2e3d4b5a',
    created_at: '2026-10-01T09:00:00+00:00',
    updated_at: '2026-10-01T09:00:00+00:00',
    name: 'Ann',
    email: 'ann@x.test',
    contact_number: null,
    company: null,
    address: null,
    address2: null,
    city: 'Leeds',
    county: null,
    postcode: null,
    num_attachments: 0,
    num_notes: 0,
  };
  const property = {
    uuid: '8a7b6c5d-4e3f-4a1b-8c9d-0e1f2a3b4c5d',
    created_at: '2026-10-01T09:00:00+00:00',
    updated_at: '2026-10-01T09:00:00+00:00',
    address: '1 A St',
    address2: null,
    city: null,
    county: null,
    postcode: 'A1',
    type: 'house',
    bedrooms: 2,
    bathrooms: 1,
    has_garage: false,
    has_garden: true,
    has_parking: false,
    num_attachments: 0,
    num_notes: 0,
    contact: contact.uuid,
  };
  writeFileSync(join(dir, 'custom-fields.ndjson'), '');
  writeFileSync(join(dir, 'contacts.ndjson'), `${JSON.stringify(contact)}\n`);
  writeFileSync(join(dir, 'properties.ndjson'), `${JSON.stringify(property)}\n`);
  writeFileSync(join(dir, 'notes.ndjson'), '');
  writeFileSync(join(dir, 'reminders.ndjson'), '');
  const r = await runPm(['import', '--dir', dir], { env });
  expect(r.stderr).toContain(
    'Imported 0 custom fields, 0 statuses, 0 contact types, 0 competencies, 1 contact, 1 property, 0 notes, 0 reminders, 0 attachments;',
  );
  expect(r.code).toBe(0);
  expect(await linkedByLabel(env)).toEqual({
    contacts: [{ name: 'Ann', status: null, type: null, competencies: [] }],
    properties: [{ address: '1 A St', contact: 'ann@x.test', status: null }],
  });
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

it('follows no symbolic link among the export files: refused by name, nothing read from it, nothing created', async () => {
  const env = { PM_BASE_URL: b.url, PM_TOKEN: (await b.newAccount()).token };
  const dir = mkdtempSync(join(tmpdir(), 'pm-import-'));
  try {
    writeFileSync(join(dir, 'contacts.ndjson'), '{"name":"Ann","email":"ann@x.test"}\n');
    // A file of records elsewhere, and a file that is not pm's at all.
    const elsewhere = join(dir, 'elsewhere.txt');
    writeFileSync(elsewhere, '{"title":"from a linked file"}\n');
    for (const target of [elsewhere, '/etc/passwd']) {
      rmSync(join(dir, 'reminders.ndjson'), { force: true });
      symlinkSync(target, join(dir, 'reminders.ndjson'));
      const r = await runPm(['import', '--dir', dir], { env });
      expect(r.code, target).toBe(2);
      expect(r.stderr, target).toContain(
        `${join(dir, 'reminders.ndjson')} is a symbolic link: pm import reads only the files pm export wrote, never a link`,
      );
      expect(r.stderr, target).not.toMatch(/root:|from a linked file/);
    }
    expect(JSON.parse((await runPm(['contacts', 'list', '--json'], { env })).stdout)).toEqual([]);
    expect(JSON.parse((await runPm(['reminders', 'list', '--json'], { env })).stdout)).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('checks uuid-map.json against the export: a key not of its records, or a value not a uuid, is refused', async () => {
  const env = { PM_BASE_URL: b.url, PM_TOKEN: (await b.newAccount()).token };
  const dir = mkdtempSync(join(tmpdir(), 'pm-import-'));
  try {
    const ann = '11111111-2222-4333-8444-555555555555';
    writeFileSync(join(dir, 'contacts.ndjson'), `{"uuid":"${ann}","name":"Ann","email":"ann@x.test"}\n`);
    const other = '99999999-2222-4333-8444-555555555555';
    const cases: [Record<string, unknown>, string][] = [
      [{ [other]: ann }, `does not belong to this export: "${other}" is not the uuid of a record in it`],
      [{ [ann]: '../../properties' }, `the new uuid of ${ann}, "../../properties", is not a uuid`],
      [{ [ann]: 7 }, `the new uuid of ${ann}, 7, is not a uuid`],
    ];
    for (const [map, message] of cases) {
      writeFileSync(join(dir, 'uuid-map.json'), JSON.stringify(map));
      const r = await runPm(['import', '--dir', dir], { env });
      expect(r.code, message).toBe(2);
      expect(r.stderr, message).toContain(message);
      expect(r.stderr, message).toContain('move it away to import everything anew');
    }
    expect(JSON.parse((await runPm(['contacts', 'list', '--json'], { env })).stdout)).toEqual([]);
    // The map a run writes fits, and a second run creates nothing again.
    rmSync(join(dir, 'uuid-map.json'));
    expect((await runPm(['import', '--dir', dir], { env })).code).toBe(0);
    const again = await runPm(['import', '--dir', dir], { env });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('1 already imported from this folder');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
