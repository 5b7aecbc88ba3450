import { describe, expect, test } from 'vitest';
import {
  type OutputFlags,
  type PageInfo,
  createListPrinter,
  outputSpecFrom,
  printRecord,
} from '../../../src/cli/output/index.js';
import { RESOURCES } from '../../../src/resources/index.js';
import type { ResourceDef } from '../../../src/resources/types.js';
import {
  ANSI,
  CF1,
  P1,
  P2,
  P3,
  R1,
  R2,
  customFields,
  properties,
  property,
  reminders,
  type Screen,
  screen,
} from './helpers.js';

const PAGE1: PageInfo = { total: 53, page: 1, perPage: 10, totalPages: 6 };

/** Prints `pages` (one add() per page) with the flags, on the screen, and ends with `info`. */
async function list(
  r: ResourceDef,
  flags: OutputFlags,
  s: Screen,
  pages: Record<string, unknown>[][],
  info?: PageInfo & { fetchedPages?: number },
): Promise<Screen> {
  const printer = createListPrinter(r, outputSpecFrom(r, flags), s);
  for (const page of pages) printer.add(page);
  await printer.end(info);
  return s;
}

const bold = (s: string) => `\x1b[1m${s}\x1b[22m`;

/** A property as a table's list has it: its status embedded (autoEmbeds), or none. */
const listed = (p: Record<string, unknown>, label?: string): Record<string, unknown> => ({
  ...p,
  status: { data: label ? { uuid: '5a1e0000-0000-4000-8000-000000000001', label, type: { code: 2 } } : null },
});
const [L1, L2, L3] = [listed(P1, 'For Let'), listed(P2), listed(P3, 'Sold')];

const PROPERTIES_TABLE = [
  'uuid      address        city   postcode  type   bedrooms  bathrooms  num_notes  status',
  '0b6e2a0e  1 High Street  Leeds  LS1 1AA   house         1          1          2  For Let',
  '0b6e2a0e  2 High Street  Leeds  LS1 1AA   house         2          1          2',
  '0b6e2a0e  3 High Street  Leeds  LS1 1AA   house         3          1          2  Sold',
];

