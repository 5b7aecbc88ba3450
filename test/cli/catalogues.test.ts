/**
 * Statuses, contact types and competencies from the CLI, in-process against the real server: the
 * catalogues themselves, a record's status and type by label or uuid (--status, --no-status), a
 * contact's competencies (--competency, --add-competency, --remove-competency), the list filters,
 * and how a table, `get` and `--json` show them.
 */
import { beforeAll, afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunResult, pmAgainstServer } from '../helpers/cli.js';
import { startFaultyServer } from '../helpers/faulty-server.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let acct: Account;
const NOW = Date.parse('2026-11-21T12:00:00Z');
const pm = pmAgainstServer(() => ({ url: server.url, token: acct.token }), { now: NOW });
const term = (args: string[]) => pm(args, { tty: true, env: { NO_COLOR: '1' } });
const scrub = (s: string) =>
  s
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    // A terminal's table shows a uuid's first 8 characters.
    .replace(/^[0-9a-f]{8}(?= {2})/gm, '<short>');

/** The command's uuid (-q), checked to have succeeded. */
async function made(args: string[]): Promise<string> {
  const r = await pm([...args, '-q']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

const ok = (r: RunResult) => ({ code: r.code, stderr: r.stderr });
const jsonOf = async (args: string[]) => {
  const r = await pm(args);
  expect(ok(r)).toEqual({ code: 0, stderr: '' });
  return JSON.parse(r.stdout);
};

/** Each account's catalogues, by label: what the tests name records by. */
let ids: Record<string, string>;
const property = (address: string, ...more: string[]) =>
  made(['properties', 'create', '--address', address, '--postcode', 'LS1 1AA', ...more]);
const contact = (name: string, ...more: string[]) =>
  made(['contacts', 'create', '--name', name, '--email', `${name.toLowerCase()}@example.com`, ...more]);

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  acct = await server.newAccount();
  ids = {};
  for (const [label, type] of [
    ['For Let', 'property'],
    ['Not for let (owner occupied)', 'property'],
    ['Active', 'contact'],
  ] as const)
    ids[label] = await made(['statuses', 'create', '--label', label, '--type', type]);
  for (const label of ['Tenant', 'Contractor']) ids[label] = await made(['types', 'create', '--label', label]);
  for (const label of ['Plumbing', 'Electrics', 'Photography'])
    ids[label] = await made(['competencies', 'create', '--label', label]);
});

describe('the catalogues', () => {
  it('are listed like any resource: statuses with the records they are for', async () => {
    const r = await pm(['statuses', 'list']);
    expect(ok(r)).toEqual({ code: 0, stderr: '' });
    expect(scrub(r.stdout)).toBe(
      '<uuid>\tFor Let\tProperty\n<uuid>\tNot for let (owner occupied)\tProperty\n<uuid>\tActive\tContact\n',
    );
    expect(scrub((await pm(['statuses', 'list', '--type', 'contact'])).stdout)).toBe('<uuid>\tActive\tContact\n');
    expect(scrub((await pm(['types', 'list'])).stdout)).toBe('<uuid>\tTenant\n<uuid>\tContractor\n');
    expect((await pm(['competencies', 'list', '--json', 'label'])).stdout).toBe(
      '[\n{"label":"Plumbing"},\n{"label":"Electrics"},\n{"label":"Photography"}\n]\n',
    );
  });
});

