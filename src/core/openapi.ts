/**
 * The API as an OpenAPI 3.1 document, generated from the resource descriptions and the kinds:
 * every path and method, every query parameter, the bodies and records with their nullability as
 * served, every error status with its body, the bearer scheme and its scopes, the rate-limit
 * headers. `pm serve` serves it at /openapi.json; docs/openapi.json is a copy a test keeps equal.
 */
import {
  CALENDAR_RESOURCE,
  customFields,
  CUSTOM_VALUES_KEY,
  childrenOf,
  embeddedFieldsOf,
  embedNames,
  embedsOf,
  fieldOf,
  filterFields,
  filterRelationsOf,
  inputFields,
  namedBy,
  RESOURCES,
  resourceByPath,
  RESOURCE_WORDS,
  writableLinks,
} from '../resources/index.js';
import type { FieldDef, FilterKind, ResourceDef } from '../resources/types.js';
import { CALENDAR_FEEDS_PATH, FEED_PATH, HEALTH_PATH, OPENAPI_PATH } from './endpoints.js';
import { FILTER_KINDS, fieldKind, prefixParameter, type Schema } from './kinds.js';
import { DEFAULT_PER_PAGE, MAX_BODY_BYTES, MAX_PER_PAGE, MAX_SEARCH_VALUE } from './limits.js';
import { MAX_CUSTOM_VALUE_CHARS, MAX_CUSTOM_VALUES, MAX_SET_ITEMS } from './validate.js';
import { aOr } from './words.js';

/** How the document marks what this server adds to the hosted service's API. */
const OURS = 'an extension of pm serve, not in the hosted API';

/** The version of the API the document describes: it changes when the API does. */
const API_VERSION = '1.0.0';

type Obj = Record<string, unknown>;

const ref = (kind: string, name: string): Obj => ({ $ref: `#/components/${kind}/${name}` });
const pascal = (words: string) => words.replace(/(?:^|[\s_-])([a-z])/g, (_m, c: string) => c.toUpperCase());
/** Schema names of a resource: Property, Properties. */
const one = (r: ResourceDef) => pascal(r.singular);
const many = (r: ResourceDef) => pascal(r.plural);
/** An object of exactly these properties, `required` of them (all by default); the description, if any, first. */
const object = (properties: Obj, description?: string, required = Object.keys(properties)): Schema => ({
  type: 'object',
  ...(description !== undefined ? { description } : {}),
  properties,
  ...(required.length ? { required } : {}),
  additionalProperties: false,
});
const nameOf = (f: FieldDef) => f.name;
const nullable = (s: Schema): Schema =>
  typeof s.type === 'string' ? { ...s, type: [s.type, 'null'] } : { anyOf: [s, { type: 'null' }] };

/** An extension of the API said to be one. */
/** What marks a field or link that is ours after its description. */
const OURS_MARK = ` (ours: ${OURS})`;

/** A field's description, marked where it is ours. */
const described = (f: FieldDef): string => f.description + (f.ours ? OURS_MARK : '');

/** The value of a field as the API answers it. */
function outSchema(f: FieldDef): Schema {
  const s = { ...fieldKind(f).schema(f, 'out'), description: described(f) };
  // A field that takes null may answer null (a reminder without due_at), unless the server makes it.
  return f.nullable && !f.generated ? nullable(s) : s;
}

/** The value of a field a body may send: null where the field is nullable, or has a default on create. */
function inSchema(f: FieldDef, mode: 'create' | 'update'): Schema {
  const s = { ...fieldKind(f).schema(f, 'in'), description: described(f) };
  return f.nullable || (mode === 'create' && f.default !== undefined) ? nullable(s) : s;
}