describe('table on a terminal', () => {
  test('default columns, numbers on the right, no colour when off, footer on stderr', async () => {
    const s = await list(properties, {}, screen({ tty: true, columns: 120 }), [[L1, L2], [L3]], PAGE1);
    expect(s.out.text).toBe(`${PROPERTIES_TABLE.join('\n')}\n`);
    expect(s.err.text).toBe('showing 1-3 of 53, page 1 of 6\n');
    expect(s.out.text + s.err.text).not.toMatch(ANSI);
  });

  test('colour on: bold headers, same layout', async () => {
    const s = await list(properties, {}, screen({ tty: true, color: true, columns: 120 }), [[L1, L2, L3]], PAGE1);
    const header = (PROPERTIES_TABLE[0] as string).replace(/\S+/g, bold);
    expect(s.out.text).toBe(`${[header, ...PROPERTIES_TABLE.slice(1)].join('\n')}\n`);
  });

  test('local times, dates as they are, yes/no, long text shortened with … to the width', async () => {
    const s = await list(reminders, {}, screen({ tty: true, columns: 52 }), [[R1, R2]]);
    expect(s.out.text).toBe(
      [
        'uuid      title            due_at            anytime',
        'a1000000  Gas safety che…  2026-06-12 09:00  no',
        'a1000000  Renew the insu…  2026-12-01        yes',
        '',
      ].join('\n'),
    );
    for (const line of s.out.text.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(52);
  });

  test('times in the given zone', async () => {
    const s = await list(reminders, { fields: 'uuid,due_at' }, screen({ tty: true, timeZone: 'UTC' }), [[R1]]);
    expect(s.out.text).toBe(['uuid      due_at', 'a1000000  2026-06-12 08:00', ''].join('\n'));
  });

  test('code objects by name, null as empty', async () => {
    const s = await list(customFields, {}, screen({ tty: true }), [[CF1, { ...CF1, uuid: 'c2', name: null }]]);
    expect(s.out.text).toBe(
      [
        'uuid      name    label   type  entity_type',
        'c1000000  colour  Colour  Text  Property',
        'c2                Colour  Text  Property',
        '',
      ].join('\n'),
    );
  });

  test('--fields chooses the columns and their order', async () => {
    const s = await list(properties, { fields: 'city,uuid,has_garage' }, screen({ tty: true }), [[P1, P2]]);
    expect(s.out.text).toBe(
      ['city   uuid      has_garage', 'Leeds  0b6e2a0e  yes', 'Leeds  0b6e2a0e  no', ''].join('\n'),
    );
  });

  test('line breaks and control characters in text never reach the terminal', async () => {
    const evil = property(1, { address: 'Flat 2\nThe Mill\x1b[2J' });
    const s = await list(properties, { fields: 'address' }, screen({ tty: true }), [[evil]]);
    expect(s.out.text).toBe('address\nFlat 2 The Mill [2J\n');
  });

  test('a long list (drawn in chunks) keeps one header and the same column widths throughout', async () => {
    const many = Array.from({ length: 120 }, (_, i) => property(i, { address: i === 117 ? 'The Long House' : `${i}` }));
    const s = await list(properties, { fields: 'address,bedrooms' }, screen({ tty: true }), [many]);
    const lines = s.out.text.split('\n');
    expect(lines).toHaveLength(122);
    expect(lines[0]).toBe('address         bedrooms');
    expect(lines[1]).toBe('0                      0');
    expect(lines[118]).toBe('The Long House       117');
    expect(lines[120]).toBe('119                  119');
    expect(lines.filter((l) => l.startsWith('address'))).toHaveLength(1);
  });

  test('a page is written as it arrives, later pages in the columns of the first: longer text cut with …', () => {
    const s = screen({ tty: true, columns: 80 });
    const printer = createListPrinter(properties, outputSpecFrom(properties, { fields: 'address,city,type' }), s);
    printer.add([]);
    expect(s.out.text).toBe('');
    printer.add([P1]);
    expect(s.out.text).toBe('address        city   type\n1 High Street  Leeds  house\n');
    printer.add([property(4, { address: '4 Much Longer Street', city: 'York', type: 'apartment' })]);
    expect(s.out.text.split('\n')[2]).toBe('4 Much Longe…  York   apar…');
    expect(s.err.text).toBe('');
  });

  test('an empty list: nothing on stdout, a friendly line on stderr', async () => {
    const s = await list(customFields, {}, screen({ tty: true }), [[]], {
      total: 0,
      page: 1,
      perPage: 15,
      totalPages: 0,
    });
    expect(s.out.text).toBe('');
    expect(s.err.text).toBe('No custom fields found.\n');
  });
});

describe('tables fit the terminal', () => {
  const wide = [
    listed(
      property(1, {
        address: '12 Long Street Name Here',
        city: 'Newcastle upon Tyne',
        type: 'apartment',
        bedrooms: 12,
      }),
      'For Let',
    ),
    listed(property(2, { address: '1 A St', city: 'Leeds', type: 'house' })),
  ];
  test('at 80 columns no row wraps: low-priority columns are hidden, and stderr says which', async () => {
    const s = await list(properties, {}, screen({ tty: true, columns: 80 }), [wide]);
    const lines = s.out.text.trimEnd().split('\n');
    for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(80);
    // uuids short (their first 8 characters) leave room for type and bedrooms; a property's status
    // (priority 2) stays while its bathrooms (3) go.
    expect(lines[0]).toMatch(/^uuid +address +city +postcode +type +bedrooms +status$/);
    expect(lines[1]).toMatch(new RegExp(`^${(wide[0]?.uuid as string).slice(0, 8)}  `));
    expect(s.err.text).toBe('hidden: bathrooms, num_notes (to fit 80 columns); --fields to show them\n');
  });

  test('wide enough, every column; --fields keeps what it asks for, shortening text instead', async () => {
    const all = await list(properties, {}, screen({ tty: true, columns: 160 }), [wide]);
    expect(all.out.text.split('\n')[0]).toMatch(/num_notes {2}status$/);
    expect(all.err.text).not.toContain('hidden');
    const asked = await list(
      properties,
      { fields: 'uuid,address,city,type,num_notes' },
      screen({ tty: true, columns: 80 }),
      [wide],
    );
    expect(asked.out.text.split('\n')[0]).toMatch(/^uuid +address +city +type +num_notes$/);
    for (const l of asked.out.text.trimEnd().split('\n')) expect([...l].length).toBeLessThanOrEqual(80);
  });
});

describe('at 80 columns: what says nothing goes first, what names a record stays whole', () => {
  const resource = (path: string) => RESOURCES.find((r) => r.path === path) as ResourceDef;
  const contacts = resource('contacts');
  const attachments = resource('attachments');
  const contact = (n: number, extra: Record<string, unknown> = {}) => ({
    uuid: `c0000000-0000-4000-8000-00000000000${n}`,
    name: `Ann Smith ${n}`,
    email: `ann.smith${n}@example-lettings.co.uk`,
    contact_number: '0113 496 0000',
    company: null,
    num_notes: 0,
    status: { data: null },
    type: { data: { uuid: 'e0000000-0000-4000-8000-000000000001', label: 'Tenant' } },
    ...extra,
  });
  const attachment = {
    uuid: 'a0000000-0000-4000-8000-000000000001',
    name: 'gas-safety.pdf',
    description: 'Gas safety certificate for the whole building',
    size: 2_900_000,
    mime_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    type: 'Document',
    property: { data: { uuid: '0b6e2a0e-5b1d-4f3a-9c51-000000000001' } },
  };

  test('empty and all-0 columns are hidden before any text is cut, and named with why', async () => {
    const s = await list(properties, {}, screen({ tty: true, columns: 80 }), [
      [
        listed(property(1, { address: '12 Long Street', city: 'Newcastle upon Tyne', type: null, num_notes: 0 })),
        listed(property(2, { type: null, num_notes: 0 })),
      ],
    ]);
    const lines = s.out.text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^uuid +address +city +postcode +bedrooms +bathrooms$/);
    // Nothing cut: every value whole.
    expect(lines[1]).toContain('12 Long Street  Newcastle upon Tyne');
    expect(s.out.text).not.toContain('…');
    expect(s.err.text).toBe('hidden: type, status (empty), num_notes (all 0); --fields to show them\n');
    // Wide enough for all: nothing hidden, empty or not.
    const wide = await list(properties, {}, screen({ tty: true, columns: 200 }), [
      [listed(property(1, { type: null }))],
    ]);
    expect(wide.out.text.split('\n')[0]).toMatch(/ type .*status$/);
    expect(wide.err.text).toBe('');
  });

  test('contacts: whole emails and their type', async () => {
    const s = await list(contacts, {}, screen({ tty: true, columns: 80 }), [[contact(1), contact(2)]]);
    const lines = s.out.text.trimEnd().split('\n');
    for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^uuid +name +email +.*type$/);
    expect(lines[1]).toContain('  ann.smith1@example-lettings.co.uk  0113 496 0000');
    expect(lines[1]).toMatch(/ Tenant$/);
    expect(s.err.text).toBe('hidden: company, status (empty), num_notes (all 0); --fields to show them\n');
  });

  test('attachments: size as people read it, the description, the name whole before the MIME type', async () => {
    const s = await list(attachments, {}, screen({ tty: true, columns: 80 }), [[attachment]]);
    const [head, row] = s.out.text.split('\n') as [string, string];
    for (const l of [head, row]) expect([...l].length, l).toBeLessThanOrEqual(80);
    expect(head).toMatch(/^uuid +name +description +size +mime_type/);
    expect(row).toMatch(
      /^a0000000 {2}gas-safety\.pdf {2}Gas safety [^ ]*… {2,}2\.9 MB {2}applicati… {2}property 0b6e2a0e$/,
    );
    expect(row).toContain('property 0b6e2a0e');
    // Piped: the bytes as sent, nothing cut.
    const piped = await list(attachments, {}, screen({ tty: false, columns: 80 }), [[attachment]]);
    expect(piped.out.text).toContain('\t2900000\t');
    expect(piped.out.text).toContain(attachment.description);
    expect(piped.out.text).toContain(attachment.mime_type);
  });
});

