import { describe, expect, test } from 'vitest';
import { type OutputFlags, outputSpecFrom, printJson, printRecord } from '../../../src/cli/output/index.js';
import type { ResourceDef } from '../../../src/resources/types.js';
import { ANSI, CF1, P1, R1, R2, customFields, properties, reminders, type Screen, screen } from './helpers.js';

async function show(r: ResourceDef, rec: Record<string, unknown>, flags: OutputFlags, s: Screen): Promise<Screen> {
  await printRecord(r, rec, outputSpecFrom(r, flags), s);
  return s;
}

/** The keys a vertical listing shows, in order (continuation lines left out). */
const keysOf = (text: string) =>
  text
    .split('\n')
    .filter((l) => /^\S/.test(l))
    .map((l) => l.split(/\s+/)[0] ?? '');

/**
 * The lines a vertical listing of `text` shows for `pairs` (a key and its value; an empty key for
 * a value's next line), its values aligned after the longest key the listing has, whatever
 * fields a description adds after them.
 */
function listing(text: string, pairs: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...keysOf(text).map((k) => k.length)) + 2;
  return pairs.map(([k, v]) => (v === '' ? k : `${k.padEnd(width)}${v}`));
}

describe('table on a terminal: a vertical listing of every field', () => {
  test('local times with how long ago or ahead, dates as they are, yes/no, line breaks aligned', async () => {
    const s = await show(reminders, R2, {}, screen({ tty: true }));
    const pairs = [
      ['uuid', 'a1000000-0000-4000-8000-000000000002'],
      ['created_at', '2026-01-15 09:30 (5 months ago)'],
      ['updated_at', '2026-01-15 09:30 (5 months ago)'],
      ['title', 'Renew the insurance before it runs out at the end of the month'],
      ['description', 'Call the broker'],
      ['', 'then pay'],
      ['due_at', '2026-12-01 (in 6 months)'],
      ['anytime', 'yes'],
    ] as const;
    expect(s.out.text.split('\n').slice(0, pairs.length)).toEqual(listing(s.out.text, pairs));
    // Every field of the description, in its order.
    expect(keysOf(s.out.text)).toEqual(reminders.fields.map((f) => f.name));
    expect(s.err.text).toBe('');
  });

  test('summer time in London; empty values leave the key alone', async () => {
    const s = await show(reminders, R1, {}, screen({ tty: true }));
    const pairs = [
      ['uuid', 'a1000000-0000-4000-8000-000000000001'],
      ['created_at', '2026-01-15 09:30 (5 months ago)'],
      ['updated_at', '2026-01-15 09:30 (5 months ago)'],
      ['title', 'Gas safety check'],
      ['description', ''],
      ['due_at', '2026-06-12 09:00 (in 2 days)'],
      ['anytime', 'no'],
    ] as const;
    expect(s.out.text.split('\n').slice(0, pairs.length)).toEqual(listing(s.out.text, pairs));
  });

  test('colour on: keys in cyan, the relative time dim', async () => {
    const s = await show(reminders, R1, { fields: 'title,due_at' }, screen({ tty: true, color: true }));
    expect(s.out.text).toBe(
      '\x1b[36mtitle\x1b[39m   Gas safety check\n' +
        '\x1b[36mdue_at\x1b[39m  2026-06-12 09:00 \x1b[2m(in 2 days)\x1b[22m\n',
    );
  });

  test('code objects by name; embedded custom fields by label', async () => {
    const cf = await show(customFields, CF1, { fields: 'type,entity_type' }, screen({ tty: true }));
    expect(cf.out.text).toBe('type         Text\nentity_type  Property\n');
    const custom = {
      data: [
        { uuid: 'u1', name: 'colour', label: 'Colour', value: 'red' },
        { uuid: 'u2', name: 'size', label: 'Size', value: null },
      ],
    };
    const p = await show(properties, { ...P1, custom_fields: custom }, {}, screen({ tty: true }));
    expect(p.out.text.split('\n').slice(-3)).toEqual(['num_notes        2', 'custom_fields    Colour: red, Size:', '']);
  });
});