function recordSchema(r: ResourceDef): Schema {
  const properties: Obj = Object.fromEntries(r.fields.map((f) => [f.name, outSchema(f)]));
  if (r.customValues) properties[CUSTOM_VALUES_KEY] = ref('schemas', 'CustomValues');
  for (const e of embedsOf(r)) {
    if (e.kind === 'custom_values') continue;
    const rel = e.kind === 'one' ? e.relation : e.set;
    const fields = embeddedFieldsOf(rel).map((n) => fieldOf(e.target, n) as FieldDef);
    const one = object(Object.fromEntries(fields.map((f) => [f.name, outSchema(f)])));
    properties[e.name] =
      e.kind === 'many'
        ? object(
            { data: { type: 'array', items: one } },
            `with ?embed=${e.name}: the ${e.target.plural} of the ${r.singular}`,
          )
        : object(
            { data: nullable(one) },
            `with ?embed=${e.name}: the ${e.target.singular} ${'by' in rel ? `of the ${r.singular}` : `the ${r.singular} belongs to`}, or null`,
          );
  }
  const names = embedNames(r);
  const embeds = names.length ? ` ${names.join(' and ')} only with ?embed=.` : '';
  const by = r.labelledBy;
  const unique = by
    ? ` No two of an account's ${r.plural} have the same ${by.join(' and ')} (the ${by.at(-1)} ignoring ASCII case): a create or update that would is a 422 naming ${by.at(-1)}.`
    : '';
  return object(properties, `${aOr(r.singular, true)}.${embeds}${unique}`, r.fields.map(nameOf));
}

function bodySchema(r: ResourceDef, mode: 'create' | 'update'): Schema {
  const fields = inputFields(r);
  const properties: Obj = Object.fromEntries(fields.map((f) => [f.name, inSchema(f, mode)]));
  if (r.customValues)
    properties[CUSTOM_VALUES_KEY] = {
      type: 'array',
      maxItems: MAX_CUSTOM_VALUES,
      items: ref('schemas', 'CustomValueInput'),
    };
  const named = (by: readonly string[]) => ({ oneOf: by.map((b) => object({ [b]: { type: 'string' } })) });
  for (const l of writableLinks(r, mode))
    properties[l.name] = nullable({
      description: `the ${resourceByPath(l.target).singular} of the ${r.singular}, by ${l.by.join(' or ')}${l.onUpdate ? ' (null clears it)' : ''}${l.ours?.link ? OURS_MARK : ''}${mode === 'update' && l.ours?.onUpdate ? `; ${OURS}: the hosted service takes it on create alone` : ''}`,
      ...named(l.by),
    });
  for (const x of r.sets ?? [])
    properties[x.name] = {
      type: 'array',
      maxItems: MAX_SET_ITEMS,
      description: `the ${resourceByPath(x.target).plural} of the ${r.singular}, each by ${x.by.join(' or ')}: the whole set`,
      items: named(x.by),
    };
  const required = fields.filter((f) => (mode === 'create' ? f.requiredOnCreate : f.requiredOnUpdate));
  return object(properties, undefined, required.map(nameOf));
}

// ------------------------------------------------------------------ parameters

/** A query parameter; an array of values is sent as `name[]=a&name[]=b`. */
function query(name: string, description: string, schema: Schema, example?: string): Obj {
  return {
    name,
    in: 'query',
    description,
    schema,
    ...(example !== undefined ? { example } : {}),
    ...(schema.type === 'array' ? { style: 'form', explode: true } : {}),
  };
}

/** A filter's parameters (`f` is one of filterFields): `name`, and `name[]` where the kind takes several values. */
function filterParams(f: FieldDef, prefix = ''): Obj[] {
  const kind = FILTER_KINDS[f.filter as FilterKind];
  const key = prefix ? `${prefix}[${f.name}]` : f.name;
  const schema = kind.schema(f);
  const single = query(key, `${prefix ? `${prefix}: ` : ''}${kind.help(f)}`, schema, f.example);
  if (!kind.arrayable) return [single];
  return [single, query(`${key}[]`, 'any of these', { type: 'array', items: schema })];
}