describe('table piped', () => {
  test('tab-separated, no header, no colour, no truncation, ISO times as sent, no footer', async () => {
    const s = await list(reminders, {}, screen({ tty: false, color: false, columns: 20 }), [[R1], [R2]], PAGE1);
    // The default columns, each whole (those the records have no value for, empty).
    const lines = s.out.text.split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(0, -1).map((l) => l.split('\t').slice(0, 4))).toEqual([
      ['a1000000-0000-4000-8000-000000000001', 'Gas safety check', '2026-06-12T08:00:00+00:00', 'no'],
      [
        'a1000000-0000-4000-8000-000000000002',
        'Renew the insurance before it runs out at the end of the month',
        '2026-12-01',
        'yes',
      ],
    ]);
    expect(s.err.text).toBe('');
  });

  test('writes each page as it arrives', () => {
    const s = screen({ tty: false });
    const printer = createListPrinter(properties, outputSpecFrom(properties, {}), s);
    printer.add([L1]);
    expect(s.out.text).toBe(
      '0b6e2a0e-5b1d-4f3a-9c51-000000000001\t1 High Street\tLeeds\tLS1 1AA\thouse\t1\t1\t2\tFor Let\n',
    );
  });

  test('tabs and line breaks inside values are escaped: one record, one line', async () => {
    const s = await list(properties, { fields: 'address,city' }, screen({ tty: false }), [
      [property(1, { address: 'a\tb\nc\\d' })],
    ]);
    expect(s.out.text).toBe('a\\tb\\nc\\\\d\tLeeds\n');
  });

  test('an empty list prints nothing, on either stream', async () => {
    const s = await list(properties, {}, screen({ tty: false }), [[]], { ...PAGE1, total: 0, totalPages: 0 });
    expect(s.out.text + s.err.text).toBe('');
  });
});

