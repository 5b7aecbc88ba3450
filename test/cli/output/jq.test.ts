import { describe, expect, test } from 'vitest';
import { CliError } from '../../../src/cli/errors.js';
import {
  type OutputFlags,
  createListPrinter,
  outputSpecFrom,
  prepareOutput,
  printJson,
  printRecord,
} from '../../../src/cli/output/index.js';
import { P1, P2, P3, R1, properties, property, reminders, screen } from './helpers.js';

async function jqList(flags: OutputFlags, pages: Record<string, unknown>[][], tty = false) {
  const s = screen({ tty });
  const printer = createListPrinter(properties, outputSpecFrom(properties, flags), s);
  for (const p of pages) printer.add(p);
  await printer.end();
  return s;
}

async function jqError(run: () => Promise<unknown>): Promise<CliError> {
  const e = await run().then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(CliError);
  expect((e as CliError).exitCode).toBe(2);
  return e as CliError;
}

describe('--jq on a list (the input is the array of records)', () => {
  test('select: string results raw, one a line', async () => {
    const s = await jqList({ jq: '.[] | select(.bedrooms > 1) | .uuid' }, [[P1], [P2], [P3]]);
    expect(s.out.text).toBe(`${P2.uuid}\n${P3.uuid}\n`);
  });

  test('map: one compact JSON line', async () => {
    const s = await jqList({ jq: 'map(.address)' }, [[P1, P2, P3]]);
    expect(s.out.text).toBe('["1 High Street","2 High Street","3 High Street"]\n');
  });

  test('length', async () => {
    expect((await jqList({ jq: 'length' }, [[P1, P2], [P3]])).out.text).toBe('3\n');
    expect((await jqList({ jq: 'length' }, [])).out.text).toBe('0\n');
  });

  test('objects compact, strings raw even with quotes inside, each result its own line', async () => {
    const quoted = property(1, { address: 'The "Mill"' });
    const s = await jqList({ jq: '.[] | {uuid, n: .bedrooms}, .address' }, [[quoted]]);
    expect(s.out.text).toBe(`{"uuid":"${P1.uuid}","n":1}\nThe "Mill"\n`);
  });

  test('no results, no output', async () => {
    expect((await jqList({ jq: '.[] | select(.bedrooms > 99)' }, [[P1]])).out.text).toBe('');
  });

  test('the input is the selected fields when --json names them', async () => {
    expect((await jqList({ json: 'bedrooms,uuid', jq: '.[0] | keys_unsorted' }, [[P1]])).out.text).toBe(
      '["bedrooms","uuid"]\n',
    );
  });

  test('jq features beyond paths: reduce, def, string interpolation', async () => {
    const s = await jqList({ jq: 'def beds: .bedrooms; (reduce .[] as $p (0; . + ($p|beds))), "\\(length) homes"' }, [
      [P1, P2, P3],
    ]);
    expect(s.out.text).toBe('6\n3 homes\n');
  });

  test('jq debug output goes to our stderr, data to stdout', async () => {
    const s = await jqList({ jq: '.[0].bedrooms | debug' }, [[P1]]);
    expect(s.out.text).toBe('1\n');
    expect(s.err.text).toBe('["DEBUG:",1]\n');
  });

  test('a terminal still gets the footer on stderr', async () => {
    const s = screen({ tty: true });
    const printer = createListPrinter(properties, outputSpecFrom(properties, { jq: 'length' }), s);
    printer.add([P1]);
    await printer.end({ total: 1, page: 1, perPage: 10, totalPages: 1 });
    expect(s.out.text).toBe('1\n');
    expect(s.err.text).toBe('showing 1-1 of 1, page 1 of 1\n');
  });
});

describe('--jq on one record and on raw JSON', () => {
  test('printRecord', async () => {
    const s = screen({ tty: true });
    await printRecord(reminders, R1, outputSpecFrom(reminders, { jq: '.title, .anytime' }), s);
    expect(s.out.text).toBe('Gas safety check\nfalse\n');
  });

  test('printJson', async () => {
    const s = screen({ tty: true });
    await printJson({ data: [{ uuid: 'a' }, { uuid: 'b' }] }, { jq: '.data[].uuid' }, s);
    expect(s.out.text).toBe('a\nb\n');
  });
});

describe('--jq errors', () => {
  test('a syntax error is a usage error naming --jq with jq message', async () => {
    const e = await jqError(() => jqList({ jq: '.[' }, [[P1]]));
    expect(e.message).toBe(
      '--jq: syntax error, unexpected end of file (Unix shell quoting issues?) at <top-level>, line 1.',
    );
    expect(e.showUsage).toBe(true);
  });

  test('an unknown function', async () => {
    const e = await jqError(() => printJson({}, { jq: 'nosuch(1)' }, screen({ tty: false })));
    expect(e.message).toBe('--jq: nosuch/1 is not defined at <top-level>, line 1.');
  });

  test('an error while running', async () => {
    const e = await jqError(() => jqList({ jq: '.[0].address.street' }, [[P1]]));
    expect(e.message).toBe('--jq: Cannot index string with string "street".');
    expect(e.showUsage).toBe(false);
  });

  test('leaves process.exitCode alone (jq-web would leave its exit status there)', async () => {
    const before = process.exitCode;
    try {
      process.exitCode = undefined;
      await jqError(() => jqList({ jq: '.[' }, [[P1]]));
      expect(process.exitCode).toBeUndefined();
    } finally {
      process.exitCode = before;
    }
  });

  test('prepareOutput reports a mistake before any request, without running the filter', async () => {
    const e = await jqError(() => prepareOutput(outputSpecFrom(properties, { jq: 'map(.uuid' })));
    expect(e.message).toMatch(/^--jq: syntax error, /);
    // Never evaluated: on null input this would run forever.
    await expect(prepareOutput(outputSpecFrom(properties, { jq: 'repeat(1)' }))).resolves.toBeUndefined();
    await expect(prepareOutput(outputSpecFrom(properties, {}))).resolves.toBeUndefined();
  });
});