function listParams(r: ResourceDef): Obj[] {
  const params = filterFields(r).flatMap((f) => filterParams(f));
  for (const f of filterFields(r)) {
    const prefix = FILTER_KINDS[f.filter as FilterKind].prefix;
    if (prefix) params.push(query(prefixParameter(f), prefix.help(f), prefix.schema, '3f2a9c1e'));
  }
  for (const rel of filterRelationsOf(r)) {
    const target = resourceByPath(rel.target);
    if (!namedBy(rel)) for (const f of filterFields(target)) params.push(...filterParams(f, rel.name));
    else
      for (const b of rel.by) {
        const key = `${rel.name}[${b}]`;
        const text = { type: 'string', pattern: '\\S' };
        const ours = 'ours' in rel && rel.ours?.filter ? ` (${OURS})` : '';
        const help = `${rel.name}: records whose ${target.singular} has this ${b}${b === 'uuid' ? '' : ' (the whole text, ignoring ASCII case)'}${ours}`;
        params.push(query(key, help, text), query(`${key}[]`, 'any of these', { type: 'array', items: text }));
      }
  }
  if (r.customValues) {
    const text = { type: 'string', pattern: '\\S' };
    const uuid = { type: 'string' };
    const key = (sub: string) => `${CUSTOM_VALUES_KEY}[${sub}]`;
    params.push(
      query(key('name'), 'records with a value for this custom field', text),
      query(key('uuid'), 'records with a value for the custom field of this uuid', uuid),
      query(`${key('uuid')}[]`, 'any of these custom fields', { type: 'array', items: uuid }),
      query(key('value'), 'a custom value contains this, ignoring case', { ...text, maxLength: MAX_SEARCH_VALUE }),
    );
  }
  const perPage = { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE };
  return [
    ...params,
    ...embedParam(r),
    query('page', 'the page, from 1', { type: 'integer', minimum: 1, default: 1 }),
    query('per_page', 'records per page', perPage),
  ];
}

function embedParam(r: ResourceDef): Obj[] {
  const all = embedNames(r);
  if (!all.length) return [];
  const names = all.join('|');
  const pattern = `^(${names})(,(${names}))*$`;
  const description = `related data to add to each record, comma-separated: ${all.join(', ')}`;
  return [query('embed', description, { type: 'string', pattern }, all.join(','))];
}

const UUID_PARAM: Obj = {
  name: 'uuid',
  in: 'path',
  required: true,
  description: 'the uuid of the record',
  schema: { type: 'string', format: 'uuid' },
};

// ------------------------------------------------------------------ responses

/** References to these headers of components.headers. */
const headers = (...names: string[]): Obj => Object.fromEntries(names.map((n) => [n, ref('headers', n)]));
const RATE_HEADERS = headers('X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset');

const json = (schema: Schema, example?: unknown): Obj => ({
  content: { 'application/json': { schema, ...(example !== undefined ? { example } : {}) } },
});

/** The error answers, by status: the body is always `{message}`, with `errors` on 422 and 409. */
const ERRORS: Record<string, { name: string; description: string; example: Obj; headers?: Obj }> = {
  400: {
    name: 'BadRequest',
    description: 'a query parameter that is unknown, repeated or malformed; a body that is not JSON',
    example: { message: 'Unknown query parameter "citty". properties accepts: uuid, city, ...' },
  },
  401: {
    name: 'Unauthenticated',
    description: 'no token, or an unknown or revoked one',
    example: { message: 'Unauthenticated.' },
    headers: headers('WWW-Authenticate'),
  },
  403: {
    name: 'Forbidden',
    description: 'the token lacks a scope; the message names it',
    example: { message: 'This action is unauthorized: the token lacks the properties.write scope.' },
  },
  404: {
    name: 'NotFound',
    description: 'no such record in the account, or no such path',
    example: { message: 'No property with uuid 3f2a9c1e-5b7d-4c1a-9e0f-2b6d8a4c7e15.' },
  },
  405: {
    name: 'MethodNotAllowed',
    description: 'a method the path does not take (any method not listed for it here)',
    example: { message: 'The PATCH method is not supported for this route.' },
    headers: headers('Allow'),
  },
  409: {
    name: 'Conflict',
    description:
      'a value that must be unique is taken; or (with Retry-After) a request with the same Idempotency-Key is still being processed',
    example: {
      message: 'A custom field named "roof" already exists for properties.',
      errors: { name: ['A custom field named "roof" already exists for properties.'] },
    },
  },
  413: {
    name: 'PayloadTooLarge',
    description: `a body over ${MAX_BODY_BYTES} bytes; a file over the server's attachment limit (pm serve --max-attachment-size, 100 MiB by default)`,
    example: { message: `The request body is larger than ${MAX_BODY_BYTES} bytes.` },
  },
  416: {
    name: 'RangeNotSatisfiable',
    description: "a Range outside the file: Content-Range says the file's size",
    example: { message: "The range asked for is not within the file's 2048 bytes." },
    headers: headers('Content-Range'),
  },
  415: {
    name: 'UnsupportedMediaType',
    description: 'a body not sent as application/json (UTF-8)',
    example: { message: 'The request body must be sent as Content-Type: application/json (got "text/plain").' },
  },
  422: {
    name: 'ValidationFailed',
    description:
      'an invalid body, or page/per_page out of range: every bad field named (at most 100); a list stopped at its time budget: its filters named',
    example: {
      message: 'The address field is required. (and 1 more error)',
      errors: {
        address: ['The address field is required.'],
        bedrooms: ['The bedrooms field must not be greater than 1000.'],
      },
    },
  },
  429: {
    name: 'TooManyRequests',
    description: "over the user's rate limit: nothing was done",
    example: { message: 'Too Many Attempts.' },
    headers: { ...RATE_HEADERS, ...headers('Retry-After') },
  },
  500: {
    name: 'ServerError',
    description: 'an unexpected error; the details are in the server log only',
    example: { message: 'Server Error' },
  },
  503: {
    name: 'Unavailable',
    description:
      'the server cannot reach or read its store, or a list waited its whole time budget for its turn: try again later',
    example: { message: 'The server cannot read its data file: it is damaged.' },
    headers: headers('Retry-After'),
  },
  507: {
    name: 'InsufficientStorage',
    description: 'the server cannot store the write (its disk is full): nothing was written',
    example: { message: 'The server cannot store this: its disk is full. Nothing was written.' },
  },
};

