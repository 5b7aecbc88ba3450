/**
 * Body validation with no server: a table of bodies and what validateBody makes of them (the
 * normalized values, or the 422's field errors in Laravel's words), per field kind and mode.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/errors.js';
import { type Mode, validateBody } from '../../src/core/validate.js';
import { resourceByPath } from '../../src/resources/index.js';
import type { ResourceDef } from '../../src/resources/types.js';

const properties = resourceByPath('properties');
const reminders = resourceByPath('reminders');
const customFields = resourceByPath('custom-fields');
const notes = resourceByPath('notes');

const base = { address: '1 High St', postcode: 'LS1 1AA' };

function errorsOf(r: ResourceDef, body: unknown, mode: Mode): Record<string, string[]> {
  try {
    validateBody(r, body, mode);
  } catch (e) {
    if (e instanceof ValidationError) return { ...(e.errors ?? {}) };
    throw e;
  }
  throw new Error('the body was accepted');
}

describe('validateBody accepts and normalizes', () => {
  const table: [string, ResourceDef, Mode, unknown, Record<string, unknown>][] = [
    [
      'create defaults',
      properties,
      'create',
      base,
      { ...base, bedrooms: 0, bathrooms: 0, has_garage: false, has_garden: false, has_parking: false },
    ],
    ['null for a nullable text', properties, 'update', { ...base, city: null }, { ...base, city: null }],
    [
      'null on create for a field with a default',
      properties,
      'create',
      { ...base, bedrooms: null },
      { ...base, bedrooms: 0 },
    ],
    ['a code by number', customFields, 'update', { entity_type: { code: 2 } }, { entity_type: 2 }],
    ['a code with its right name', customFields, 'update', { type: { code: 1, name: 'Text' } }, { type: 1 }],
    [
      'a date is due all day',
      reminders,
      'create',
      { title: 't', due_at: ' 2026-12-01 ' },
      { title: 't', due_at: '2026-12-01', anytime: true, description: undefined },
    ],
    [
      'a datetime with an offset is stored in UTC',
      reminders,
      'create',
      { title: 't', due_at: '2026-12-01T10:00:00+02:00' },
      { title: 't', due_at: '2026-12-01T08:00:00+00:00', anytime: false },
    ],
    ['text at its limit', notes, 'create', { content: 'x'.repeat(65535) }, { content: 'x'.repeat(65535) }],
  ];
  it.each(table)('%s', (_name, r, mode, body, values) => {
    const got = validateBody(r, body, mode).values;
    for (const [k, v] of Object.entries(values)) expect(got[k], k).toEqual(v);
  });
});

describe('validateBody refuses, naming each field', () => {
  const table: [string, ResourceDef, Mode, unknown, Record<string, string[]>][] = [
    ['a required field', properties, 'create', { postcode: 'x' }, { address: ['The address field is required.'] }],
    [
      'a blank required field on update',
      properties,
      'update',
      { ...base, address: '  ' },
      { address: ['The address field is required.'] },
    ],
    [
      'a number as a string',
      properties,
      'create',
      { ...base, bedrooms: '3' },
      { bedrooms: ['The bedrooms field must be an integer.'] },
    ],
    [
      'a number out of range',
      properties,
      'create',
      { ...base, bedrooms: -1, bathrooms: 1001 },
      {
        bedrooms: ['The bedrooms field must be at least 0.'],
        bathrooms: ['The bathrooms field must not be greater than 1000.'],
      },
    ],
    [
      'a word for a boolean',
      properties,
      'create',
      { ...base, has_garage: 'yes' },
      { has_garage: ['The has garage field must be true or false.'] },
    ],
    [
      'text too long, counted in characters',
      properties,
      'create',
      { ...base, city: '€'.repeat(256) },
      { city: ['The city field must not be greater than 255 characters.'] },
    ],
    [
      'a NUL in text',
      properties,
      'create',
      { ...base, city: 'a\u0000b' },
      { city: ['The city field must not contain NUL characters.'] },
    ],
    [
      'an unknown code and a stray key',
      customFields,
      'create',
      { label: 'x', type: { code: 1 }, entity_type: { code: 3, colour: 1 } },
      {
        'entity_type.colour': ['The entity_type.colour field is not allowed.'],
        'entity_type.code': ['The selected entity_type.code is invalid: use 1 (Contact) or 2 (Property).'],
      },
    ],
    [
      'a code whose name does not match',
      customFields,
      'update',
      { type: { code: 1, name: 'Number' } },
      { 'type.name': ['The type.name field must be "Text" for code 1.'] },
    ],
    [
      'not a date',
      reminders,
      'create',
      { title: 't', due_at: 'tomorrow' },
      { due_at: ['The due at field must be an ISO 8601 date or datetime, not "tomorrow".'] },
    ],
    [
      'an offset beyond any zone (it would shift the time by days)',
      reminders,
      'create',
      { title: 't', due_at: '2026-12-01T10:00:00+99:99' },
      { due_at: ['The due at field must be an ISO 8601 date or datetime, not "2026-12-01T10:00:00+99:99".'] },
    ],
    [
      'a lone surrogate in text',
      properties,
      'create',
      { ...base, city: 'Leeds \ud800' },
      { city: ['The city field must be valid Unicode text.'] },
    ],
    [
      'a lone surrogate in a custom value',
      properties,
      'create',
      { ...base, custom_fields: [{ name: 'colour', value: '\udc00red' }] },
      { 'custom_fields.0.value': ['The custom_fields.0.value field must be valid Unicode text.'] },
    ],
    [
      'a date that is not all day',
      reminders,
      'create',
      { title: 't', due_at: '2026-12-01', anytime: false },
      { anytime: ['The anytime field cannot be false when due_at is a date without a time.'] },
    ],
    [
      'read-only and unknown fields',
      properties,
      'create',
      { ...base, uuid: 'x', num_notes: 1, colour: 'red' },
      {
        uuid: ['The uuid field is read-only.'],
        num_notes: ['The num notes field is read-only.'],
        colour: ['The colour field is not allowed.'],
      },
    ],
    [
      'a link that names nothing',
      properties,
      'create',
      { ...base, contact: { phone: '1' } },
      { contact: ['The contact field must name one contact by uuid or email, e.g. {"uuid": "..."}.'] },
    ],
    [
      'custom values that are not a list',
      properties,
      'create',
      { ...base, custom_fields: { colour: 'red' } },
      { custom_fields: ['The custom fields field must be a list of {name or uuid, value} objects.'] },
    ],
    [
      'null on update for a field that is not nullable',
      properties,
      'update',
      { ...base, bedrooms: null },
      { bedrooms: ['The bedrooms field must not be null.'] },
    ],
    [
      'blanking on update a field create requires',
      reminders,
      'update',
      { title: '   ' },
      { title: ['The title field is required.'] },
    ],
    [
      'a blank label and contact name and email on update',
      resourceByPath('contacts'),
      'update',
      { name: '', email: ' ' },
      { name: ['The name field is required.'], email: ['The email field is required.'] },
    ],
  ];
  it.each(table)('%s', (_name, r, mode, body, errors) => {
    expect(errorsOf(r, body, mode)).toEqual(errors);
  });

  it("a property's contact on update is taken, as on create (ours)", () => {
    expect(() => errorsOf(properties, { ...base, contact: { uuid: 'x' } }, 'update')).toThrow('the body was accepted');
  });

  it('a body that is not an object', () => {
    for (const body of [null, [], 'x', 3])
      expect(errorsOf(properties, body, 'create')).toEqual({ body: ['The request body must be a JSON object.'] });
  });
});

describe('a body with very many errors', () => {
  it('lists the first 100 field errors and counts the rest in the message', () => {
    const body: Record<string, unknown> = { ...base };
    for (let i = 0; i < 50_000; i++) body[`k${i}`] = 1;
    let caught: ValidationError | undefined;
    try {
      validateBody(properties, body, 'create');
    } catch (e) {
      caught = e as ValidationError;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect(Object.keys(caught?.errors ?? {})).toHaveLength(100);
    expect(caught?.errors?.k99).toEqual(['The k99 field is not allowed.']);
    expect(caught?.message).toBe('The k0 field is not allowed. (and 49999 more errors)');
  });
});