describe('json', () => {
  test('streamed across three add() calls: one valid JSON array, one record a line when piped', async () => {
    const s = screen({ tty: false });
    const printer = createListPrinter(properties, outputSpecFrom(properties, { json: 'uuid,bedrooms' }), s);
    printer.add([P1]);
    expect(s.out.text).toBe('[\n{"uuid":"0b6e2a0e-5b1d-4f3a-9c51-000000000001","bedrooms":1}');
    printer.add([P2]);
    printer.add([P3]);
    await printer.end(PAGE1);
    expect(s.out.text).toBe(
      [
        '[',
        '{"uuid":"0b6e2a0e-5b1d-4f3a-9c51-000000000001","bedrooms":1},',
        '{"uuid":"0b6e2a0e-5b1d-4f3a-9c51-000000000002","bedrooms":2},',
        '{"uuid":"0b6e2a0e-5b1d-4f3a-9c51-000000000003","bedrooms":3}',
        ']',
        '',
      ].join('\n'),
    );
    expect(JSON.parse(s.out.text)).toEqual(
      [1, 2, 3].map((n) => ({ uuid: P1.uuid?.toString().replace(/1$/, `${n}`), bedrooms: n })),
    );
    expect(s.err.text).toBe('');
  });

  test('all fields as sent, pretty on a terminal, still one document', async () => {
    const s = await list(properties, { json: true }, screen({ tty: true }), [[P1], [], [P2, P3]], PAGE1);
    expect(JSON.parse(s.out.text)).toEqual([P1, P2, P3]);
    expect(s.out.text).toBe(`${JSON.stringify([P1, P2, P3], null, 2)}\n`);
    expect(s.err.text).toBe('showing 1-3 of 53, page 1 of 6\n');
  });

  test('fields kept in the order given; a missing one is null', async () => {
    const s = await list(properties, { json: 'custom_fields,city,uuid' }, screen({ tty: false }), [[P1]]);
    expect(JSON.parse(s.out.text)).toEqual([{ custom_fields: null, city: 'Leeds', uuid: P1.uuid }]);
    expect(Object.keys(JSON.parse(s.out.text)[0])).toEqual(['custom_fields', 'city', 'uuid']);
  });

  test('an empty list is "[]", with the friendly line on a terminal only', async () => {
    const piped = await list(properties, { json: true }, screen({ tty: false }), []);
    expect(piped.out.text).toBe('[]\n');
    expect(piped.err.text).toBe('');
    const tty = await list(properties, { output: 'json' }, screen({ tty: true }), [[]]);
    expect(tty.out.text).toBe('[]\n');
    expect(tty.err.text).toBe('No properties found.\n');
  });
});

