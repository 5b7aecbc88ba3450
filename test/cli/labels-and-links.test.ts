/**
 * What a script can trust, in-process against the real server: a label names one record (a
 * duplicate is refused; import and apply reuse the one there); a property's contact is changed,
 * cleared and filtered by, and `contacts get` shows a contact's properties; JSON, NDJSON and CSV
 * carry a record's status, type and competencies, and what CSV carries is read back.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pmAgainstServer, runPm } from '../helpers/cli.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let acct: Account;
let dir: string;
const pm = pmAgainstServer(() => ({ url: server.url, token: acct.token }));
type Rec = Record<string, unknown>;

/** The uuid a command printed with -q, checked to have succeeded. */
async function made(args: string[]): Promise<string> {
  const r = await pm([...args, '-q']);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  return r.stdout.trim();
}
const jsonOf = async (args: string[]) => {
  const r = await pm(args);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(r.stdout);
};
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  acct = await server.newAccount();
  dir = mkdtempSync(join(tmpdir(), 'pm-labels-'));
});

describe('a label names one record', () => {
  it('a second status, type or competency of a label, case aside, is refused naming --label, exit 1', async () => {
    await made(['statuses', 'create', '--label', 'For Let', '--type', 'property']);
    const again = await pm(['statuses', 'create', '--label', 'for let', '--type', 'property']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('label: A status with label "for let" already exists');
    // Of another type it is another status.
    await made(['statuses', 'create', '--label', 'for let', '--type', 'contact']);
    await made(['types', 'create', '--label', 'Tenant']);
    const landlord = await made(['types', 'create', '--label', 'Landlord']);
    const renamed = await pm(['types', 'update', landlord, '--label', 'TENANT']);
    expect(renamed.code).toBe(1);
    expect(renamed.stderr).toContain('label: A contact type with label "TENANT" already exists');
    await made(['competencies', 'create', '--label', 'Roofing']);
    expect((await pm(['competencies', 'create', '--label', 'roofing'])).code).toBe(1);
    expect((await jsonOf(['competencies', 'list', '--json', 'label'])).length).toBe(1);
  });

  it('apply matches a label in another case to the record there, and creates none', async () => {
    const there = await made(['statuses', 'create', '--label', 'For Let', '--type', 'property']);
    const csv = file('s.csv', 'label,type\nfor let,property\nSold,property\n');
    const r = await pm(['statuses', 'apply', '--from-file', csv, '--key', 'type,label', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as Rec[];
    expect(result.map((x) => [x.status, x.uuid === there])).toEqual([
      ['updated', true],
      ['created', false],
    ]);
    const statuses = await jsonOf(['statuses', 'list', '--json', 'label']);
    expect(statuses).toEqual([{ label: 'for let' }, { label: 'Sold' }]);
    // Run again: nothing to do.
    const again = await pm(['statuses', 'apply', '--from-file', csv, '--key', 'type,label']);
    expect(again.stderr).toBe('created 0, updated 0, deleted 0, unchanged 2, failed 0\n');
  });

  it('import uses a label the account has in another case, and links its records to it', async () => {
    await made(['statuses', 'create', '--label', 'For Let', '--type', 'property']);
    await made(['competencies', 'create', '--label', 'Plumbing']);
    await made(['contacts', 'create', '--name', 'Ann', '--email', 'ann@example.com', '--competency', 'Plumbing']);
    await made(['properties', 'create', '--address', '1 High St', '--postcode', 'LS1', '--status', 'For Let']);
    const out = mkdtempSync(join(tmpdir(), 'pm-export-'));
    expect((await pm(['export', '--dir', out, '--force'])).code).toBe(0);
    const other = await server.newAccount();
    const envB = { PM_BASE_URL: server.url, PM_TOKEN: other.token };
    const before = await runPm(['statuses', 'create', '--label', 'FOR LET', '--type', 'property', '-q'], {
      env: envB,
    });
    const plumbing = await runPm(['competencies', 'create', '--label', 'plumbing', '-q'], { env: envB });
    const imp = await runPm(['import', '--dir', out], { env: envB });
    expect(imp.code, imp.stderr).toBe(0);
    const listed = async (args: string[]) => JSON.parse((await runPm(args, { env: envB })).stdout);
    expect((await listed(['statuses', 'list', '--json', 'uuid'])).map((s: Rec) => s.uuid)).toEqual([
      before.stdout.trim(),
    ]);
    const [p] = await listed(['properties', 'list', '--json']);
    expect(p.status.data).toMatchObject({ uuid: before.stdout.trim(), label: 'FOR LET' });
    const [c] = await listed(['contacts', 'list', '--json']);
    expect(c.competencies.data.map((x: Rec) => x.uuid)).toEqual([plumbing.stdout.trim()]);
  });
});

describe("a property's contact", () => {
  it('is changed by uuid or email, cleared, and filtered by', async () => {
    const ann = await made(['contacts', 'create', '--name', 'Ann', '--email', 'ann@example.com']);
    const bob = await made(['contacts', 'create', '--name', 'Bob', '--email', 'bob@example.com']);
    const p = await made(['properties', 'create', '--address', '1 High St', '--postcode', 'LS1', '--contact', ann]);
    const q = await made(['properties', 'create', '--address', '2 High St', '--postcode', 'LS1']);
    const contactOf = async (uuid: string) =>
      (await jsonOf(['properties', 'get', uuid, '--embed', 'contact', '--json', 'contact'])).contact.data?.email ??
      null;
    expect(await contactOf(p)).toBe('ann@example.com');
    const changed = await pm(['properties', 'update', p, '--contact', 'BOB@example.com', '--json', 'contact']);
    expect(changed.code, changed.stderr).toBe(0);
    expect(JSON.parse(changed.stdout).contact.data).toMatchObject({ uuid: bob, email: 'bob@example.com' });
    expect(await contactOf(p)).toBe('bob@example.com');
    await made(['properties', 'update', q, '--contact', ann]);
    const of = async (...args: string[]) => (await pm(['properties', 'list', ...args, '-q'])).stdout.trim();
    expect(await of('--contact', 'bob@example.com')).toBe(p);
    expect(await of('--contact', ann)).toBe(q);
    expect(await of('--contact', 'ann@example.com', '--contact', 'bob@example.com')).toBe(`${p}\n${q}`);
    await made(['properties', 'update', p, '--no-contact']);
    expect(await contactOf(p)).toBeNull();
    expect(await of('--contact', 'bob@example.com')).toBe('');
    const unknown = await pm(['properties', 'update', p, '--contact', 'cy@example.com']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--contact: no contact has');
    expect(unknown.stderr).toContain('"cy@example.com"');
  });

  it("contacts get shows the contact's properties: on a terminal a line each, piped with whole uuids", async () => {
    const ann = await made(['contacts', 'create', '--name', 'Ann', '--email', 'ann@example.com']);
    const props: string[] = [];
    for (const n of [1, 2, 3])
      props.push(
        await made([
          'properties',
          'create',
          ...['--address', `${n} High St`, '--postcode', 'LS1 1AA', '--city', 'Leeds', '--contact', ann],
        ]),
      );
    await made(['properties', 'create', '--address', '9 Other St', '--postcode', 'LS9']);
    const piped = await pm(['contacts', 'get', ann]);
    expect(piped.stdout).toContain(
      `properties\t${props.map((u, i) => `${u}  ${i + 1} High St, Leeds, LS1 1AA`).join('\\n')}\n`,
    );
    const term = await pm(['contacts', 'get', ann], { tty: true, env: { NO_COLOR: '1' } });
    expect(term.stdout).toMatch(new RegExp(`properties +${props[0]?.slice(0, 8)}  1 High St, Leeds, LS1 1AA\\n`));
    expect(term.stdout).toContain(`${props[2]?.slice(0, 8)}  3 High St, Leeds, LS1 1AA\n`);
    expect(term.stdout).not.toContain('Other St');
    // A contact of none: the line is empty.
    const bob = await made(['contacts', 'create', '--name', 'Bob', '--email', 'bob@example.com']);
    expect((await pm(['contacts', 'get', bob])).stdout).toContain('properties\t\n');
    // Data is the record alone.
    expect(Object.keys(await jsonOf(['contacts', 'get', ann, '--json']))).not.toContain('properties');
  });
});

describe('data carries what the table shows', () => {
  async function filed() {
    await made(['statuses', 'create', '--label', 'For Let', '--type', 'property']);
    await made(['statuses', 'create', '--label', 'Active', '--type', 'contact']);
    const tenant = await made(['types', 'create', '--label', 'Tenant']);
    const plumbing = await made(['competencies', 'create', '--label', 'Plumbing']);
    const flat = await made(['competencies', 'create', '--label', 'Roofing, flat']);
    const ann = await made([
      'contacts',
      'create',
      ...['--name', 'Ann', '--email', 'ann@example.com', '--status', 'active', '--type', 'tenant'],
      ...['--competency', 'plumbing', '--competency', 'Roofing, flat'],
    ]);
    const p = await made([
      'properties',
      'create',
      '--address',
      '1 High St',
      '--postcode',
      'LS1',
      '--status',
      'for let',
    ]);
    return { tenant, plumbing, flat, ann, p };
  }

  it('JSON and NDJSON: status, type and competencies, by label with their uuids, on list and get', async () => {
    const { tenant, plumbing, ann, p } = await filed();
    const [c] = await jsonOf(['contacts', 'list', '--json']);
    expect(c.status.data).toMatchObject({ label: 'Active' });
    expect(c.type.data).toEqual({ uuid: tenant, label: 'Tenant' });
    expect(c.competencies.data.map((x: Rec) => x.label)).toEqual(['Plumbing', 'Roofing, flat']);
    expect(c.competencies.data[0].uuid).toBe(plumbing);
    const one = await jsonOf(['contacts', 'get', ann, '--json']);
    expect(one.type.data.label).toBe('Tenant');
    expect(one.competencies.data).toHaveLength(2);
    expect((await jsonOf(['properties', 'get', p, '--json'])).status.data.label).toBe('For Let');
    const line = JSON.parse((await pm(['properties', 'list', '-o', 'ndjson'])).stdout);
    expect(line.status.data.label).toBe('For Let');
    // --json FIELDS and -q stay as asked.
    expect(await jsonOf(['contacts', 'list', '--json', 'name'])).toEqual([{ name: 'Ann' }]);
    expect((await pm(['contacts', 'list', '-q'])).stdout).toBe(`${ann}\n`);
  });

  it('CSV: status, type and competencies by label, on list and get; apply reads them back', async () => {
    const { ann, flat } = await filed();
    const csv = (await pm(['contacts', 'list', '--all', '-o', 'csv'])).stdout;
    expect((await pm(['contacts', 'get', ann, '-o', 'csv'])).stdout.trim().split('\n')[1]).toBe(
      csv.trim().split('\n')[1],
    );
    const [head, row] = csv.trim().split('\n');
    expect(head?.split(',').slice(-3)).toEqual(['status', 'type', 'competencies']);
    // A label with a comma of its own is written by its uuid: the list reads back whole.
    expect(row?.endsWith(`,0,0,Active,Tenant,"Plumbing, ${flat}"`)).toBe(true);
    const props = (await pm(['properties', 'list', '-o', 'csv'])).stdout;
    expect(props.split('\n')[0]?.split(',').at(-1)).toBe('status');
    expect(props.split('\n')[1]?.split(',').at(-1)).toBe('For Let');
    expect((await pm(['properties', 'list', '-o', 'tsv'])).stdout.split('\n')[1]?.split('\t').at(-1)).toBe('For Let');
    // Into another account that has the same labels: the CSV's columns a create takes, applied.
    const rows = parse(csv, { columns: true }) as Record<string, string>[];
    const keep = ['name', 'email', 'status', 'type', 'competencies'];
    // (The other account has a competency of its own for the first's "Roofing, flat".)
    const mine = rows.map((x) => ({ ...x, competencies: x.competencies?.replace(flat, 'roofing') }));
    const input = stringify(mine, { header: true, columns: keep });
    const first = acct;
    acct = await server.newAccount();
    await made(['statuses', 'create', '--label', 'Active', '--type', 'contact']);
    await made(['types', 'create', '--label', 'Tenant']);
    await made(['competencies', 'create', '--label', 'Plumbing']);
    const res = await pm(['contacts', 'apply', '--from-file', file('c.csv', input), '--key', 'email']);
    expect(res.stderr).toContain('No competency has label "roofing"');
    await made(['competencies', 'create', '--label', 'Roofing']);
    const ok = await pm(['contacts', 'apply', '--from-file', file('c.csv', input), '--key', 'email']);
    expect(ok.stderr).toBe('created 1, updated 0, deleted 0, unchanged 0, failed 0\n');
    const [c] = await jsonOf(['contacts', 'list', '--json']);
    expect([c.status.data.label, c.type.data.label, c.competencies.data.map((x: Rec) => x.label)]).toEqual([
      'Active',
      'Tenant',
      ['Plumbing', 'Roofing'],
    ]);
    acct = first;
  });

  it('apply changes a status, type or competencies the file gives otherwise, and leaves the same alone', async () => {
    await filed();
    await made(['types', 'create', '--label', 'Landlord']);
    const csv = (await pm(['contacts', 'list', '-o', 'csv'])).stdout;
    const rows = parse(csv, { columns: true }) as Record<string, string>[];
    const keep = ['name', 'email', 'status', 'type', 'competencies'];
    const apply = (text: string) =>
      pm(['contacts', 'apply', '--from-file', file('c.csv', text), '--key', 'email']).then((r) => r.stderr);
    // As listed, in another case: nothing to do.
    const same = rows.map((x) => ({ ...x, type: 'TENANT' }));
    expect(await apply(stringify(same, { header: true, columns: keep }))).toBe(
      'created 0, updated 0, deleted 0, unchanged 1, failed 0\n',
    );
    const changed = rows.map((x) => ({ ...x, type: 'Landlord', competencies: 'Plumbing' }));
    expect(await apply(stringify(changed, { header: true, columns: keep }))).toBe(
      'created 0, updated 1, deleted 0, unchanged 0, failed 0\n',
    );
    const [c] = await jsonOf(['contacts', 'list', '--json']);
    expect([c.status.data.label, c.type.data.label, c.competencies.data.map((x: Rec) => x.label)]).toEqual([
      'Active',
      'Landlord',
      ['Plumbing'],
    ]);
  });
});
