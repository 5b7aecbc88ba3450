/**
 * The list query, both ways, with no server: a table of query strings and what parseListQuery
 * makes of them (a condition, or the 400 naming the parameter), and a property that every filter
 * the descriptions allow survives encodeListQuery -> parseListQuery.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QueryError, ValidationError } from '../../src/core/errors.js';
import { FILTER_KINDS } from '../../src/core/kinds.js';
import { type Condition, encodeListQuery, type ListFilter, parseListQuery } from '../../src/core/query.js';
import { fieldOf, filterFields, RESOURCES, resourceByPath } from '../../src/resources/index.js';
import type { FieldDef, ResourceDef } from '../../src/resources/types.js';

const NOW = Date.parse('2026-03-10T12:00:00Z');
const properties = resourceByPath('properties');
const notes = resourceByPath('notes');
const customFields = resourceByPath('custom-fields');

const parse = (r: ResourceDef, qs: string) => parseListQuery(r, new URLSearchParams(qs), NOW);

/** A condition without its field definitions: what a reader of the table wants to see. */
function plain(c: Condition): unknown {
  switch (c.kind) {
    case 'relation':
      return { relation: c.relation.name, conditions: c.conditions.map(plain) };
    case 'custom':
      return { custom: c };
    case 'range':
      return {
        range: c.field.name,
        start: new Date(c.range.start).toISOString(),
        end: new Date(c.range.end).toISOString(),
      };
    case 'in':
    case 'int':
    case 'same':
      return { [c.kind]: c.field.name, values: c.values };
    default:
      return { [c.kind]: c.field.name, value: c.value };
  }
}

describe('parseListQuery: what each form of each filter kind becomes', () => {
  const table: [ResourceDef, string, unknown[]][] = [
    [properties, 'uuid=a', [{ in: 'uuid', values: ['a'] }]],
    [properties, 'uuid[]=a&uuid[]=b', [{ in: 'uuid', values: ['a', 'b'] }]],
    [properties, 'city=Leeds', [{ fuzzy: 'city', value: 'Leeds' }]],
    [properties, 'postcode=ls1%201', [{ fuzzy: 'postcode', value: 'ls1 1' }]],
    [properties, 'bedrooms=3', [{ int: 'bedrooms', values: [3] }]],
    [properties, 'bedrooms[]=2&bedrooms[]=3', [{ int: 'bedrooms', values: [2, 3] }]],
    [properties, 'has_garage=TRUE', [{ bool: 'has_garage', value: true }]],
    [properties, 'has_garage=0', [{ bool: 'has_garage', value: false }]],
    [customFields, 'entity_type=2', [{ int: 'entity_type', values: [2] }]],
    [
      properties,
      'created_at=2026-03-01',
      [{ range: 'created_at', start: '2026-03-01T00:00:00.000Z', end: '2026-03-02T00:00:00.000Z' }],
    ],
    [
      properties,
      'created_at=-P1D',
      [{ range: 'created_at', start: '2026-03-09T12:00:00.000Z', end: '2026-03-10T12:00:00.000Z' }],
    ],
    [
      notes,
      'property[city]=leeds&property[bedrooms][]=3',
      [
        {
          relation: 'property',
          conditions: [
            { fuzzy: 'city', value: 'leeds' },
            { int: 'bedrooms', values: [3] },
          ],
        },
      ],
    ],
    [
      properties,
      'custom_fields[name]=colour&custom_fields[value]=red',
      [{ custom: { kind: 'custom', entity: 2, name: 'colour', value: 'red' } }],
    ],
  ];
  it.each(table)('%s ?%s', (r, qs, expected) => {
    expect(parse(r, qs).conditions.map(plain)).toEqual(expected);
  });

  const refused: [ResourceDef, string, string, RegExp][] = [
    [properties, 'bedrooms=three', 'bedrooms', /bedrooms must be an integer, not "three"/],
    [properties, 'bedrooms=%207', 'bedrooms', /bedrooms must be an integer, not " 7"/],
    [properties, 'has_garage=yes', 'has_garage', /has_garage must be true, false, 1 or 0, not "yes"/],
    [properties, 'city[]=a&city[]=b', 'city[]', /city does not take several values/],
    [properties, 'city=a&city=b', 'city', /given more than once\.$/],
    [properties, 'bedrooms=1&bedrooms=2', 'bedrooms', /use bedrooms\[\] for several values/],
    [properties, 'city=%20', 'city', /city must not be empty/],
    [properties, 'created_at=2026-13-01', 'created_at', /created_at is invalid/],
    [properties, 'num_notes=1', 'num_notes', /Unknown query parameter "num_notes"/],
    [properties, 'colour=red', 'colour', /properties accepts: uuid, created_at/],
    [notes, 'property[colour]=red', 'property[colour]', /property\[\.\.\.\] takes uuid, created_at/],
    [
      properties,
      'custom_fields[label]=x',
      'custom_fields[label]',
      /custom_fields takes \[name\], \[uuid\] or \[value\]/,
    ],
    [properties, 'embed=notes', 'embed', /properties can embed: custom_fields, contact/],
  ];
  it.each(refused)('%s ?%s is a 400 naming %s', (r, qs, parameter, message) => {
    let caught: unknown;
    try {
      parse(r, qs);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(QueryError);
    expect((caught as QueryError).parameter).toBe(parameter);
    expect((caught as QueryError).message).toMatch(message);
  });

  it('page and per_page out of range are a 422 naming the field', () => {
    expect(() => parse(properties, 'per_page=101')).toThrow(ValidationError);
    expect(() => parse(properties, 'page=0')).toThrow(/The page field must be at least 1/);
    expect(parse(properties, 'page=3&per_page=100')).toMatchObject({ page: 3, perPage: 100 });
  });
});

// ------------------------------------------------------------------ round trip

/** Valid query values of a filter kind. */
function queryValue(f: FieldDef): fc.Arbitrary<string> {
  switch (f.filter) {
    case 'int':
      return fc.integer({ min: f.min ?? -1000, max: f.max ?? 1000 }).map(String);
    case 'code':
      return fc.constantFrom(...Object.keys(f.codes ?? {}));
    case 'bool':
      return fc.constantFrom('true', 'false', '1', '0', 'TRUE');
    case 'datetime':
      return fc.constantFrom('2026-03-01', '-P7D', 'P1M', '2026-01-01/2026-02-01', '2026-03-01T10:00:00Z/PT1H');
    case 'uuid':
      return fc.uuid();
    default:
      return fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== '' && !s.includes('\u0000'));
  }
}

