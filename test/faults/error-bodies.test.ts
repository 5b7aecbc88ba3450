/**
 * Errors from servers that are not `pm serve`: RFC 9457 problem details, JSON:API, `{"error"}`
 * and JSON of no known shape, answered by a foreign server in front of the real one. pm prints
 * the message, then one line per field it names, with the usual exit codes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readErrorBody } from '../../src/client/error-body.js';
import { pmAgainstServer } from '../helpers/cli.js';
import { type FaultyServer, startFaultyServer } from '../helpers/faulty-server.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let foreign: FaultyServer;
let acct: Account;

const pm = pmAgainstServer(() => ({ url: foreign.url, token: acct.token }), { env: { PM_RETRY_BASE_MS: '10' } });

beforeAll(async () => {
  server = await startTestServer();
  foreign = await startFaultyServer({ upstream: server.url });
  acct = await server.newAccount();
});
afterAll(async () => {
  await foreign.close();
  await server.close();
});
afterEach(() => foreign.reset());

const problem = (status: number, body: unknown) => ({
  kind: 'respond' as const,
  status,
  headers: { 'content-type': 'application/problem+json' },
  body: JSON.stringify(body),
});

describe('through the CLI', () => {
  it('a problem+json 422 with invalid-params: the detail, then one line per field; exit 1', async () => {
    foreign.script(
      'POST',
      problem(422, {
        type: 'https://example.net/validation-error',
        title: 'Your request is not valid.',
        status: 422,
        detail: 'Your request is not valid and no HTTP validation was done beyond this.',
        'invalid-params': [
          { name: 'postcode', reason: 'must be a UK postcode' },
          { name: 'bedrooms', reason: 'must be at most 1000' },
        ],
      }),
    );
    const r = await pm(['properties', 'create', '--address', '1 High St', '--postcode', 'LS1 1AA']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: Your request is not valid and no HTTP validation was done beyond this.\n' +
        '  postcode: must be a UK postcode\n' +
        '  bedrooms: must be at most 1000\n',
    );
  });

  it('with --json, the fields are in the error object', async () => {
    foreign.script('POST', problem(422, { title: 'Invalid', errors: [{ detail: 'is required', pointer: '#/title' }] }));
    const r = await pm(['reminders', 'create', '--title', 'x', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stderr).error).toMatchObject({
      message: 'Invalid',
      status: 422,
      errors: { title: ['is required'] },
    });
  });

  it('a problem+json 404 is still "not found" (exit 3), with its detail', async () => {
    foreign.script('GET', problem(404, { title: 'Not Found', detail: 'No such property in this workspace.' }));
    const r = await pm(['properties', 'get', '3f2a9c1e-5b7d-4c1a-9e0f-2b6d8a4c7e15']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('No such property in this workspace.');
  });

  it('a short JSON error of no known shape is shown whole; a long one cut, pointing at --debug', async () => {
    foreign.script('GET', { kind: 'respond', status: 400, body: '{"code":"E_FILTER","hint":"bad city"}' });
    let r = await pm(['properties', 'list', '--city', 'leeds']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: the server answered 400: {"code":"E_FILTER","hint":"bad city"}');
    foreign.script('GET', {
      kind: 'respond',
      status: 400,
      body: JSON.stringify({ code: 'E', trace: 'x'.repeat(900) }),
    });
    r = await pm(['properties', 'list', '--city', 'leeds']);
    expect(r.stderr).toMatch(/the server answered 400: \{"code":"E","trace":"x+\.\.\. \(--debug shows the answer\)/);
    expect(r.stderr.length).toBeLessThan(500);
  });
});

describe('the shapes read', () => {
  const read = (body: unknown) => readErrorBody(422, body, JSON.stringify(body), (s) => s);

  it("Laravel's, as pm serve answers", () => {
    expect(
      read({ message: 'The title field is required.', errors: { title: ['The title field is required.'] } }),
    ).toEqual({
      message: 'The title field is required.',
      fields: { title: ['The title field is required.'] },
    });
  });

  it('RFC 9457 with errors [{detail, pointer}] (JSON pointers become dotted fields)', () => {
    expect(
      read({
        title: 'Validation failed',
        errors: [
          { detail: 'must be a string', pointer: '#/custom_fields/0/value' },
          { detail: 'is required', pointer: '/address' },
        ],
      }),
    ).toEqual({
      message: 'Validation failed',
      fields: { 'custom_fields.0.value': ['must be a string'], address: ['is required'] },
    });
  });

  it('JSON:API errors with source.pointer under /data/attributes', () => {
    expect(
      read({
        errors: [
          {
            status: '422',
            title: 'Invalid Attribute',
            detail: 'is too short',
            source: { pointer: '/data/attributes/name' },
          },
        ],
      }),
    ).toEqual({ message: 'is too short', fields: { name: ['is too short'] } });
  });

  it('validation and violations lists, loc paths, and {"error": ...}', () => {
    expect(read({ detail: 'Bad', validation: [{ field: 'email', message: 'not an email' }] }).fields).toEqual({
      email: ['not an email'],
    });
    expect(read({ title: 'Bad', violations: [{ propertyPath: 'city', title: 'too long' }] }).fields).toEqual({
      city: ['too long'],
    });
    expect(read({ detail: [{ loc: ['body', 'postcode'], msg: 'field required' }] })).toEqual({
      message: 'field required',
      fields: { postcode: ['field required'] },
    });
    expect(read({ error: 'invalid_token' })).toEqual({ message: 'invalid_token' });
    expect(read({ error: { code: 7, message: 'Quota exceeded' } })).toEqual({ message: 'Quota exceeded' });
  });

  it('text that is not JSON: an excerpt', () => {
    expect(readErrorBody(502, undefined, 'Bad Gateway', (s) => s)).toEqual({
      message: 'the server answered 502: Bad Gateway',
    });
    expect(readErrorBody(502, undefined, '', (s) => s)).toEqual({ message: 'the server answered 502 with no message' });
  });
});
