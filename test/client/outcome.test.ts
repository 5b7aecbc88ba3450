/**
 * What one attempt of a request comes to, as a table: each outcome (a network error, a body cut
 * off, an error status, a redirect, an answer too large, too deep or not JSON, a good answer) by
 * method, attempt and what came before, and the step the client takes: retry (after how long,
 * whether the request may have been done), answer, or fail with which error. No sockets, no clock.
 */
import { describe, expect, it } from 'vitest';
import { HttpStatusError, NetworkError } from '../../src/client/errors.js';
import { type Attempt, decide, describesKeys, MAX_JSON_DEPTH, type Raw, type Step } from '../../src/client/outcome.js';
import { BEFORE_REQUEST } from '../../src/client/retry.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const URL_ = new URL('http://127.0.0.1:4000/properties/abc?page=2');

function attempt(over: Partial<Attempt> = {}): Attempt {
  return {
    method: 'GET',
    url: URL_,
    attempt: 1,
    max: 4,
    uncertain: false,
    tolerateBody: false,
    maxRetryAfterMs: 120_000,
    maxBytes: 64 * 1024 * 1024,
    now: NOW,
    ...over,
  };
}

const json = { 'content-type': 'application/json' };
function raw(status: number, body: unknown = undefined, over: Partial<Raw> = {}): Raw {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  return { status, headers: json, text, cut: undefined, tooLarge: false, ms: 3, ...over };
}
const netErr = (code: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(code), { code, ...extra });

/** The step, with its error reduced to what a caller reads of it. */
function summary(step: Step): Record<string, unknown> {
  if (step.kind === 'retry')
    return { kind: 'retry', why: step.why, waitMs: step.waitMs, uncertain: step.uncertain, notes: step.notes };
  if (step.kind === 'answer') return { kind: 'answer', response: step.response, notes: step.notes };
  const e = step.error as Error & { attempts?: number; status?: number; requestSent?: string; code?: string };
  return {
    kind: 'fail',
    type: e.constructor.name,
    message: e.message,
    attempts: e.attempts,
    ...(e instanceof HttpStatusError ? { status: e.status } : {}),
    ...(e instanceof NetworkError ? { sent: e.requestSent, code: e.code } : {}),
    notes: step.notes,
  };
}

describe('a request that threw', () => {
  it.each<[string, Partial<Attempt>, unknown, Record<string, unknown>]>([
    [
      'a refused GET is retried with backoff; it never reached the server',
      {},
      netErr('ECONNREFUSED'),
      {
        kind: 'retry',
        why: 'connection refused',
        waitMs: undefined,
        uncertain: false,
        notes: ['GET /properties/abc: connection refused (ECONNREFUSED)'],
      },
    ],
    [
      'a refused POST is retried too: it certainly was not sent',
      { method: 'POST' },
      netErr('ECONNREFUSED'),
      { kind: 'retry', why: 'connection refused', uncertain: false },
    ],
    [
      'a reset GET is retried, and may have been done',
      {},
      netErr('ECONNRESET'),
      { kind: 'retry', why: 'the connection was reset', uncertain: true },
    ],
    [
      'a refusal after an uncertain attempt keeps the request uncertain',
      { uncertain: true, attempt: 2 },
      netErr('ECONNREFUSED'),
      { kind: 'retry', uncertain: true },
    ],
    [
      'a reset POST is not sent twice',
      { method: 'POST' },
      netErr('ECONNRESET'),
      {
        kind: 'fail',
        type: 'NetworkError',
        message: 'no answer from http://127.0.0.1:4000: the connection was reset',
        attempts: 1,
        sent: 'maybe',
        code: 'ECONNRESET',
        notes: [
          'POST /properties/abc: the connection was reset (ECONNRESET)',
          'not retried: the POST may have reached the server, and pm never sends one twice',
        ],
      },
    ],
    [
      'a reset POST with a key the server keeps is sent again: it gets the first answer',
      { method: 'POST', keyed: true },
      netErr('ECONNRESET'),
      { kind: 'retry', why: 'the connection was reset', uncertain: true },
    ],
    [
      'a reset POST with a key the server does not keep is not sent twice',
      { method: 'POST', keyed: false },
      netErr('ECONNRESET'),
      { kind: 'fail', type: 'NetworkError', sent: 'maybe' },
    ],
    [
      'a POST reset while connecting was never sent: retried',
      { method: 'POST' },
      netErr('ECONNRESET', { [BEFORE_REQUEST]: true }),
      { kind: 'retry', why: 'the connection was reset while connecting', uncertain: false },
    ],
    [
      'the last attempt fails, counting the attempts',
      { attempt: 4 },
      netErr('ECONNREFUSED'),
      {
        kind: 'fail',
        type: 'NetworkError',
        message: 'could not reach http://127.0.0.1:4000: connection refused (4 attempts)',
        attempts: 4,
        sent: 'no',
        notes: ['GET /properties/abc: connection refused (ECONNREFUSED)'],
      },
    ],
    [
      'an unknown host is not worth retrying',
      {},
      netErr('ENOTFOUND'),
      { kind: 'fail', message: 'could not reach http://127.0.0.1:4000: host not found', attempts: 1, sent: 'no' },
    ],
    [
      'an untrusted certificate is not worth retrying',
      {},
      netErr('SELF_SIGNED_CERT_IN_CHAIN'),
      {
        kind: 'fail',
        message:
          "could not reach http://127.0.0.1:4000: the server's certificate is not trusted (SELF_SIGNED_CERT_IN_CHAIN)",
      },
    ],
  ])('%s', (_, over, error, expected) => {
    expect(summary(decide(attempt(over), { threw: error }))).toMatchObject(expected);
  });
});