describe("a property's status", () => {
  it('is set by label (ignoring case) or by uuid, and cleared with --no-status', async () => {
    const p = await property('1 High St', '--status', 'for let');
    const status = async () => (await jsonOf(['properties', 'get', p, '--json', 'status'])).status;
    expect(await status()).toEqual({
      data: { uuid: ids['For Let'], label: 'For Let', type: { code: 2, name: 'Property' } },
    });
    await made(['properties', 'update', p, '--status', ids['Not for let (owner occupied)'] as string]);
    expect((await status()).data.label).toBe('Not for let (owner occupied)');
    await made(['properties', 'update', p, '--no-status']);
    expect(await status()).toEqual({ data: null });
  });

  it('sends the status it names by uuid, a label or a beginning resolved first (--dry-run)', async () => {
    const p = await property('1 High St');
    const dry = async (...args: string[]) =>
      (await jsonOf(['properties', 'update', p, ...args, '--dry-run', '--json'])).body;
    expect(await dry('--status', 'For Let')).toMatchObject({ status: { uuid: ids['For Let'] } });
    const short = (ids['For Let'] as string).slice(0, 8).toUpperCase();
    expect(await dry('--status', short)).toMatchObject({ status: { uuid: ids['For Let'] } });
    expect(await dry('--status', ids['For Let'] as string)).toMatchObject({ status: { uuid: ids['For Let'] } });
    expect(await dry('--no-status')).toMatchObject({ status: null });
  });

  it('must be a Property status: a Contact status is refused, exit 1', async () => {
    const p = await property('1 High St');
    const r = await pm(['properties', 'update', p, '--status', 'Active']);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: --status "Active" is a Contact status, not a Property status.\n',
    });
  });

  it('a label no status has: the server says so, exit 1', async () => {
    const r = await pm(['properties', 'create', '--address', 'x', '--postcode', 'y', '--status', 'Sold']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: .*"Sold"/);
  });

  it('--status and --no-status together: a usage error naming both, nothing sent', async () => {
    const p = await property('1 High St', '--status', 'For Let');
    const r = await pm(['properties', 'update', p, '--no-status', '--status', 'For Let']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "error: --status and --no-status cannot be used together.\nRun 'pm properties update --help' for usage.\n",
    });
  });

  it('filters a list by its whole label, ignoring case, never a part of another', async () => {
    const let1 = await property('1 High St', '--status', 'For Let');
    const own = await property('2 Mill Lane', '--status', 'Not for let (owner occupied)');
    await property('3 Kirk Gate');
    const list = async (...args: string[]) => (await pm(['properties', 'list', '-q', ...args])).stdout;
    expect(await list('--status', 'For Let')).toBe(`${let1}\n`);
    expect(await list('--status', 'for let')).toBe(`${let1}\n`);
    const part = await pm(['properties', 'list', '-q', '--status', 'let']);
    expect(part).toMatchObject({ code: 1, stdout: '' });
    expect(part.stderr).toContain('--status: no Property status has label "let".');
    expect(await list('--status', ids['Not for let (owner occupied)'] as string)).toBe(`${own}\n`);
    // Repeated: any of them.
    expect(await list('--status', 'For Let', '--status', 'not for let (owner occupied)')).toBe(`${let1}\n${own}\n`);
  });

  it('a filter given by label and by uuid at once: each names its status, any of them', async () => {
    const let1 = await property('1 High St', '--status', 'For Let');
    const own = await property('2 Mill Lane', '--status', 'Not for let (owner occupied)');
    const r = await pm([
      'properties',
      'list',
      '-q',
      '--status',
      'For Let',
      '--status',
      ids['Not for let (owner occupied)'] as string,
    ]);
    expect(r).toEqual({ code: 0, stdout: `${let1}\n${own}\n`, stderr: '' });
  });
});

