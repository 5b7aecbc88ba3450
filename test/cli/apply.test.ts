/**
 * `pm <resource> apply`: records matched on key fields are created, updated (only what differs)
 * or left alone; --prune deletes what the filters select and the file lacks; --dry-run sends
 * nothing. Run twice, apply changes nothing the second time.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pmBin, runPm, tempHome, pmAgainstServer } from '../helpers/cli.js';
import { startFaultyServer } from '../helpers/faulty-server.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let acct: Account;
let dir: string;
const pm = pmAgainstServer(() => ({ url: server.url, token: acct.token }));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
type Rec = Record<string, unknown>;
const reminders = async (): Promise<Rec[]> =>
  JSON.parse((await pm(['reminders', 'list', '--all', '--json', 'uuid,title,due_at,description,updated_at'])).stdout);

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  acct = await server.newAccount();
  dir = mkdtempSync(join(tmpdir(), 'pm-apply-'));
});

const CSV = 'title,due_at,description\nRenew gas certificate [ci],2026-12-01,Flat 3\nBoiler service [ci],2027-01-15,\n';

describe('apply', () => {
  it('creates what is missing, and run again changes nothing', async () => {
    const f = file('r.csv', CSV);
    const first = await pm(['reminders', 'apply', '--from-file', f, '--key', 'title']);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('created 2, updated 0, deleted 0, unchanged 0, failed 0\n');
    const before = await reminders();
    expect(before.map((r) => [r.title, r.due_at, r.description])).toEqual([
      ['Renew gas certificate [ci]', '2026-12-01', 'Flat 3'],
      ['Boiler service [ci]', '2027-01-15', null],
    ]);
    server.clock.advance(60_000);
    const second = await pm(['reminders', 'apply', '--from-file', f, '--key', 'title,due_at', '-q']);
    expect(second.code).toBe(0);
    expect(second.stderr).toBe('created 0, updated 0, deleted 0, unchanged 2, failed 0\n');
    expect(second.stdout.trim().split('\n')).toEqual(before.map((r) => r.uuid));
    expect(await reminders()).toEqual(before);
  });

  it('updates only the fields that differ, and only the records that do', async () => {
    await pm(['reminders', 'apply', '--from-file', file('a.csv', CSV), '--key', 'title']);
    const before = await reminders();
    server.clock.advance(60_000);
    const changed = file(
      'b.ndjson',
      '{"title":"Renew gas certificate [ci]","description":"Flat 4"}\n{"title":"Boiler service [ci]","due_at":"2027-01-15"}\n',
    );
    const r = await pm(['reminders', 'apply', '--from-file', changed, '--key', 'title', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).map((x: Rec) => x.status)).toEqual(['updated', 'unchanged']);
    const after = await reminders();
    expect(after[0]).toMatchObject({ description: 'Flat 4', due_at: '2026-12-01' });
    expect(after[0]?.updated_at).not.toBe(before[0]?.updated_at);
    expect(after[1]).toEqual(before[1]);
  });

  it('--dry-run prints the plan and sends nothing; --json gives it as data', async () => {
    await pm(['reminders', 'create', '--title', 'Old [ci]']);
    await pm(['reminders', 'create', '--title', 'Not mine']);
    const f = file('r.csv', CSV);
    const before = await reminders();
    const plan = await pm([
      'reminders',
      'apply',
      '--from-file',
      f,
      '--key',
      'title',
      '--prune',
      '--title',
      '[ci]',
      '--dry-run',
    ]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('create     line 2: title="Renew gas certificate [ci]"');
    expect(plan.stdout).toMatch(/delete {5}[0-9a-f-]{36}: title="Old \[ci\]"/);
    expect(plan.stderr).toBe('plan: create 2, update 0, delete 1, unchanged 0; nothing sent.\n');
    const json = await pm([
      'reminders',
      'apply',
      '--from-file',
      f,
      '--key',
      'title',
      '--prune',
      '--title',
      '[ci]',
      '--dry-run',
      '--json',
    ]);
    expect(JSON.parse(json.stdout).map((x: Rec) => x.action)).toEqual(['create', 'create', 'delete']);
    expect(await reminders()).toEqual(before);
  });

  it('--prune deletes what its filters select and the file lacks, nothing else; it needs a filter', async () => {
    await pm(['reminders', 'create', '--title', 'Old [ci]']);
    await pm(['reminders', 'create', '--title', 'Not mine']);
    const f = file('r.csv', CSV);
    const r = await pm([
      'reminders',
      'apply',
      '--from-file',
      f,
      '--key',
      'title',
      '--prune',
      '--title',
      '[ci]',
      '--yes',
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('created 2, updated 0, deleted 1, unchanged 0, failed 0\n');
    expect((await reminders()).map((x) => x.title)).toEqual([
      'Not mine',
      'Renew gas certificate [ci]',
      'Boiler service [ci]',
    ]);
    const bare = await pm(['reminders', 'apply', '--from-file', f, '--key', 'title', '--prune']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('--prune needs a filter (such as --title)');
    const lonely = await pm(['reminders', 'apply', '--from-file', f, '--key', 'title', '--title', 'x']);
    expect(lonely.code).toBe(2);
    expect(lonely.stderr).toContain('filters go with --prune');
  });

  it('a record that cannot be matched to one fails alone: a key repeated in the file, or held by two records', async () => {
    await pm(['reminders', 'create', '--title', 'Twin']);
    await pm(['reminders', 'create', '--title', 'Twin']);
    const f = file(
      'r.ndjson',
      '{"title":"Twin"}\n{"title":"A"}\n{"title":"A","description":"again"}\n{"description":"no title"}\n',
    );
    const r = await pm(['reminders', 'apply', '--from-file', f, '--key', 'title']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('line 1: 2 reminders have title="Twin": ');
    expect(r.stderr).toContain('line 3: the same title as line 2');
    expect(r.stderr).toContain('line 4: title: The title field is required.');
    expect(r.stderr).toContain('created 1, updated 0, deleted 0, unchanged 0, failed 3');
    const bad = await pm(['reminders', 'apply', '--from-file', f, '--key', 'colour']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--key: reminders have no field "colour"');
  });

  it('names the records that share a key (uuids, key value), fails with the remedy; --dedupe keeps the oldest and deletes the others', async () => {
    const made = [];
    for (const description of ['first', 'second', 'third']) {
      made.push(
        JSON.parse(
          (await pm(['reminders', 'create', '--title', 'Twin', '--description', description, '--json', 'uuid'])).stdout,
        ).uuid,
      );
      server.clock.advance(1000);
    }
    await pm(['reminders', 'create', '--title', 'Single']);
    const f = file('r.csv', 'title,description\nTwin,first\nSingle,\n');
    const r = await pm(['reminders', 'apply', '--from-file', f, '--key', 'title']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `line 2: 3 reminders have title="Twin": ${made.join(', ')}; apply cannot tell which is meant`,
    );
    expect(r.stderr).toContain('run again with --dedupe to keep the oldest of each and delete the others');
    expect((await reminders()).filter((x) => x.title === 'Twin')).toHaveLength(3);

    const asked = await pm(['reminders', 'apply', '--from-file', f, '--key', 'title', '--dedupe']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('--dedupe would delete 2 reminders:');
    expect(asked.stderr).toContain(
      `delete     ${made[1]}: title="Twin" (a twin of the oldest with the key of line 2, kept)`,
    );
    expect(asked.stderr).toContain('refusing to delete without confirmation');
    expect((await reminders()).filter((x) => x.title === 'Twin')).toHaveLength(3);

    const done = await pm(['reminders', 'apply', '--from-file', f, '--key', 'title', '--dedupe', '--yes']);
    expect(done.code).toBe(0);
    expect(done.stderr).toBe('created 0, updated 0, deleted 2, unchanged 2, failed 0\n');
    expect((await reminders()).filter((x) => x.title === 'Twin').map((x) => [x.uuid, x.description])).toEqual([
      [made[0], 'first'],
    ]);
  });

  it('compares custom values and codes: properties keyed on address and postcode', async () => {
    await pm(['custom-fields', 'create', '--label', 'Colour', '--type', 'text', '--entity-type', 'property']);
    const csv = (colour: string) =>
      file('p.csv', `address,postcode,bedrooms,has_garden,custom_fields.colour\n1 A St,LS1 1AA,3,yes,${colour}\n`);
    expect(
      (await pm(['properties', 'apply', '--from-file', csv('red'), '--key', 'address,postcode'])).stderr,
    ).toContain('created 1');
    expect(
      (await pm(['properties', 'apply', '--from-file', csv('red'), '--key', 'address,postcode'])).stderr,
    ).toContain('unchanged 1');
    const plan = await pm([
      'properties',
      'apply',
      '--from-file',
      csv('blue'),
      '--key',
      'address,postcode',
      '--dry-run',
      '--json',
    ]);
    expect(JSON.parse(plan.stdout)).toEqual([
      {
        action: 'update',
        line: 2,
        uuid: expect.any(String),
        changes: { custom_fields: [{ name: 'colour', value: 'blue' }] },
      },
    ]);
    expect(
      (await pm(['properties', 'apply', '--from-file', csv('blue'), '--key', 'address,postcode'])).stderr,
    ).toContain('updated 1');
    const p = JSON.parse((await pm(['properties', 'list', '--embed', 'custom_fields', '--json'])).stdout)[0];
    expect(p).toMatchObject({ address: '1 A St', bedrooms: 3, has_garden: true });
    expect(p.custom_fields.data[0].value).toBe('blue');
  });
});

describe('apply --prune: destructive runs ask, and delete only what the filter selects', () => {
  /** The help's own example, and records a person wrote that its filter selects too. */
  const EXAMPLE = ['reminders', 'apply', '--from-file', 'ci.csv', '--key', 'title', '--prune', '--title', '[ci]'];
  const PEOPLE = ['Fix [ci] pipeline (written by a person)', 'Pay [CI] invoice'];
  const seed = async () => {
    for (const title of ['Old [ci]', ...PEOPLE, 'Not mine']) await pm(['reminders', 'create', '--title', title]);
    file('ci.csv', CSV);
  };
  const titles = async () => (await reminders()).map((x) => x.title);

  it('with nobody at a terminal and no --yes: shows what it would delete, refuses (exit 2), sends nothing (bin/pm)', async () => {
    await seed();
    const before = await reminders();
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tempHome(), PM_BASE_URL: server.url };
    const r = await pmBin(EXAMPLE, { ...env, PM_TOKEN: acct.token }, { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--prune would delete 3 reminders not in ci.csv:\n');
    for (const title of ['Old [ci]', ...PEOPLE]) expect(r.stderr).toContain(`title=${JSON.stringify(title)}`);
    expect(r.stderr).not.toContain('Not mine');
    expect(r.stderr).toContain('refusing to delete without confirmation: pass --yes when not at a terminal.');
    // Nothing at all was sent: not the creates either.
    expect(await reminders()).toEqual(before);
  });

  it('on a terminal it asks, as delete does: no deletes nothing, yes deletes what was shown', async () => {
    await seed();
    const before = await reminders();
    const asked: string[] = [];
    const answer = (yes: boolean) => ({
      tty: true,
      cwd: dir,
      prompter: {
        confirm: async (q: string) => {
          asked.push(q);
          return yes;
        },
        secret: async () => '',
      },
    });
    const no = await pm(EXAMPLE, answer(false));
    expect(no.code).toBe(2);
    expect(no.stderr).toContain('--prune would delete 3 reminders not in ci.csv:');
    expect(no.stderr).toContain('nothing deleted.');
    expect(asked).toEqual(['Delete these 3 reminders?']);
    expect(await reminders()).toEqual(before);
    const yes = await pm(EXAMPLE, answer(true));
    expect(yes.code).toBe(0);
    expect(await titles()).toEqual(['Not mine', 'Renew gas certificate [ci]', 'Boiler service [ci]']);
  });

  it('a server that ignores the filter cannot widen it: each record is checked against the filter', async () => {
    await seed();
    const front = await startFaultyServer({ upstream: server.url });
    try {
      // The first list (every reminder, to match the file) as the server answers; the second,
      // the filtered one, answered with every reminder: the filter ignored.
      const all = await acct.api('GET', '/reminders?per_page=100');
      front.script('GET', { kind: 'forward' }, { kind: 'respond', status: 200, body: JSON.stringify(all.body) });
      const r = await runPm([...EXAMPLE, '--yes'], {
        cwd: dir,
        env: { PM_BASE_URL: front.url, PM_TOKEN: acct.token },
      });
      expect(r.code).toBe(0);
      expect(front.requests[1]?.path).toContain('title=%5Bci%5D');
      expect(r.stderr).toContain(
        'warning: the server listed 1 reminder that title=[ci] does not select (it seems to ignore the filter); it is not deleted.',
      );
      expect(r.stderr).toContain('created 2, updated 0, deleted 3, unchanged 0, failed 0');
      expect(front.count('DELETE')).toBe(3);
      expect(await titles()).toEqual(['Not mine', 'Renew gas certificate [ci]', 'Boiler service [ci]']);
    } finally {
      await front.close();
    }
  });

  it('refuses a filter it cannot check on a record itself (a parent, a custom field)', async () => {
    const p = await acct.api('POST', '/properties', { address: '1 A St', postcode: 'LS1 1AA' });
    const f = file('n.ndjson', '{"content":"x"}\n');
    const r = await pm([
      'notes',
      'apply',
      '--from-file',
      f,
      '--key',
      'content',
      '--prune',
      '--property',
      p.body.data.uuid,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--prune cannot check a filter on other records or on custom fields (property[uuid])');
  });
});