describe('an answer that stopped early', () => {
  const cut = { cut: netErr('UND_ERR_BODY_TIMEOUT') };
  it.each<[string, Partial<Attempt>, Raw, Record<string, unknown>]>([
    [
      'a GET is retried, and counts as maybe done',
      {},
      raw(200, '{"data":[', cut),
      { kind: 'retry', why: 'answer 200 timed out reading the answer', waitMs: undefined, uncertain: true },
    ],
    [
      'on the last attempt, a GET fails: the server answered',
      { attempt: 4 },
      raw(200, '{"data":[', cut),
      {
        kind: 'fail',
        type: 'NetworkError',
        message: 'http://127.0.0.1:4000 answered 200, but its answer was cut off (timed out reading the answer)',
        attempts: 4,
        sent: 'yes',
      },
    ],
    [
      'a POST is never sent again',
      { method: 'POST' },
      raw(201, '{"data":', cut),
      { kind: 'fail', type: 'NetworkError', sent: 'yes', attempts: 1 },
    ],
    [
      'a POST with a key the server keeps is sent again for its whole answer',
      { method: 'POST', keyed: true, tolerateBody: true },
      raw(201, '{"data":', cut),
      { kind: 'retry', uncertain: true },
    ],
    [
      'a POST that tolerates its body gets the answer with the problem',
      { method: 'POST', tolerateBody: true },
      raw(201, '{"data":', cut),
      {
        kind: 'answer',
        response: {
          status: 201,
          body: undefined,
          text: '',
          url: URL_.toString(),
          problem: 'its answer was cut off (timed out reading the answer)',
        },
      },
    ],
  ])('%s', (_, over, r, expected) => {
    expect(summary(decide(attempt(over), { raw: r }))).toMatchObject(expected);
  });

  it('a cut-off error status is read as the error it is', () => {
    const step = decide(attempt(), { raw: raw(404, { message: 'Not found.' }, cut) });
    expect(summary(step)).toMatchObject({ kind: 'fail', type: 'HttpStatusError', status: 404, message: 'Not found.' });
  });
});

