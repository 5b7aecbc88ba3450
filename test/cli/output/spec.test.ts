import { describe, expect, test } from 'vitest';
import { CliError } from '../../../src/cli/errors.js';
import { colorEnabled, embedsFor, fieldNames, outputSpecFrom } from '../../../src/cli/output/index.js';
import { properties, reminders } from './helpers.js';

function usage(fn: () => unknown): CliError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CliError);
    expect((e as CliError).exitCode).toBe(2);
    expect((e as CliError).showUsage).toBe(true);
    return e as CliError;
  }
  throw new Error('expected a usage error');
}

describe('outputSpecFrom', () => {
  test('table by default', () => {
    expect(outputSpecFrom(properties, {})).toEqual({ format: 'table', quiet: false });
  });

  test('--json alone: all fields', () => {
    expect(outputSpecFrom(properties, { json: true })).toEqual({ format: 'json', quiet: false });
  });

  test('--json with fields selects them, in order, once, kebab-case accepted', () => {
    expect(outputSpecFrom(properties, { json: 'address, uuid,has-garage,uuid' })).toEqual({
      format: 'json',
      fields: ['address', 'uuid', 'has_garage'],
      quiet: false,
    });
  });

  test('--fields with any format', () => {
    expect(outputSpecFrom(properties, { fields: 'uuid,city', output: 'csv' })).toEqual({
      format: 'csv',
      fields: ['uuid', 'city'],
      quiet: false,
    });
  });

  test('-o takes every format, in any case', () => {
    for (const f of ['table', 'json', 'ndjson', 'csv', 'tsv'])
      expect(outputSpecFrom(properties, { output: f.toUpperCase() }).format).toBe(f);
  });

  test('unknown format: usage error listing the valid ones', () => {
    const e = usage(() => outputSpecFrom(properties, { output: 'xml' }));
    expect(e.message).toBe('--output must be one of table, json, ndjson, csv, tsv, not "xml".');
  });

  test('--json with -o other than json conflicts; with -o json it does not', () => {
    const e = usage(() => outputSpecFrom(properties, { json: true, output: 'csv' }));
    expect(e.message).toBe('--json and --output csv cannot be used together.');
    expect(outputSpecFrom(properties, { json: true, output: 'json' }).format).toBe('json');
  });

  test('--json FIELDS with --fields conflicts', () => {
    const e = usage(() => outputSpecFrom(properties, { json: 'uuid', fields: 'city' }));
    expect(e.message).toBe('--json FIELDS and --fields cannot be used together.');
  });

  test('unknown field: usage error naming the flag, listing the valid fields, suggesting a near one', () => {
    const e = usage(() => outputSpecFrom(properties, { fields: 'uuid,bedroom' }));
    expect(e.message).toBe(
      '--fields: unknown field "bedroom". Valid fields for properties: uuid, created_at, updated_at, address, ' +
        'address2, city, county, postcode, type, bedrooms, bathrooms, has_garage, has_garden, has_parking, ' +
        'num_attachments, num_notes, custom_fields, contact, status.',
    );
    expect(e.hint).toBe('Did you mean "bedrooms"?');
    const far = usage(() => outputSpecFrom(properties, { json: 'colour' }));
    expect(far.message).toMatch(/^--json: unknown field "colour"\. Valid fields for properties: uuid, /);
    expect(far.hint).toBeUndefined();
  });

  test('custom_fields is a field only of resources that embed it', () => {
    expect(fieldNames(properties)).toContain('custom_fields');
    expect(fieldNames(reminders)).not.toContain('custom_fields');
    expect(outputSpecFrom(properties, { json: 'uuid,custom_fields' }).fields).toEqual(['uuid', 'custom_fields']);
    const e = usage(() => outputSpecFrom(reminders, { json: 'custom_fields' }));
    expect(e.message).toMatch(
      /^--json: unknown field "custom_fields"\. Valid fields for reminders: uuid, created_at, /,
    );
    expect(e.message).toContain('due_at');
    expect(e.message.split('Valid fields')[1]).not.toContain('custom_fields');
  });

  test('embedsFor names the embeds the selected fields need', () => {
    expect(embedsFor(properties, outputSpecFrom(properties, { json: 'uuid,custom_fields' }))).toEqual([
      'custom_fields',
    ]);
    expect(embedsFor(properties, outputSpecFrom(properties, { json: true }))).toEqual([]);
  });

  test('an empty field list is a usage error', () => {
    expect(usage(() => outputSpecFrom(properties, { fields: ' , ' })).message).toMatch(
      /^--fields needs at least one field name\. Valid fields for properties: /,
    );
  });

  test('-q', () => {
    expect(outputSpecFrom(properties, { quiet: true, json: true })).toEqual({ format: 'json', quiet: true });
  });

  test('--jq implies JSON; not with -q, csv, tsv or ndjson; not empty', () => {
    expect(outputSpecFrom(properties, { jq: '.[].uuid' })).toEqual({ format: 'json', quiet: false, jq: '.[].uuid' });
    expect(outputSpecFrom(properties, { jq: 'length', json: 'uuid' })).toEqual({
      format: 'json',
      fields: ['uuid'],
      quiet: false,
      jq: 'length',
    });
    expect(usage(() => outputSpecFrom(properties, { jq: '.', quiet: true })).message).toBe(
      '--jq and --quiet cannot be used together.',
    );
    for (const output of ['csv', 'tsv', 'ndjson'])
      expect(usage(() => outputSpecFrom(properties, { jq: '.', output })).message).toBe(
        `--jq filters JSON: it cannot be used with --output ${output}.`,
      );
    expect(usage(() => outputSpecFrom(properties, { jq: ' ' })).message).toMatch(/^--jq needs a jq expression/);
  });
});

describe('colorEnabled', () => {
  test.each([
    [{}, true, undefined, true],
    [{}, false, undefined, false],
    [{}, undefined, undefined, false],
    [{ NO_COLOR: '1' }, true, undefined, false],
    [{ NO_COLOR: '' }, true, undefined, true],
    [{ FORCE_COLOR: '0' }, true, undefined, false],
    [{ FORCE_COLOR: '1' }, false, undefined, true],
    [{ FORCE_COLOR: '3' }, false, undefined, true],
    [{ FORCE_COLOR: '' }, false, undefined, true],
    [{ NO_COLOR: 'x', FORCE_COLOR: '1' }, true, undefined, false],
    [{}, true, false, false],
    [{ FORCE_COLOR: '1' }, true, false, false],
    [{}, true, true, true],
    [{}, false, true, false],
  ])('env %j, tty %s, flag %s -> %s', (env, tty, flag, want) => {
    expect(colorEnabled(env as Record<string, string>, tty, flag)).toBe(want);
  });
});
