/**
 * Custom fields as a new user meets them, on either store, through the built pm: created without
 * --type (1, Text, the only type there is), and their values in CSV and TSV a column each
 * (custom_fields.NAME), every field of the entity whether a record has a value or not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pmAgainst } from '../helpers/cli.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let acct: Account;
let against: ReturnType<typeof pmAgainst>;

beforeAll(async () => {
  server = await startTestServer();
  acct = await server.newAccount();
  against = pmAgainst(server.url, acct.token);
});
afterAll(() => server.close());

const pm = (args: string[], stdin?: string) => against.pm(args, stdin);

describe('pm custom-fields create', () => {
  it('needs no --type: it is 1 (Text), from flags and from a file; --help says so', async () => {
    const r = await pm(['custom-fields', 'create', '--label', 'Key Safe', '--entity-type', 'property', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'key_safe', type: { code: 1, name: 'Text' } });
    const bulk = await pm(
      ['custom-fields', 'create', '--from-file', '-', '--format', 'csv', '-q'],
      'label,entity_type\nAlarm Code,2\n',
    );
    expect(bulk.code).toBe(0);
    const made = await acct.api('GET', `/custom-fields/${bulk.stdout.trim()}`);
    expect(made.body.data).toMatchObject({ name: 'alarm_code', type: { code: 1 } });
    // --type still says what is sent; a type there is not is refused by name.
    const bad = await pm(['custom-fields', 'create', '--label', 'X', '--entity-type', 'property', '--type', '2']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--type');
    const help = await pm(['custom-fields', 'create', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      '--type <code> kind of custom field (1 Text), by code or name (default: 1)',
    );
  });
});

describe('-o csv and -o tsv with custom values', () => {
  it('a column per custom field of the entity, custom_fields.NAME, empty where a record has no value', async () => {
    await pm(['custom-fields', 'create', '--label', 'Boiler', '--entity-type', 'contact']);
    const a = await pm([
      'properties',
      'create',
      '--address',
      '1 A St',
      '--postcode',
      'A1 1AA',
      '--custom-field',
      'key_safe=12, 34',
      '-q',
    ]);
    const b = await pm([
      'properties',
      'create',
      '--address',
      '2 B St',
      '--postcode',
      'B1 1BB',
      '--custom-field',
      'alarm_code=9"9',
      '-q',
    ]);
    const c = await pm(['properties', 'create', '--address', '3 C St', '--postcode', 'C1 1CC', '-q']);
    for (const x of [a, b, c]) expect(x.code, x.stderr).toBe(0);

    const csv = await pm([
      'properties',
      'list',
      '--embed',
      'custom_fields',
      '-o',
      'csv',
      '--fields',
      'address,custom_fields',
    ]);
    expect(csv.stderr).toBe('');
    // Only the property fields (a contact's Boiler is not one), in the order they were made.
    expect(csv.stdout).toBe(
      'address,custom_fields.key_safe,custom_fields.alarm_code\n1 A St,"12, 34",\n2 B St,,"9""9"\n3 C St,,\n',
    );
    const tsv = await pm(['properties', 'list', '--embed', 'custom_fields', '-o', 'tsv', '--all']);
    const [header, ...rows] = tsv.stdout.replace(/\n$/, '').split('\n');
    const columns = header?.split('\t') ?? [];
    // A column a field, after the record's own, in the order the fields were made.
    const at = ['num_notes', 'custom_fields.key_safe', 'custom_fields.alarm_code'].map((c) => columns.indexOf(c));
    expect(at.every((i, n) => i > 0 && (n === 0 || i === (at[n - 1] as number) + 1))).toBe(true);
    const [, key, alarm] = at as [number, number, number];
    expect(rows.map((r) => [r.split('\t')[key], r.split('\t')[alarm]])).toEqual([
      ['12, 34', ''],
      ['', '9"9'],
      ['', ''],
    ]);
    // One record: the same columns.
    const one = await pm(['properties', 'get', c.stdout.trim(), '--embed', 'custom_fields', '-o', 'csv']);
    expect(one.stdout.split('\n')[0]).toContain(',num_notes,custom_fields.key_safe,custom_fields.alarm_code');
    // JSON keeps the values as the API gives them.
    const json = await pm(['properties', 'get', a.stdout.trim(), '--json', 'custom_fields']);
    expect(JSON.parse(json.stdout).custom_fields.data[0]).toMatchObject({ name: 'key_safe', value: '12, 34' });
  });
});