describe('an error status', () => {
  it.each<[string, Partial<Attempt>, Raw, Record<string, unknown>]>([
    ['a 503 to a GET is retried with backoff', {}, raw(503), { kind: 'retry', why: '503', waitMs: undefined }],
    [
      'a 429 waits what Retry-After asks (seconds)',
      { method: 'POST' },
      raw(429, undefined, { headers: { 'retry-after': '7' } }),
      { kind: 'retry', why: '429, as Retry-After asks', waitMs: 7000, uncertain: false },
    ],
    [
      'a Retry-After as a date is read by the clock given',
      {},
      raw(503, undefined, { headers: { 'retry-after': new Date(NOW + 30_000).toUTCString() } }),
      { kind: 'retry', waitMs: 30_000 },
    ],
    [
      'a 502 may have been done by the server behind the proxy',
      {},
      raw(502),
      { kind: 'retry', why: '502', uncertain: true },
    ],
    ['a 504 likewise', { method: 'PUT' }, raw(504), { kind: 'retry', uncertain: true }],
    ['a 503 leaves the request as certain as it was', {}, raw(503), { kind: 'retry', uncertain: false }],
    [
      'a 503 to a POST is not retried',
      { method: 'POST' },
      raw(503, { message: 'Down for maintenance.' }),
      { kind: 'fail', type: 'HttpStatusError', status: 503, message: 'Down for maintenance.', attempts: 1, notes: [] },
    ],
    [
      'a 503 to a POST with a key the server keeps is retried',
      { method: 'POST', keyed: true },
      raw(503, { message: 'Down for maintenance.' }),
      { kind: 'retry', why: '503', uncertain: false },
    ],
    [
      "a 409 with Retry-After to a keyed POST: its key's first request still runs, waited for",
      { method: 'POST', keyed: true },
      raw(409, { message: 'still being processed' }, { headers: { 'retry-after': '1' } }),
      { kind: 'retry', why: '409, its key still in use', waitMs: 1000, uncertain: true },
    ],
    [
      'a 409 without Retry-After (a name clash) is a 409, keyed or not',
      { method: 'POST', keyed: true },
      raw(409, { message: 'The name has already been taken.' }),
      { kind: 'fail', status: 409, message: 'The name has already been taken.' },
    ],
    [
      'a Retry-After longer than pm waits is not waited for',
      {},
      raw(503, undefined, { headers: { 'retry-after': '600' } }),
      {
        kind: 'fail',
        type: 'HttpStatusError',
        status: 503,
        message: 'the server answered 503 with no message',
        notes: ['not retried: the server asks to wait 600s, longer than pm waits'],
      },
    ],
    [
      'the last attempt reports the status',
      { attempt: 4 },
      raw(429, { message: 'Too Many Attempts.' }),
      { kind: 'fail', status: 429, message: 'Too Many Attempts.', attempts: 4 },
    ],
    ['a 500 is never retried', {}, raw(500), { kind: 'fail', status: 500 }],
    [
      'a 422 keeps the field errors',
      { method: 'POST' },
      raw(422, { message: 'The name field is required.', errors: { name: ['The name field is required.'] } }),
      { kind: 'fail', status: 422, message: 'The name field is required.' },
    ],
    [
      'a 404 to a DELETE that may have been done counts as deleted',
      { method: 'DELETE', attempt: 2, uncertain: true },
      raw(404, { message: 'Not found.' }),
      {
        kind: 'answer',
        response: { status: 204, body: undefined, text: '', url: URL_.toString() },
        notes: ['404 after a DELETE that may have been done: counted as deleted'],
      },
    ],
    [
      'a 404 to a DELETE that was certainly not done before is a 404',
      { method: 'DELETE', attempt: 2 },
      raw(404, { message: 'Not found.' }),
      { kind: 'fail', status: 404, attempts: 2 },
    ],
  ])('%s', (_, over, r, expected) => {
    expect(summary(decide(attempt(over), { raw: r }))).toMatchObject(expected);
  });

  it('the error carries the answer and its field errors', () => {
    const step = decide(attempt({ method: 'POST' }), {
      raw: raw(422, { message: 'Bad.', errors: { name: ['The name field is required.'] } }),
    });
    if (step.kind !== 'fail' || !(step.error instanceof HttpStatusError))
      throw new Error(`not a status error: ${step.kind}`);
    expect(step.error.fieldErrors).toEqual({ name: ['The name field is required.'] });
    expect(step.error.response.body).toEqual({ message: 'Bad.', errors: { name: ['The name field is required.'] } });
  });
});