/** Filters of one resource's fields: one value each, or several where the kind takes several. */
function fieldFilters(r: ResourceDef): fc.Arbitrary<Record<string, string[]>> {
  const entries = Object.fromEntries(
    filterFields(r).map((f) => [
      f.name,
      FILTER_KINDS[f.filter as NonNullable<FieldDef['filter']>].arrayable
        ? fc.array(queryValue(f), { minLength: 1, maxLength: 3 })
        : queryValue(f).map((v) => [v]),
    ]),
  );
  return fc.record(entries, { requiredKeys: [] }) as fc.Arbitrary<Record<string, string[]>>;
}

function listFilter(r: ResourceDef): fc.Arbitrary<ListFilter> {
  const relations = Object.fromEntries((r.parents ?? []).map((p) => [p.name, fieldFilters(resourceByPath(p.target))]));
  return fc.record(
    {
      fields: fieldFilters(r),
      relations: fc.record(relations, { requiredKeys: [] }) as fc.Arbitrary<Record<string, Record<string, string[]>>>,
      ...(r.customValues
        ? {
            custom: fc.record(
              { name: fc.constantFrom('colour', 'size'), value: fc.constantFrom('red', 'a b', '%') },
              { requiredKeys: [] },
            ),
          }
        : {}),
      page: fc.integer({ min: 1, max: 50 }),
      perPage: fc.integer({ min: 1, max: 100 }),
    },
    { requiredKeys: [] },
  );
}

/** What parseListQuery should read for a field's values. */
function expected(f: FieldDef, values: readonly string[]): unknown {
  switch (f.filter) {
    case 'int':
    case 'code':
      return { int: f.name, values: values.map(Number) };
    case 'bool':
      return { bool: f.name, value: ['true', '1'].includes((values[0] as string).toLowerCase()) };
    case 'uuid':
      return { in: f.name, values };
    case 'datetime':
      return expect.objectContaining({ range: f.name });
    default:
      return { fuzzy: f.name, value: values[0] };
  }
}

describe('encodeListQuery -> parseListQuery', () => {
  for (const r of RESOURCES.filter((x) => x.verbs.list))
    it(`every filter of ${r.path} survives the round trip`, () => {
      fc.assert(
        fc.property(listFilter(r), (filter) => {
          const q = parseListQuery(r, encodeListQuery(r, filter), NOW);
          const want: unknown[] = Object.entries(filter.fields ?? {}).map(([name, values]) =>
            expected(fieldOf(r, name) as FieldDef, values),
          );
          for (const [name, inner] of Object.entries(filter.relations ?? {})) {
            const rel = r.parents?.find((p) => p.name === name);
            const target = resourceByPath(rel?.target as string);
            const conditions = Object.entries(inner).map(([f, v]) => expected(fieldOf(target, f) as FieldDef, v));
            if (conditions.length) want.push({ relation: name, conditions });
          }
          if (filter.custom && Object.keys(filter.custom).length)
            want.push({ custom: { kind: 'custom', entity: r.customValues?.entity, ...filter.custom } });
          expect(q.conditions.map(plain)).toEqual(want);
          expect(q.page).toBe(filter.page ?? 1);
          expect(q.perPage).toBe(filter.perPage ?? 10);
        }),
        { numRuns: 200 },
      );
    });
});