/** What any request with a token may get besides its own answers. */
const AUTHORIZED = [400, 401, 403, 429, 500, 503];
/** What a request with a body may get besides AUTHORIZED and its own answers. */
const BODY_ERRORS = [413, 415, 422, 507];

function ok(description: string, schema: Schema, extra: Obj = {}): Obj {
  return { description, headers: { ...RATE_HEADERS, ...extra }, ...json(schema) };
}

/** An operation on records of `r`, which needs the token's read or write scope of `r`: `errors` besides AUTHORIZED. */
function op(r: ResourceDef, id: string, summary: string, access: 'read' | 'write', errors: number[], rest: Obj): Obj {
  const security = [{ bearerAuth: [`${r.scope}.${access}`] }];
  const errorRefs = [...AUTHORIZED, ...errors].map((s) => [s, ref('responses', ERRORS[s]!.name)]);
  const responses = { ...(rest.responses as Obj), ...Object.fromEntries(errorRefs) };
  return { operationId: id, summary, tags: [r.path], security, ...rest, responses };
}

/** `{data: <record>}`, the answer of a create, get or update. */
const data = (r: ResourceDef) => object({ data: ref('schemas', one(r)) });

/** The header a create may name its idempotency key in (ours), and the answer's headers. */
const KEY_PARAM = ref('parameters', 'IdempotencyKey');
const CREATED_HEADERS = headers('Location', 'Idempotent-Replayed');

/** A create of a record of `r`, under a record of `parent` if given: `errors` besides AUTHORIZED and BODY_ERRORS. */
function create(r: ResourceDef, parent: ResourceDef | undefined, errors: number[]): Obj {
  const operationId = `create${parent ? one(parent) : ''}${one(r)}`;
  const summary = `Create ${aOr(r.singular)}${parent ? ` of ${aOr(parent.singular)}` : ''}`;
  return op(r, operationId, summary, 'write', [...errors, 409, ...BODY_ERRORS], {
    parameters: [KEY_PARAM],
    requestBody: { required: true, ...json(ref('schemas', `${one(r)}Create`)) },
    responses: { 201: ok(`the new ${r.singular}`, data(r), CREATED_HEADERS) },
  });
}

// ------------------------------------------------------------------ operations

