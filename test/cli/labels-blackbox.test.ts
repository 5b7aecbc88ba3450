/**
 * The built bin/pm, as a script runs it: a duplicate label refused (exit 1), a property's contact
 * changed, cleared and filtered by, `contacts get` listing a contact's properties, `-o csv` and
 * `--json` carrying the status, type and competencies, and `pm --help` naming every resource.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/resources/index.js';
import { pmAgainst } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let pm: ReturnType<typeof pmAgainst>['pm'];
beforeAll(async () => {
  server = await startTestServer();
  pm = pmAgainst(server.url, (await server.newAccount()).token).pm;
});
afterAll(() => server.close());

/** The uuid a create printed with -q, checked to have succeeded. */
async function made(...args: string[]): Promise<string> {
  const r = await pm([...args, '-q']);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  return r.stdout.trim();
}

describe('bin/pm and labels, contacts and data', () => {
  it('refuses a second status of a label in another case, exit 1 naming label', async () => {
    await made('statuses', 'create', '--label', 'For Let', '--type', 'property');
    const r = await pm(['statuses', 'create', '--label', 'FOR LET', '--type', 'property']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('label: A status with label "FOR LET" already exists');
    expect((await pm(['statuses', 'list', '-q'])).stdout.trim().split('\n')).toHaveLength(1);
  });

  it("changes, filters by and clears a property's contact; contacts get lists its properties; CSV and JSON carry the labels", async () => {
    await made('types', 'create', '--label', 'Tenant');
    await made('competencies', 'create', '--label', 'Plumbing');
    const ann = await made(
      'contacts',
      'create',
      ...['--name', 'Ann', '--email', 'ann@example.com', '--type', 'tenant', '--competency', 'plumbing'],
    );
    const p = await made('properties', 'create', '--address', '1 High St', '--postcode', 'LS1', '--status', 'for let');
    expect((await pm(['properties', 'update', p, '--contact', 'ann@example.com'])).code).toBe(0);
    expect((await pm(['properties', 'list', '--contact', 'ann@example.com', '-q'])).stdout).toBe(`${p}\n`);
    expect((await pm(['contacts', 'get', ann])).stdout).toContain(`properties\t${p}  1 High St, LS1\n`);
    const csv = (await pm(['contacts', 'list', '--all', '-o', 'csv'])).stdout.trim().split('\n');
    expect(csv[0]).toMatch(/,status,type,competencies$/);
    expect(csv[1]).toMatch(/,,Tenant,Plumbing$/);
    const [prop] = JSON.parse((await pm(['properties', 'list', '--json'])).stdout);
    expect(prop.status.data).toMatchObject({ label: 'For Let' });
    expect((await pm(['properties', 'update', p, '--no-contact'])).code).toBe(0);
    const none = await pm(['properties', 'list', '--contact', 'ann@example.com', '-q']);
    expect({ code: none.code, stdout: none.stdout }).toEqual({ code: 0, stdout: '' });
  });

  it('pm --help names every resource', async () => {
    const help = (await pm(['--help'])).stdout.replace(/\s+/g, ' ');
    const about = help.slice(0, help.indexOf('Options:'));
    for (const r of RESOURCES) expect(about, r.path).toContain(r.plural);
  });
});