describe('ndjson', () => {
  test('one compact object a line, as pages arrive', async () => {
    const s = screen({ tty: false });
    const printer = createListPrinter(customFields, outputSpecFrom(customFields, { output: 'ndjson' }), s);
    printer.add([CF1]);
    expect(s.out.text).toBe(`${JSON.stringify(CF1)}\n`);
    printer.add([{ ...CF1, uuid: 'c2' }]);
    await printer.end();
    expect(s.out.text).toBe(`${JSON.stringify(CF1)}\n${JSON.stringify({ ...CF1, uuid: 'c2' })}\n`);
  });

  test('with fields', async () => {
    const s = await list(reminders, { output: 'ndjson', fields: 'title,anytime' }, screen({ tty: false }), [[R1, R2]]);
    expect(s.out.text).toBe(
      '{"title":"Gas safety check","anytime":false}\n' +
        '{"title":"Renew the insurance before it runs out at the end of the month","anytime":true}\n',
    );
  });
});

describe('csv and tsv', () => {
  const CF_HEADER = 'uuid,created_at,updated_at,name,label,type,entity_type';

  test('csv: header of every field, values as sent, codes as numbers, null empty', async () => {
    const s = await list(customFields, { output: 'csv' }, screen({ tty: true }), [[CF1], [{ ...CF1, name: null }]]);
    const row = 'c1000000-0000-4000-8000-000000000001,2026-01-15T09:30:00+00:00,2026-01-15T09:30:00+00:00';
    expect(s.out.text).toBe(`${CF_HEADER}\n${row},colour,Colour,1,2\n${row},,Colour,1,2\n`);
  });

  test('csv quoting: quotes, commas and line breaks (RFC 4180)', async () => {
    const p = property(1, { address: 'Flat 2, "The Mill"', address2: 'line one\nline two', city: 'plain' });
    const s = await list(
      properties,
      { output: 'csv', fields: 'address,address2,city,has_garage' },
      screen({ tty: false }),
      [[p]],
    );
    expect(s.out.text).toBe(
      'address,address2,city,has_garage\n"Flat 2, ""The Mill""","line one\nline two",plain,true\n',
    );
  });

  test('csv: a column per custom field (custom_fields.NAME), only when embedded', async () => {
    const cf = { data: [{ uuid: 'u', name: 'colour', label: 'Colour', value: 'red, dark' }] };
    const s = await list(properties, { output: 'csv' }, screen({ tty: false }), [[{ ...P1, custom_fields: cf }]]);
    const [header, row] = s.out.text.split('\n');
    expect(header?.endsWith(',num_notes,custom_fields.colour')).toBe(true);
    expect(row?.endsWith(',0,2,"red, dark"')).toBe(true);
    const plain = await list(properties, { output: 'csv' }, screen({ tty: false }), [[P1]]);
    expect(plain.out.text.split('\n')[0]?.endsWith(',num_notes')).toBe(true);
  });

  test('csv of an empty list is the header alone', async () => {
    const s = await list(customFields, { output: 'csv' }, screen({ tty: false }), []);
    expect(s.out.text).toBe(`${CF_HEADER}\n`);
  });

  test('tsv: tabs and line breaks in values are escaped, no quoting', async () => {
    const p = property(1, { address: 'a\tb', address2: 'c\r\nd"e' });
    const s = await list(
      properties,
      { output: 'tsv', fields: 'uuid,address,address2,bedrooms' },
      screen({ tty: false }),
      [[p]],
    );
    expect(s.out.text).toBe(`uuid\taddress\taddress2\tbedrooms\n${P1.uuid}\ta\\tb\tc\\r\\nd"e\t1\n`);
  });

  test('written as pages arrive', () => {
    const s = screen({ tty: false });
    createListPrinter(customFields, outputSpecFrom(customFields, { output: 'tsv', fields: 'name' }), s).add([CF1]);
    expect(s.out.text).toBe('name\ncolour\n');
  });
});