describe("a contact's type and competencies", () => {
  it('are set on create: --type, and --competency repeated for the whole set', async () => {
    const c = await contact(
      'Al',
      '--status',
      'active',
      '--type',
      'contractor',
      '--competency',
      'Plumbing',
      '--competency',
      ids.Electrics as string,
    );
    const rec = await jsonOf(['contacts', 'get', c, '--json', 'status,type,competencies']);
    expect(rec).toEqual({
      status: { data: { uuid: ids.Active, label: 'Active', type: { code: 1, name: 'Contact' } } },
      type: { data: { uuid: ids.Contractor, label: 'Contractor' } },
      competencies: {
        data: [
          { uuid: ids.Plumbing, label: 'Plumbing' },
          { uuid: ids.Electrics, label: 'Electrics' },
        ],
      },
    });
  });

  it('--add-competency and --remove-competency change the set, which is sent whole', async () => {
    const c = await contact('Al', '--competency', 'Plumbing', '--competency', 'Electrics');
    const labels = async () =>
      (await jsonOf(['contacts', 'get', c, '--json', 'competencies'])).competencies.data.map(
        (x: { label: string }) => x.label,
      );
    const dry = await jsonOf([
      'contacts',
      'update',
      c,
      '--add-competency',
      'photography',
      '--remove-competency',
      'PLUMBING',
      '--dry-run',
      '--json',
    ]);
    expect(dry.body).toEqual({ competencies: [{ uuid: ids.Electrics }, { uuid: ids.Photography }] });
    expect(await labels()).toEqual(['Plumbing', 'Electrics']);
    await made(['contacts', 'update', c, '--add-competency', 'photography', '--remove-competency', 'PLUMBING']);
    expect(await labels()).toEqual(['Electrics', 'Photography']);
    // One it has already, one it has not: nothing changes.
    await made([
      'contacts',
      'update',
      c,
      '--add-competency',
      ids.Electrics as string,
      '--remove-competency',
      'Plumbing',
    ]);
    expect(await labels()).toEqual(['Electrics', 'Photography']);
    // --competency on update replaces the set.
    await made(['contacts', 'update', c, '--competency', 'Plumbing']);
    expect(await labels()).toEqual(['Plumbing']);
    await made(['contacts', 'update', c, '--remove-competency', 'plumbing']);
    expect(await labels()).toEqual([]);
  });

  it('a server that does not send the set: nothing is changed, rather than every competency dropped', async () => {
    const c = await contact('Al', '--competency', 'Plumbing');
    const foreign = await startFaultyServer({ upstream: server.url });
    try {
      foreign.script('GET', { kind: 'respond', status: 200, body: JSON.stringify({ data: { uuid: c, name: 'Al' } }) });
      // By uuid: nothing is looked up before the contact is read.
      const r = await pm(['contacts', 'update', c, '--add-competency', ids.Electrics as string], {
        env: { PM_BASE_URL: foreign.url },
      });
      expect(r).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'error: the server did not say which competencies the contact has, so none can be added or removed.\nGive the whole set with --competency instead.\n',
      });
      expect(foreign.count('PUT')).toBe(0);
    } finally {
      await foreign.close();
    }
  });

  it('--competency with --add-competency: a usage error, nothing sent', async () => {
    const c = await contact('Al');
    const r = await pm(['contacts', 'update', c, '--competency', 'Plumbing', '--add-competency', 'Electrics']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "error: --competency cannot be combined with --add-competency: it gives the whole set of competencies.\nRun 'pm contacts update --help' for usage.\n",
    });
  });

  it('--no-type clears the type, and the contact keeps its other links', async () => {
    const c = await contact('Al', '--type', 'Tenant', '--status', 'Active');
    await made(['contacts', 'update', c, '--no-type']);
    const rec = await jsonOf(['contacts', 'get', c, '--json', 'status,type']);
    expect(rec).toEqual({ status: { data: expect.objectContaining({ label: 'Active' }) }, type: { data: null } });
  });

  it('filter a list: --type and --competency, by label or uuid, any of the values', async () => {
    const al = await contact('Al', '--type', 'Contractor', '--competency', 'Plumbing');
    const bo = await contact('Bo', '--type', 'Contractor', '--competency', 'Electrics', '--competency', 'Photography');
    const cy = await contact('Cy', '--type', 'Tenant');
    const list = async (...args: string[]) => (await pm(['contacts', 'list', '-q', ...args])).stdout;
    expect(await list('--type', 'contractor')).toBe(`${al}\n${bo}\n`);
    expect(await list('--type', ids.Tenant as string)).toBe(`${cy}\n`);
    expect(await list('--competency', 'photography')).toBe(`${bo}\n`);
    expect(await list('--competency', 'Plumbing', '--competency', 'Electrics')).toBe(`${al}\n${bo}\n`);
    expect(await list('--competency', 'Plumbing', '--type', 'Tenant')).toBe('');
  });
});