function operations(r: ResourceDef): Record<string, Obj> {
  const unique = r.unique?.length ? [409] : [];
  const paths: Record<string, Obj> = {};
  const base: Obj = {};
  if (r.verbs.list)
    base.get = op(r, `list${many(r)}`, `List ${r.plural}, oldest first`, 'read', [422], {
      parameters: listParams(r),
      responses: { 200: ok(`a page of ${r.plural}`, ref('schemas', `${many(r)}Page`)) },
    });
  if (r.verbs.create && !r.parents) base.post = create(r, undefined, unique);
  if (Object.keys(base).length) paths[`/${r.path}`] = base;
  const itemOps: Obj = { parameters: [UUID_PARAM] };
  if (r.verbs.get)
    itemOps.get = op(r, `get${one(r)}`, `Get ${aOr(r.singular)}`, 'read', [404], {
      parameters: embedParam(r),
      responses: { 200: ok(`the ${r.singular}`, data(r)) },
    });
  if (r.verbs.update) {
    const summary = `Update ${aOr(r.singular)}: the fields given change, the others are kept`;
    itemOps.put = op(r, `update${one(r)}`, summary, 'write', [404, ...unique, ...BODY_ERRORS], {
      requestBody: { required: true, ...json(ref('schemas', `${one(r)}Update`)) },
      responses: { 200: ok(`the ${r.singular} as updated`, data(r)) },
    });
  }
  const children = childrenOf(r).map((c) => c.child.plural);
  const cascade = children.length ? ` and its ${children.join(', ')}` : '';
  if (r.verbs.delete)
    itemOps.delete = op(r, `delete${one(r)}`, `Delete ${aOr(r.singular)}${cascade}`, 'write', [404, 507], {
      responses: { 204: { description: 'deleted', headers: RATE_HEADERS } },
    });
  paths[`/${r.path}/{uuid}`] = itemOps;
  for (const { child } of childrenOf(r))
    if (child.verbs.create)
      paths[`/${r.path}/{uuid}/${child.path}`] = {
        parameters: [{ ...UUID_PARAM, description: `the uuid of the ${r.singular}` }],
        post: create(child, r, [404]),
      };
  return paths;
}

/**
 * Files (a resource with `files`): uploaded under a parent, as multipart/form-data or as a raw
 * body of the file's own type; read back whole or by range, validated by the ETag (its SHA-256).
 */
function fileOperations(r: ResourceDef): Record<string, Obj> {
  if (!r.files) return {};
  const paths: Record<string, Obj> = {};
  const text = (description: string, max: number): Schema => ({ type: 'string', maxLength: max, description });
  for (const rel of r.parents ?? []) {
    const parent = resourceByPath(rel.target);
    paths[`/${parent.path}/{uuid}/${r.path}`] = {
      parameters: [{ ...UUID_PARAM, description: `the uuid of the ${parent.singular}` }],
      post: op(
        r,
        `upload${one(parent)}${one(r)}`,
        `Upload a file to ${aOr(parent.singular)}`,
        'write',
        [404, 413, 422, 507],
        {
          description:
            "The file is streamed, never held whole; its name is the last part of the name given (control characters removed). A content type that says nothing (application/octet-stream, none) is told by the file's first bytes.",
          parameters: [
            KEY_PARAM,
            query(
              'name',
              "the file name, for a raw body (multipart: the name part, else the file part's filename)",
              text('', 255),
            ),
            query('description', 'what the file is, for a raw body (multipart: the description part)', text('', 65535)),
          ],
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: object(
                  {
                    file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'the file' },
                    name: text("the file name (else the file part's filename)", 255),
                    description: text('what the file is', 65535),
                  },
                  undefined,
                  ['file'],
                ),
              },
              '*/*': {
                schema: {
                  type: 'string',
                  contentMediaType: 'application/octet-stream',
                  description: "the file's bytes, sent as its own content type",
                },
              },
            },
          },
          responses: { 201: ok(`the new ${r.singular}`, data(r), CREATED_HEADERS) },
        },
      ),
    };
  }
  const bytesHeaders = headers('ETag', 'Accept-Ranges', 'Content-Disposition');
  for (const [leaf, how] of [
    ['download', 'as a download (Content-Disposition: attachment)'],
    ['stream', 'to show or play (Content-Disposition: inline)'],
  ] as const)
    paths[`/${r.path}/{uuid}/${leaf}`] = {
      parameters: [UUID_PARAM],
      get: op(r, `${leaf}${one(r)}`, `The bytes of ${aOr(r.singular)}, ${how}`, 'read', [404, 416], {
        parameters: [
          {
            name: 'Range',
            in: 'header',
            required: false,
            schema: { type: 'string' },
            description: 'one byte range: bytes=0-99, bytes=100-, bytes=-100',
          },
          { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
          { name: 'If-Range', in: 'header', required: false, schema: { type: 'string' } },
        ],
        responses: {
          200: {
            description: 'the whole file, as its MIME type',
            headers: { ...RATE_HEADERS, ...bytesHeaders },
            content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
          },
          206: {
            description: 'the range asked for (Content-Range)',
            headers: { ...RATE_HEADERS, ...bytesHeaders, ...headers('Content-Range') },
            content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
          },
          304: {
            description: 'the file is the one the ETag sent names',
            headers: { ...RATE_HEADERS, ...bytesHeaders },
          },
        },
      }),
    };
  return paths;
}

