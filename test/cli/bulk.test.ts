/**
 * Bulk writes from files against the real server: each format, bad lines, --validate-only,
 * --skip-existing run twice, --failed and a second run, update and delete from files and stdin.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
const titles = async () =>
  (JSON.parse((await pm(['reminders', 'list', '--all', '--json', 'title'])).stdout) as { title: string }[]).map(
    (r) => r.title,
  );

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  acct = await server.newAccount();
  dir = mkdtempSync(join(tmpdir(), 'pm-bulk-'));
});

describe('create --from-file', () => {
  it('reads NDJSON, a JSON array and CSV, and prints one uuid a record in input order', async () => {
    const nd = file('a.ndjson', '{"title":"n1","due_at":"2026-12-01"}\n\n{"title":"n2"}\n');
    const js = file('b.json', JSON.stringify([{ title: 'j1' }, { title: 'j2', anytime: true }]));
    const csv = file('c.csv', 'title,description,due_at,anytime\nc1,"with, comma",2026-12-03T09:00:00Z,no\nc2,,,yes\n');
    for (const f of [nd, js, csv]) {
      const r = await pm(['reminders', 'create', '--from-file', f, '-q']);
      expect(r.code).toBe(0);
      expect(r.stdout.trim().split('\n')).toHaveLength(2);
      expect(r.stderr).toBe('created 2, failed 0\n');
    }
    expect(await titles()).toEqual(['n1', 'n2', 'j1', 'j2', 'c1', 'c2']);
    const c1 = JSON.parse((await pm(['reminders', 'list', '--title', 'c1', '--json'])).stdout)[0];
    expect(c1).toMatchObject({ description: 'with, comma', due_at: '2026-12-03T09:00:00+00:00', anytime: false });
  });

  it('types CSV cells by the description, custom_fields.NAME columns included', async () => {
    await pm(['custom-fields', 'create', '--label', 'Colour', '--type', '1', '--entity-type', '2', '-q']);
    const csv = file(
      'p.csv',
      'address,postcode,bedrooms,has_garage,custom_fields.colour\n1 A St,A1,3,yes,red\n2 B St,B2,,no,\n',
    );
    const r = await pm(['properties', 'create', '--from-file', csv, '--json']);
    expect(r.code).toBe(0);
    const results = JSON.parse(r.stdout);
    expect(results.map((x: { line: number; status: string }) => [x.line, x.status])).toEqual([
      [2, 'created'],
      [3, 'created'],
    ]);
    const props = JSON.parse((await pm(['properties', 'list', '--embed', 'custom_fields', '--json'])).stdout);
    expect(props[0]).toMatchObject({ address: '1 A St', bedrooms: 3, has_garage: true });
    expect(props[0].custom_fields.data[0]).toMatchObject({ name: 'colour', value: 'red' });
    expect(props[1]).toMatchObject({ bedrooms: 0, has_garage: false, custom_fields: { data: [] } });
  });

  it('--validate-only checks every record and lists every problem, by line and field; sends nothing', async () => {
    const csv = file('p.csv', 'address,postcode,bedroom,citty\n1 A St,LS1,3,Leeds\n');
    const unknown = await pm(['properties', 'create', '--from-file', csv, '--validate-only']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('line 2: bedroom: not a field of properties; did you mean bedrooms?');
    expect(unknown.stderr).toContain('line 2: citty: not a field of properties; did you mean city?');
    // A bad number on line 4 does not hide the missing address on line 3.
    const q = file('q.csv', 'address,postcode,bedrooms\n1 A St,LS1,3\n,LS2,2\n3 C St,LS3,many\n4 D St,LS4,4\n');
    const both = await pm(['properties', 'create', '--from-file', q, '--validate-only']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('q.csv: 4 records, 2 with problems; nothing sent.');
    expect(both.stderr).toContain('line 3: address: The address field is required.');
    expect(both.stderr).toContain('line 4: bedrooms: must be a whole number, not "many".');
    const nd = file('bad.ndjson', '{"title":"ok"}\n{"title":""}\n{"title":"x","due_at":"soon"}\nnot json\n');
    const all = await pm(['reminders', 'create', '--from-file', nd, '--validate-only']);
    expect(all.code).toBe(1);
    expect(all.stderr).toContain('line 2: title: The title field is required.');
    expect(all.stderr).toContain('line 3: due_at:');
    expect(all.stderr).toContain('line 4: not valid JSON');
    expect(all.stderr).not.toContain('Usage:');
    const v = await pm([
      'reminders',
      'create',
      '--from-file',
      file('good.ndjson', '{"title":"a"}\n{"title":"b"}\n'),
      '--validate-only',
    ]);
    expect(v.code).toBe(0);
    expect(v.stderr).toContain('2 records, all valid; nothing sent');
    expect(await titles()).toEqual([]);
  });

  it('a record with a problem fails alone: a malformed line goes to --failed as it was, the good ones go through, exit 1', async () => {
    const nd = file('bad.ndjson', '{"title":"ok"}\nnot json\n{"title":""}\n{"title":"fine"}\n');
    const failed = join(dir, 'failed.ndjson');
    const r = await pm(['reminders', 'create', '--from-file', nd, '--failed', failed, '-q']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('2 of 4 records have problems; they are not sent:');
    expect(r.stderr).toContain('line 2: not valid JSON');
    expect(r.stderr).toContain(`created 2, failed 2 (written to ${failed})`);
    expect(r.stdout.split('\n')).toHaveLength(5);
    expect(await titles()).toEqual(['ok', 'fine']);
    const lines = readFileSync(failed, 'utf8').split('\n');
    expect(lines[0]).toBe('not json');
    expect(JSON.parse(lines[1] as string)).toMatchObject({ title: '', _error: expect.stringContaining('title') });
    // A CSV row with a cell of the wrong kind, or the wrong number of cells, fails alone too.
    const csv = file('r.csv', 'title,anytime\na,yes\nb,perhaps\nc\n');
    const c = await pm(['reminders', 'create', '--from-file', csv, '-q']);
    expect(c.code).toBe(1);
    expect(c.stderr).toContain('line 3: anytime: must be true or false');
    expect(c.stderr).toContain('line 4: has 1 cells where the header has 2');
    expect(await titles()).toEqual(['ok', 'fine', 'a']);
  });

  it('creates each record once when run twice with --skip-existing', async () => {
    const f = file(
      'r.ndjson',
      '{"title":"gas","due_at":"2026-12-01"}\n{"title":"gas","due_at":"2026-12-02"}\n{"title":"keys","due_at":"2026-12-01T10:00:00+01:00"}\n',
    );
    const first = await pm(['reminders', 'create', '--from-file', f, '--skip-existing', 'title,due_at']);
    expect(first.stderr).toBe('created 3, failed 0\n');
    const second = await pm(['reminders', 'create', '--from-file', f, '--skip-existing', 'title,due_at', '-q']);
    expect(second.code).toBe(0);
    expect(second.stderr).toBe('created 0, skipped 3, failed 0\n');
    expect(second.stdout.trim().split('\n')).toHaveLength(3);
    expect(await titles()).toEqual(['gas', 'gas', 'keys']);
    const bad = await pm(['reminders', 'create', '--from-file', f, '--skip-existing', 'colour']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('colour');
  });

  it('writes what did not go through to --failed, in the input format, and a second run completes the job', async () => {
    const p = (await pm(['properties', 'create', '--address', 'a', '--postcode', 'p', '-q'])).stdout.trim();
    const missing = '00000000-0000-0000-0000-000000000000';
    const f = file(
      'notes.ndjson',
      `{"property":"${p}","content":"one"}\n{"property":"${missing}","content":"two"}\n{"property":"${p}","content":"three"}\n`,
    );
    const failed = join(dir, 'failed.ndjson');
    const r = await pm(['notes', 'create', '--from-file', f, '--failed', failed, '-q']);
    // The one failure is a parent not found: the run exits as a not found (3).
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`created 2, failed 1 (written to ${failed})`);
    const lines = readFileSync(failed, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ property: missing, content: 'two' });
    expect(lines[0]._error).toContain('No property');
    // Mend the record in the failed file and send it again.
    writeFileSync(failed, `${JSON.stringify({ ...lines[0], property: p })}\n`);
    const again = await pm(['notes', 'create', '--from-file', failed, '-q']);
    expect(again.code).toBe(0);
    const notes = JSON.parse((await pm(['notes', 'list', '--property', p, '--json', 'content'])).stdout);
    expect(notes.map((n: { content: string }) => n.content).sort()).toEqual(['one', 'three', 'two']);
  });
});

describe('update and delete in bulk', () => {
  it('updates records that carry their uuid, filling what PUT requires', async () => {
    const a = (await pm(['properties', 'create', '--address', 'a', '--postcode', 'A', '-q'])).stdout.trim();
    const b = (await pm(['properties', 'create', '--address', 'b', '--postcode', 'B', '-q'])).stdout.trim();
    const f = file('u.ndjson', `{"uuid":"${a}","bedrooms":2}\n{"uuid":"${b}","city":"York"}\n`);
    const r = await pm(['properties', 'update', '--from-file', f]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('updated 2, failed 0\n');
    const props = JSON.parse((await pm(['properties', 'list', '--json', 'address,postcode,bedrooms,city'])).stdout);
    expect(props).toEqual([
      { address: 'a', postcode: 'A', bedrooms: 2, city: null },
      { address: 'b', postcode: 'B', bedrooms: 0, city: 'York' },
    ]);
    const noUuid = await pm([
      'properties',
      'update',
      '--from-file',
      file('n.ndjson', `{"bedrooms":1}\n{"uuid":"not-a-uuid","bedrooms":1}\n{"uuid":"${a}","bedrooms":5}\n`),
    ]);
    expect(noUuid.code).toBe(1);
    expect(noUuid.stderr).toContain('line 1: uuid: each record needs the uuid');
    expect(noUuid.stderr).toContain('line 2: uuid: must be a uuid');
    expect(noUuid.stderr).toContain('updated 1, failed 2');
  });

  it('deletes the uuids read from stdin with --yes, and refuses without it', async () => {
    for (const t of ['x', 'y', 'z']) await pm(['reminders', 'create', '--title', t, '-q']);
    const uuids = (await pm(['reminders', 'list', '-q'])).stdout;
    const refused = await pm(['reminders', 'delete', '-'], { stdin: uuids });
    expect(refused.code).toBe(2);
    expect(await titles()).toEqual(['x', 'y', 'z']);
    const r = await pm(['reminders', 'delete', '--yes', '-'], { stdin: uuids });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('deleted 3, failed 0\n');
    expect(await titles()).toEqual([]);
  });
});