describe('output', () => {
  it('a terminal table has a status column with the label; piped, the same column', async () => {
    await property('1 High St', '--status', 'For Let');
    await property('2 Mill Lane');
    const r = await term(['properties', 'list', '--fields', 'address,status']);
    expect(r.stdout).toBe(['address      status', '1 High St    For Let', '2 Mill Lane', ''].join('\n'));
    const all = await term(['properties', 'list']);
    expect(scrub(all.stdout).split('\n')[0]).toMatch(
      /^uuid +address +city +postcode +type +bedrooms +bathrooms +num_notes +status$/,
    );
    expect(scrub(all.stdout).split('\n')[1]).toMatch(/^<short> +1 High St +LS1 1AA +0 +0 +0 +For Let$/);
    expect(all.stderr).toBe('showing 1-2 of 2, page 1 of 1\n');
    const piped = await pm(['properties', 'list']);
    expect(scrub(piped.stdout)).toBe(
      '<uuid>\t1 High St\t\tLS1 1AA\t\t0\t0\t0\tFor Let\n<uuid>\t2 Mill Lane\t\tLS1 1AA\t\t0\t0\t0\t\n',
    );
  });

  it('a contacts table shows the status and type; get shows status, type and competencies by label', async () => {
    const c = await contact(
      'Al',
      '--status',
      'Active',
      '--type',
      'Contractor',
      '--competency',
      'Plumbing',
      '--competency',
      'Electrics',
    );
    const list = await term(['contacts', 'list']);
    expect(scrub(list.stdout).split('\n')).toEqual([
      `uuid${' '.repeat(6)}name  email           contact_number  company  num_notes  status  type`,
      `<short>  Al    al@example.com  ${' '.repeat(33)}0  Active  Contractor`,
      '',
    ]);
    const got = await term(['contacts', 'get', c]);
    expect(got.stdout.split('\n').slice(-6)).toEqual([
      'num_notes        0',
      'status           Active',
      'type             Contractor',
      'competencies     Plumbing, Electrics',
      'properties',
      '',
    ]);
    const piped = await pm(['contacts', 'get', c]);
    expect(piped.stdout.split('\n').slice(-5)).toEqual([
      'status\tActive',
      'type\tContractor',
      'competencies\tPlumbing, Electrics',
      'properties\t',
      '',
    ]);
  });

  it('get of a property shows its status, and nothing for none', async () => {
    const p = await property('1 High St', '--status', 'For Let');
    const got = await term(['properties', 'get', p]);
    expect(got.stdout).toContain('\nstatus           For Let\n');
    await made(['properties', 'update', p, '--no-status']);
    expect((await term(['properties', 'get', p])).stdout).toMatch(/\nstatus\n$/);
  });

  it('--json status is the embed as the server sends it; -o csv has its label', async () => {
    await property('1 High St', '--status', 'For Let');
    const r = await pm(['properties', 'list', '--json', 'address,status']);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        address: '1 High St',
        status: { data: { uuid: ids['For Let'], label: 'For Let', type: { code: 2, name: 'Property' } } },
      },
    ]);
    const csv = await pm(['properties', 'list', '-o', 'csv', '--fields', 'address,status']);
    expect(csv.stdout).toBe('address,status\n1 High St,For Let\n');
  });

  it('a server that does not know the status embed: the list without it, one request more', async () => {
    await property('1 High St', '--status', 'For Let');
    const foreign = await startFaultyServer({ upstream: server.url });
    try {
      foreign.script('GET', { kind: 'respond', status: 400, body: '{"message":"Unknown embed \\"status\\"."}' });
      const r = await pm(['properties', 'list'], { env: { PM_BASE_URL: foreign.url } });
      expect(ok(r)).toEqual({ code: 0, stderr: '' });
      expect(scrub(r.stdout)).toBe('<uuid>\t1 High St\t\tLS1 1AA\t\t0\t0\t0\t\n');
      expect(foreign.count('GET')).toBe(2);
    } finally {
      await foreign.close();
    }
  });

  it('a token that may not read statuses still lists properties, without the status column filled', async () => {
    await property('1 High St', '--status', 'For Let');
    const limited = await acct.token2(['properties.read']);
    const r = await pm(['properties', 'list', '--fields', 'address'], { env: { PM_TOKEN: limited.token } });
    expect(ok(r)).toEqual({ code: 0, stderr: '' });
    const table = await pm(['properties', 'list'], { env: { PM_TOKEN: limited.token } });
    expect(ok(table)).toEqual({ code: 0, stderr: '' });
    expect(scrub(table.stdout)).toBe('<uuid>\t1 High St\t\tLS1 1AA\t\t0\t0\t0\t\n');
  });
});

describe('a write shows what it set', () => {
  it('create and update print the status, type and competencies they gave, as get does', async () => {
    const created = await pm([
      'properties',
      'create',
      '--address',
      '1 High St',
      '--postcode',
      'LS1',
      '--status',
      'For Let',
    ]);
    expect(ok(created)).toEqual({ code: 0, stderr: expect.stringMatching(/^Created property [0-9a-f-]{36}\.\n$/) });
    expect(created.stdout).toContain('status\tFor Let\n');
    const c = await contact('Ann', '--competency', 'Plumbing');
    const updated = await pm(['contacts', 'update', c, '--add-competency', 'electrics', '--type', 'Tenant']);
    expect(ok(updated)).toEqual({ code: 0, stderr: `Updated contact ${c}.\n` });
    expect(updated.stdout).toContain('type\tTenant\n');
    expect(updated.stdout).toContain('competencies\tPlumbing, Electrics\n');
    // A write that sets none of them reads nothing more.
    const plain = await pm(['contacts', 'update', c, '--company', 'Acme']);
    expect(plain.stdout).not.toContain('competencies');
  });
});