describe('quiet', () => {
  test('uuids only, whatever the format, no footer', async () => {
    for (const flags of [{ quiet: true }, { quiet: true, json: true }, { quiet: true, output: 'csv' }]) {
      const s = await list(properties, flags, screen({ tty: true }), [[P1], [P2]], PAGE1);
      expect(s.out.text).toBe(`${P1.uuid}\n${P2.uuid}\n`);
      expect(s.err.text).toBe('');
    }
  });

  test('streams', () => {
    const s = screen({ tty: false });
    createListPrinter(properties, outputSpecFrom(properties, { quiet: true }), s).add([P3]);
    expect(s.out.text).toBe(`${P3.uuid}\n`);
  });
});

describe('footer', () => {
  const end = async (count: number, info?: PageInfo & { fetchedPages?: number }) => {
    const records = Array.from({ length: count }, (_, i) => property(i));
    return (await list(properties, {}, screen({ tty: true, columns: 200 }), [records], info)).err.text;
  };

  test('a page in the middle', async () => {
    expect(await end(10, { total: 53, page: 2, perPage: 10, totalPages: 6 })).toBe(
      'showing 11-20 of 53, page 2 of 6\n',
    );
  });

  test('the last, short page', async () => {
    expect(await end(3, { total: 53, page: 6, perPage: 10, totalPages: 6 })).toBe('showing 51-53 of 53, page 6 of 6\n');
  });

  test('several pages fetched (--all)', async () => {
    expect(await end(53, { total: 53, page: 1, perPage: 10, totalPages: 6, fetchedPages: 6 })).toBe(
      'showing 1-53 of 53\n',
    );
  });

  test('a page past the last', async () => {
    expect(await end(0, { total: 53, page: 9, perPage: 10, totalPages: 6 })).toBe(
      'No properties on page 9: there are 6 pages.\n',
    );
  });

  test('no page information: no footer', async () => {
    expect(await end(2)).toBe('');
  });

  test('colour off: no ANSI codes in any format, on either stream', async () => {
    for (const flags of [{}, { json: true }, { output: 'ndjson' }, { output: 'csv' }, { output: 'tsv' }]) {
      const s = await list(reminders, flags, screen({ tty: true, color: false }), [[R1, R2]], PAGE1);
      expect(s.out.text + s.err.text).not.toMatch(ANSI);
      const r = screen({ tty: true, color: false });
      await printRecord(reminders, R2, outputSpecFrom(reminders, flags), r);
      expect(r.out.text).not.toMatch(ANSI);
    }
  });
});

describe('text from the server cannot act on a terminal', () => {
  // ESC ] (a title change), a CSI as the one character U+009B, and a bidi override (U+202E).
  const hostile = { ...R1, title: 'a\x1b]0;owned\x07b\u009b31mc\u202eevil' };
  const out = (s: Screen) => s.out.text;

  test('json and ndjson write them as \\u escapes, on a terminal and piped: the same JSON', async () => {
    for (const tty of [true, false])
      for (const output of ['json', 'ndjson'] as const) {
        const s = await list(reminders, { output }, screen({ tty }), [[hostile]]);
        expect(out(s)).not.toMatch(/[\x1b\x07\u009b\u202e]/);
        expect(out(s)).toContain('\\u001b]0;owned\\u0007b\\u009b31mc\\u202eevil');
        const parsed = output === 'json' ? JSON.parse(out(s))[0] : JSON.parse(out(s));
        expect(parsed.title).toBe(hostile.title);
      }
  });

  test('csv and tsv on a terminal show them as spaces; piped, as sent', async () => {
    for (const output of ['csv', 'tsv'] as const) {
      const tty = await list(reminders, { output, fields: 'title' }, screen({ tty: true }), [[hostile]]);
      expect(out(tty)).not.toMatch(/[\x1b\x07\u009b\u202e]/);
      expect(out(tty)).toContain('a ]0;owned b 31mc evil');
      const piped = await list(reminders, { output, fields: 'title' }, screen({ tty: false }), [[hostile]]);
      expect(out(piped)).toContain('\u202eevil');
    }
  });

  test('a table shows neither controls nor bidi overrides', async () => {
    const s = await list(reminders, { fields: 'title' }, screen({ tty: true }), [[hostile]]);
    expect(out(s)).not.toMatch(/[\x1b\x07\u009b\u202e]/);
  });
});
