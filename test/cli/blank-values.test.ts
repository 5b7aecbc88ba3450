/**
 * One rule for blank values, the same for a CSV cell, a JSON string and a flag: blank ("") clears
 * a field that may be empty, is an error naming the field (and the file's line) for one that may
 * not; a column the file does not have, or a flag not given, leaves the field as it is.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pmAgainstServer } from '../helpers/cli.js';
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
  JSON.parse((await pm(['reminders', 'list', '--all', '--json', 'uuid,title,due_at,description'])).stdout);

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  acct = await server.newAccount();
  dir = mkdtempSync(join(tmpdir(), 'pm-blank-'));
  await pm(['reminders', 'create', '--title', 'Gas check', '--description', 'Flat 3', '--due-at', '2027-01-01']);
});

describe('a blank value', () => {
  it('in a CSV cell: apply clears the field; an absent column leaves it', async () => {
    const kept = await pm([
      'reminders',
      'apply',
      '--from-file',
      file('a.csv', 'title,due_at\nGas check,2027-01-01\n'),
      '--key',
      'title',
    ]);
    expect(kept.stderr).toBe('created 0, updated 0, deleted 0, unchanged 1, failed 0\n');
    expect((await reminders())[0]).toMatchObject({ description: 'Flat 3' });
    const cleared = await pm([
      'reminders',
      'apply',
      '--from-file',
      file('b.csv', 'title,description\nGas check,\n'),
      '--key',
      'title',
    ]);
    expect(cleared.code).toBe(0);
    expect(cleared.stderr).toBe('created 0, updated 1, deleted 0, unchanged 0, failed 0\n');
    expect((await reminders())[0]).toMatchObject({ title: 'Gas check', description: null, due_at: '2027-01-01' });
  });

  it('in a CSV cell of a required field: an error naming the field and the line; nothing sent for it', async () => {
    const r = await pm([
      'reminders',
      'apply',
      '--from-file',
      file('c.csv', 'title,due_at,description\nGas check,2027-01-01,Flat 4\n,2027-02-01,x\n'),
      '--key',
      'due_at',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('line 3: title: cannot be blank: it is required');
    expect((await reminders()).map((x) => x.description)).toEqual(['Flat 4']);
  });

  it('in NDJSON: "" clears the field, and is an error for a required one', async () => {
    const f = file('d.ndjson', '{"title":"Gas check","description":""}\n{"title":"","description":"y"}\n');
    const r = await pm(['reminders', 'apply', '--from-file', f, '--key', 'description']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('line 2: title: cannot be blank: it is required');
    const only = await pm([
      'reminders',
      'apply',
      '--from-file',
      file('e.ndjson', '{"title":"Gas check","description":""}\n'),
      '--key',
      'title',
    ]);
    expect(only.stderr).toBe('created 0, updated 1, deleted 0, unchanged 0, failed 0\n');
    expect((await reminders())[0]).toMatchObject({ description: null });
  });

  it('in a bulk create from CSV: a blank optional cell is sent empty, a blank required one fails its line', async () => {
    const r = await pm(['reminders', 'create', '--from-file', file('f.csv', 'title,description\nBoiler,\n,Flat 9\n')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('line 3: title: cannot be blank: it is required');
    expect((await reminders()).find((x) => x.title === 'Boiler')).toMatchObject({ description: null });
  });

  it('as a flag: --description "" clears it, --title "" is refused naming the flag', async () => {
    const [{ uuid }] = (await reminders()) as [{ uuid: string }];
    const cleared = await pm(['reminders', 'update', uuid, '--description', '', '--json', 'description']);
    expect(cleared.code).toBe(0);
    expect(JSON.parse(cleared.stdout)).toEqual({ description: null });
    const refused = await pm(['reminders', 'update', uuid, '--title', '']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--title cannot be blank: it is required');
    expect((await reminders())[0]).toMatchObject({ title: 'Gas check' });
  });
});