/**
 * Calendar feeds: an account's, made, listed and revoked with a token that has the calendar
 * resource's scopes; each read at its secret URL with no token at all.
 */
function feedOperations(): Record<string, Obj> {
  const r = CALENDAR_RESOURCE;
  const scoped = (id: string, summary: string, scopes: string[], errors: number[], rest: Obj): Obj => {
    const errorRefs = [...AUTHORIZED, ...errors].map((s) => [s, ref('responses', ERRORS[s]!.name)]);
    const responses = { ...(rest.responses as Obj), ...Object.fromEntries(errorRefs) };
    return {
      operationId: id,
      summary,
      tags: ['calendar-feeds'],
      security: [{ bearerAuth: scopes }],
      ...rest,
      responses,
    };
  };
  const [read, write] = [`${r.scope}.read`, `${r.scope}.write`];
  const feedRef = ref('schemas', 'CalendarFeed');
  const errorRefs = [404, 429, 500, 503].map((s) => [s, ref('responses', ERRORS[s]!.name)]);
  const validators = {
    ETag: {
      description: "the feed's validator: it changes when any of its records is created, updated or deleted",
      schema: { type: 'string' },
    },
    'Last-Modified': { description: 'when a record of the feed last changed', schema: { type: 'string' } },
  };
  return {
    [CALENDAR_FEEDS_PATH]: {
      get: scoped('listCalendarFeeds', 'List the calendar feeds of the account, without their URLs', [read], [], {
        responses: { 200: ok('the feeds, oldest first', object({ data: { type: 'array', items: feedRef } })) },
      }),
      post: scoped(
        'createCalendarFeed',
        `Create a calendar feed: a secret URL that publishes the account's ${r.plural} (shown this once)`,
        [read, write],
        BODY_ERRORS,
        {
          requestBody: {
            required: true,
            ...json(
              object({ name: { type: 'string', minLength: 1, maxLength: 255, description: 'what the feed is for' } }),
            ),
          },
          responses: {
            201: ok(
              'the new feed, with its URL',
              object({
                data: object({
                  ...(feedSchema().properties as Obj),
                  url: {
                    type: 'string',
                    format: 'uri',
                    description: `the feed's secret URL (${FEED_PATH}/{secret}.ics): a calendar app subscribes to it; it is shown only this once`,
                  },
                }),
              }),
            ),
          },
        },
      ),
    },
    [`${CALENDAR_FEEDS_PATH}/{uuid}`]: {
      parameters: [{ ...UUID_PARAM, description: 'the uuid of the feed' }],
      delete: scoped('revokeCalendarFeed', 'Revoke a calendar feed: its URL answers 404 at once', [write], [404], {
        responses: { 204: { description: 'revoked', headers: RATE_HEADERS } },
      }),
    },
    [`${FEED_PATH}/{secret}.ics`]: {
      get: {
        operationId: 'readCalendarFeed',
        summary: `The ${r.plural} of a feed that have a due date, as an iCalendar calendar (RFC 5545); no token: the secret is the credential`,
        description:
          "Ours. The calendar is written as it is made, without a Content-Length. A feed ends with the token that made it (404 once that token is revoked). With a rate limit, each feed's reads are counted in a window of the feed's own (429 with Retry-After past it), never in its owner's.",
        tags: ['calendar-feeds'],
        security: [],
        parameters: [
          {
            name: 'secret',
            in: 'path',
            required: true,
            description: "the feed's secret, as its URL has it",
            schema: { type: 'string' },
          },
          { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
          { name: 'If-Modified-Since', in: 'header', required: false, schema: { type: 'string' } },
        ],
        responses: {
          200: {
            description: `the calendar: one event per ${r.singular} that has a due date`,
            headers: { ...RATE_HEADERS, ...validators },
            content: { 'text/calendar': { schema: { type: 'string' } } },
          },
          304: { description: 'nothing changed since the validator sent', headers: { ...RATE_HEADERS, ...validators } },
          ...Object.fromEntries(errorRefs),
        },
      },
    },
  };
}

/** A calendar feed as it is listed: never its URL. */
const feedSchema = (): Schema =>
  object({
    uuid: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
  });

/** HEAD wherever GET is: the same answer without its body. */
function withHead(path: Obj): Obj {
  const get = path.get as Obj | undefined;
  if (!get) return path;
  const responses = Object.fromEntries(
    Object.keys(get.responses as Obj).map((s) => [s, { description: 'as GET, without the body' }]),
  );
  const operationId = `head${pascal(get.operationId as string)}`;
  return { ...path, head: { ...get, operationId, summary: `${get.summary} (headers only)`, responses } };
}

// ------------------------------------------------------------------ the document

/** The request's id, as the X-Request-Id header of the answer says it (pm serve sets both). */
const REQUEST_ID_SCHEMA = {
  type: 'string',
  maxLength: 128,
  description: "the request's id (its X-Request-Id): quote it to whoever runs the server",
};

/** What a document says where the API is when it is not served (docs/openapi.json): pm serve's default address. */
const DEFAULT_SERVER = {
  url: 'http://127.0.0.1:8080',
  description: "pm serve, by default (a server's own /openapi.json names the server it is served from)",
};

/**
 * The document; each caller that needs it again keeps its own (the server keeps its text).
 * `server`: where the API is (the origin a served document is asked at), else pm serve's default.
 */
export function openApiDocument(server: { url: string; description: string } = DEFAULT_SERVER): Obj {
  const paths: Obj = {};
  for (const r of RESOURCES) for (const [p, ops] of Object.entries(operations(r))) paths[p] = withHead(ops);
  for (const r of RESOURCES) for (const [p, ops] of Object.entries(fileOperations(r))) paths[p] = withHead(ops);
  for (const [p, ops] of Object.entries(feedOperations())) paths[p] = withHead(ops);
  const health = (status: string, extra: Obj = {}) => object({ status: { const: status }, ...extra });
  /** An endpoint of the server itself: GET (and HEAD), no token. */
  const meta = (operationId: string, summary: string, responses: Obj) =>
    withHead({ get: { operationId, summary, tags: ['meta'], security: [], responses } });
  const requestId = { request_id: REQUEST_ID_SCHEMA };
  paths[HEALTH_PATH] = meta('getHealth', 'Whether the server can reach its store (for load balancers)', {
    200: { description: 'the store answers', ...json(health('ok', { store: { const: 'ok' } })) },
    503: {
      description: 'the store does not answer, or the server is stopping: try again later (elsewhere)',
      headers: headers('Retry-After'),
      ...json({
        oneOf: [
          health('unavailable', { store: { const: 'unreachable' }, message: { type: 'string' }, ...requestId }),
          health('stopping', { message: { type: 'string' }, ...requestId }),
        ],
      }),
    },
  });
  paths[OPENAPI_PATH] = meta('getOpenApiDocument', 'This document', {
    200: { description: 'the OpenAPI document', ...json({ type: 'object' }) },
  });
  const schemas: Obj = {
    Error: object(
      {
        message: { type: 'string', description: 'one sentence saying what went wrong' },
        errors: {
          type: 'object',
          description: 'the fields at fault (dotted for nested ones: type.code, custom_fields.0.value)',
          additionalProperties: { type: 'array', items: { type: 'string' }, minItems: 1 },
        },
        request_id: REQUEST_ID_SCHEMA,
      },
      undefined,
      ['message'],
    ),
    Pagination: object({
      total: { type: 'integer', minimum: 0 },
      count: { type: 'integer', minimum: 0 },
      per_page: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE },
      current_page: { type: 'integer', minimum: 1 },
      total_pages: { type: 'integer', minimum: 1 },
      links: object(
        { next: { type: 'string', format: 'uri' }, previous: { type: 'string', format: 'uri' } },
        'absolute URLs of the pages before and after, each only when it exists',
        [],
      ),
    }),
    CustomValues: object(
      {
        data: {
          type: 'array',
          items: object({
            uuid: { type: 'string', format: 'uuid', description: "the custom field's uuid" },
            name: { type: 'string' },
            label: { type: 'string' },
            value: { type: 'string' },
          }),
        },
      },
      `with ?embed=${CUSTOM_VALUES_KEY}: the values the record has, in the order the fields were created`,
    ),
    CalendarFeed: feedSchema(),
    CustomValueInput: {
      type: 'object',
      description: `a value of a ${customFields.singular}, named by name or uuid; null clears it`,
      properties: {
        name: { type: 'string' },
        uuid: { type: 'string' },
        value: { type: ['string', 'null'], maxLength: MAX_CUSTOM_VALUE_CHARS },
      },
      oneOf: [{ required: ['name', 'value'] }, { required: ['uuid', 'value'] }],
      additionalProperties: false,
    },
  };
  for (const r of RESOURCES) {
    schemas[one(r)] = recordSchema(r);
    if (r.verbs.create) schemas[`${one(r)}Create`] = bodySchema(r, 'create');
    if (r.verbs.update) schemas[`${one(r)}Update`] = bodySchema(r, 'update');
    if (r.verbs.list)
      schemas[`${many(r)}Page`] = object({
        data: { type: 'array', items: ref('schemas', one(r)) },
        meta: object({ pagination: ref('schemas', 'Pagination') }),
      });
  }
  const responses = Object.fromEntries(
    Object.values(ERRORS).map((e) => [
      e.name,
      {
        description: e.description,
        ...(e.headers ? { headers: e.headers } : {}),
        ...json(ref('schemas', 'Error'), e.example),
      },
    ]),
  );
  const header = (description: string, schema: Schema = { type: 'integer' }) => ({ description, schema });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Property Management Service API (pm serve)',
      version: API_VERSION,
      description: `${RESOURCE_WORDS.charAt(0).toUpperCase()}${RESOURCE_WORDS.slice(1)} of an account. Lists are oldest first, paged with page and per_page. Every error answers {"message"} (and "errors" by field on 409 and 422). Any method a path does not list is 405 (MethodNotAllowed, with Allow); any other path is 404 (NotFound). HEAD is answered wherever GET is.`,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [server],
    security: [{ bearerAuth: [] }],
    tags: [
      ...RESOURCES.map((r) => ({ name: r.path, description: `${r.plural}: scopes ${r.scope}.read, ${r.scope}.write` })),
      {
        name: 'calendar-feeds',
        description: `secret URLs that calendar apps subscribe to: made with ${CALENDAR_RESOURCE.scope}.read and ${CALENDAR_RESOURCE.scope}.write, read with no token`,
      },
      { name: 'meta', description: 'about the server itself; no token needed' },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: `A personal access token of a user of one account (pm_...). Scopes: ${RESOURCES.map((r) => `${r.scope}.read, ${r.scope}.write`).join(', ')}. Filters on related records, embeds and linking by email also need the related resource's read scope.`,
        },
      },
      schemas,
      responses,
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            "Ours (an extension of the API). A key of the client's choosing for this create (a uuid, or one derived from what the record is): kept with its answer for at least 24 hours, per account, in the server's database. The same key with the same request (path and body; for an upload, its parent, name, description and bytes) gets the first answer again, with Idempotent-Replayed: true, and creates nothing; with another request, 422 naming the header; while the first request is still being written, the second waits for it (or is a 409 with Retry-After). A create that fails keeps no key.",
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
        },
      },
      headers: {
        'Idempotent-Replayed': header(
          'ours: true on the first answer given again for an Idempotency-Key (nothing was created this time)',
          { type: 'string', enum: ['true'] },
        ),
        'X-RateLimit-Limit': header('requests allowed per window (when the server has a rate limit)'),
        'X-RateLimit-Remaining': header('requests left in this window'),
        'X-RateLimit-Reset': header('when the window ends, in epoch seconds'),
        'Retry-After': header('seconds to wait before trying again'),
        Location: header('the absolute URL of the new record', { type: 'string', format: 'uri' }),
        'WWW-Authenticate': header('the challenge: Bearer realm="pm"', { type: 'string' }),
        Allow: header('the methods the path takes', { type: 'string' }),
        ETag: header("a file's SHA-256 in hex, quoted: send it as If-None-Match", { type: 'string' }),
        'Accept-Ranges': header('bytes: a file is read by range too', { type: 'string' }),
        'Content-Disposition': header(
          "attachment or inline, with the file's name (filename, and filename* in UTF-8: RFC 6266)",
          { type: 'string' },
        ),
        'Content-Range': header('the bytes an answer holds of the file (bytes 0-99/2048), or its size (bytes */2048)', {
          type: 'string',
        }),
      },
    },
  };
}