describe('an answer that is not an error', () => {
  const big = 1024;
  it.each<[string, Partial<Attempt>, Raw, Record<string, unknown>]>([
    [
      'a redirect is never followed',
      {},
      raw(301, undefined, { headers: { location: 'https://elsewhere.example/' } }),
      {
        kind: 'fail',
        type: 'HttpStatusError',
        status: 301,
        message:
          'the server answered 301, a redirect to https://elsewhere.example/; pm does not follow redirects, so nothing was done (check the base URL)',
      },
    ],
    [
      'an answer too large fails',
      { maxBytes: big },
      raw(200, '', { tooLarge: true }),
      {
        kind: 'fail',
        type: 'ProtocolError',
        message: 'the server answered 200, but its answer is larger than 1024 bytes',
      },
    ],
    [
      'an answer too large, in MiB',
      {},
      raw(200, '', { tooLarge: true }),
      { kind: 'fail', type: 'ProtocolError', message: 'the server answered 200, but its answer is larger than 64 MiB' },
    ],
    [
      'an answer too large, tolerated',
      { tolerateBody: true, maxBytes: big },
      raw(201, '', { tooLarge: true }),
      { kind: 'answer', response: { status: 201, body: undefined, problem: 'its answer is larger than 1024 bytes' } },
    ],
    [
      'JSON nested too deep fails',
      {},
      raw(200, `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`),
      {
        kind: 'fail',
        type: 'ProtocolError',
        message: `the server answered 200, but its answer is JSON nested more than ${MAX_JSON_DEPTH} levels deep, deeper than pm reads`,
      },
    ],
    [
      'an HTML page where JSON was expected fails, quoting the page',
      {},
      raw(200, '<html><body><h1>Welcome</h1><p>Log in&nbsp;first</p></body></html>', {
        headers: { 'content-type': 'text/html' },
      }),
      {
        kind: 'fail',
        type: 'ProtocolError',
        message: 'the server answered 200 with a body that is not JSON: Welcome Log in first',
      },
    ],
    [
      'a body not JSON, tolerated on a 2xx',
      { tolerateBody: true },
      raw(201, 'created', { headers: {} }),
      { kind: 'answer', response: { status: 201, text: 'created', problem: 'its answer is not JSON: created' } },
    ],
    [
      'a 204 may say anything',
      {},
      raw(204, 'ok', { headers: {} }),
      { kind: 'answer', response: { status: 204, body: undefined, text: 'ok' } },
    ],
    [
      'a good answer is parsed',
      {},
      raw(200, { data: { uuid: 'abc' } }),
      { kind: 'answer', response: { status: 200, body: { data: { uuid: 'abc' } }, url: URL_.toString() }, notes: [] },
    ],
    ['an empty answer has no body', {}, raw(200, ''), { kind: 'answer', response: { status: 200, body: undefined } }],
  ])('%s', (_, over, r, expected) => {
    expect(summary(decide(attempt(over), { raw: r }))).toMatchObject(expected);
  });

  it('the same attempt and outcome always come to the same step', () => {
    const a = attempt({ method: 'DELETE', attempt: 2, uncertain: true });
    const r = raw(404, { message: 'Not found.' });
    expect(decide(a, { raw: r })).toEqual(decide(a, { raw: r }));
    expect(summary(decide(a, { threw: netErr('ECONNRESET') }))).toEqual(
      summary(decide(a, { threw: netErr('ECONNRESET') })),
    );
  });
});

describe('whether a server keeps idempotency keys, by its OpenAPI document', () => {
  const header = { name: 'Idempotency-Key', in: 'header', schema: { type: 'string' } };
  it.each<[string, unknown, boolean]>([
    ['a POST that takes the header', { paths: { '/a': { post: { parameters: [header] } } } }, true],
    [
      'by reference to a component',
      {
        paths: { '/a': { post: { parameters: [{ $ref: '#/components/parameters/Key' }] } } },
        components: { parameters: { Key: header } },
      },
      true,
    ],
    ['a GET that takes it says nothing of creates', { paths: { '/a': { get: { parameters: [header] } } } }, false],
    [
      'a query parameter of the name is not the header',
      { paths: { '/a': { post: { parameters: [{ ...header, in: 'query' }] } } } },
      false,
    ],
    ['no document (an HTML page, nothing)', '<html>', false],
  ])('%s', (_, doc, expected) => {
    expect(describesKeys(doc)).toBe(expected);
  });
});