describe('table piped', () => {
  test('key<TAB>value lines, ISO times as sent, line breaks as spaces, no colour', async () => {
    const s = await show(reminders, R2, {}, screen({ tty: false, color: false }));
    const lines = s.out.text.split('\n');
    expect(lines.slice(0, 7)).toEqual([
      'uuid\ta1000000-0000-4000-8000-000000000002',
      'created_at\t2026-01-15T09:30:00+00:00',
      'updated_at\t2026-01-15T09:30:00+00:00',
      'title\tRenew the insurance before it runs out at the end of the month',
      'description\tCall the broker\\nthen pay',
      'due_at\t2026-12-01',
      'anytime\tyes',
    ]);
    // A line a field, key<TAB>value, and nothing after the last.
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -1).map((l) => l.split('\t')[0])).toEqual(reminders.fields.map((f) => f.name));
    expect(s.err.text).toBe('');
  });

  test('fields', async () => {
    const s = await show(reminders, R1, { fields: 'due_at,title' }, screen({ tty: false }));
    expect(s.out.text).toBe('due_at\t2026-06-12T08:00:00+00:00\ntitle\tGas safety check\n');
  });
});

describe('other formats', () => {
  test('json: pretty on a terminal, compact piped, fields in the order given', async () => {
    expect((await show(reminders, R1, { json: true }, screen({ tty: true }))).out.text).toBe(
      `${JSON.stringify(R1, null, 2)}\n`,
    );
    expect((await show(reminders, R1, { output: 'json' }, screen({ tty: false }))).out.text).toBe(
      `${JSON.stringify(R1)}\n`,
    );
    expect((await show(reminders, R1, { json: 'anytime,uuid' }, screen({ tty: false }))).out.text).toBe(
      `{"anytime":false,"uuid":"${R1.uuid}"}\n`,
    );
  });

  test('ndjson: one line', async () => {
    expect((await show(customFields, CF1, { output: 'ndjson' }, screen({ tty: true }))).out.text).toBe(
      `${JSON.stringify(CF1)}\n`,
    );
  });

  test('quiet: the uuid', async () => {
    expect((await show(reminders, R1, { quiet: true }, screen({ tty: true }))).out.text).toBe(`${R1.uuid}\n`);
  });

  test('csv and tsv: header and one row', async () => {
    expect(
      (await show(customFields, CF1, { output: 'csv', fields: 'label,type' }, screen({ tty: false }))).out.text,
    ).toBe('label,type\nColour,1\n');
    expect(
      (await show(reminders, R2, { output: 'tsv', fields: 'description,anytime' }, screen({ tty: true }))).out.text,
    ).toBe('description\tanytime\nCall the broker\\nthen pay\ttrue\n');
  });

  test('colour on changes nothing but the terminal table', async () => {
    for (const flags of [{ json: true }, { output: 'ndjson' }, { output: 'csv' }, { quiet: true }])
      expect((await show(reminders, R1, flags, screen({ tty: true, color: true }))).out.text).not.toMatch(ANSI);
  });
});

describe('printJson', () => {
  const value = { data: [{ uuid: 'x', n: 1 }], meta: { total: 1 } };

  test('pretty on a terminal, compact when piped', async () => {
    const tty = screen({ tty: true });
    await printJson(value, {}, tty);
    expect(tty.out.text).toBe(`${JSON.stringify(value, null, 2)}\n`);
    const piped = screen({ tty: false });
    await printJson(value, {}, piped);
    expect(piped.out.text).toBe('{"data":[{"uuid":"x","n":1}],"meta":{"total":1}}\n');
  });

  test('no body, no output', async () => {
    const s = screen({ tty: false });
    await printJson(undefined, {}, s);
    expect(s.out.text).toBe('');
  });
});
