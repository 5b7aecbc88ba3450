/**
 * What one attempt of a request comes to, decided without I/O: try again (after how long, and
 * whether the server may have done it already), hand back an answer, or fail with which error.
 * The HTTP client (http.ts) makes the attempts, waits and writes the trace; every outcome of an
 * attempt is told apart here, and test/client/outcome.test.ts holds them as a table.
 *
 * The policy is docs/faults.md's: a request that failed in transit is sent again when that is
 * worth it and safe (a method that may be repeated, or one that certainly never reached the
 * server); an answer of 429, 502, 503 or 504 likewise (a POST only after a 429), after the
 * Retry-After the server asks for unless it is longer than pm waits; a DELETE whose earlier
 * attempt may have been done counts a 404 as deleted. A POST that carries an idempotency key the
 * server is known to keep (`keyed`) is retried as a PUT is: sent again, it gets the first answer,
 * and makes nothing twice; a 409 with a Retry-After (its key's first request still running) is
 * waited for.
 */
import { HttpStatusError, NetworkError, ProtocolError, type ResponseLike } from './errors.js';
import { readErrorBody } from './error-body.js';
import { parseRetryAfter } from './pacer.js';
import { classify, IDEMPOTENT, RETRY_STATUSES } from './retry.js';

/**
 * The deepest JSON pm takes from a server. JSON.parse reads any depth, but what uses the answer
 * (printing, jq, error messages) walks it by recursion, and 10 MB of `[` would overflow the stack.
 */
export const MAX_JSON_DEPTH = 512;

export interface HttpResponse extends ResponseLike {
  /**
   * Set (with `tolerateBody`) when a 2xx answer's body could not be used: cut off, or not JSON.
   * The request was done; the caller finds out what came of it another way (the Location).
   */
  readonly problem?: string;
}

/** One attempt's answer, as read off the wire. */
export interface Raw extends Pick<HttpResponse, 'status' | 'headers' | 'text'> {
  /** The body stopped early with this error. */
  readonly cut: unknown;
  /** The answer was larger than the client reads (what was read of it is dropped). */
  readonly tooLarge: boolean;
  readonly ms: number;
}

/** Where the request stands when an attempt ends. */
export interface Attempt {
  readonly method: string;
  readonly url: URL;
  /** This attempt's number (1 for the first) and the most the client makes. */
  readonly attempt: number;
  readonly max: number;
  /** An earlier attempt may have been done by the server. */
  readonly uncertain: boolean;
  /** A 2xx whose body is unusable is answered with `problem` set instead of failing. */
  readonly tolerateBody: boolean;
  /** A Retry-After longer than this (ms) is not waited for. */
  readonly maxRetryAfterMs: number;
  /**
   * The request carries an idempotency key, and the server keeps them: sending it again is safe.
   * Undefined or false: a POST is sent again only when it certainly never reached the server.
   */
  readonly keyed?: boolean;
  /** The size limit of an answer, for the message of one larger. */
  readonly maxBytes: number;
  /** The clock's time (ms), to read a Retry-After given as a date. */
  readonly now: number;
}

/** How the attempt ended: the request threw (nothing usable came back), or an answer came. */
export type Outcome = { readonly threw: unknown } | { readonly raw: Raw };

/** What to do next; `notes` are lines for the trace, in order. */
export type Step = { readonly notes: readonly string[] } & (
  | {
      readonly kind: 'retry';
      /** Said in the trace: "after 503, as Retry-After asks". */
      readonly why: string;
      /** The wait the server asked for (ms); undefined: the client's backoff. */
      readonly waitMs: number | undefined;
      /** Whether the request may have been done by now (this attempt or an earlier one). */
      readonly uncertain: boolean;
    }
  | { readonly kind: 'answer'; readonly response: HttpResponse }
  | { readonly kind: 'fail'; readonly error: Error }
);

/** Decides what an attempt's outcome comes to. Pure: same attempt and outcome, same step. */
export function decide(a: Attempt, outcome: Outcome): Step {
  return 'raw' in outcome ? decideAnswer(a, outcome.raw) : decideThrown(a, outcome.threw);
}

const counted = <E extends Error>(error: E, attempts: number): E => Object.assign(error, { attempts });

/** The request threw: retried when that is worth it and safe, else a NetworkError. */
function decideThrown(a: Attempt, e: unknown): Step {
  const { method, url, attempt } = a;
  const last = attempt >= a.max;
  const idempotent = IDEMPOTENT.has(method) || a.keyed === true;
  const f = classify(e);
  const notes = [`${method} ${url.pathname}: ${f.reason}${f.code ? ` (${f.code})` : ''}`];
  if (!last && f.transient && (idempotent || f.sent === 'no'))
    return { kind: 'retry', why: f.reason, waitMs: undefined, uncertain: a.uncertain || f.sent !== 'no', notes };
  if (!last && f.transient)
    notes.push(`not retried: the ${method} may have reached the server, and pm never sends one twice`);
  const tries = attempt > 1 ? ` (${attempt} attempts)` : '';
  const message = `${f.sent === 'no' ? 'could not reach' : 'no answer from'} ${url.origin}: ${f.reason}${tries}`;
  return { kind: 'fail', error: counted(new NetworkError(message, f.code, method, f.sent, f.reason), attempt), notes };
}

/** An answer came: its status, and whether its body can be used. */
function decideAnswer(a: Attempt, raw: Raw): Step {
  const { method, url, attempt } = a;
  const last = attempt >= a.max;
  const idempotent = IDEMPOTENT.has(method) || a.keyed === true;
  const { status, headers } = raw;
  const where = url.toString();
  const notes: string[] = [];

  if (raw.cut && status < 400) {
    const f = classify(raw.cut);
    if (idempotent && !last && f.transient)
      return { kind: 'retry', why: `answer ${status} ${f.reason}`, waitMs: undefined, uncertain: true, notes };
    const problem = `its answer was cut off (${f.reason})`;
    if (a.tolerateBody && status >= 200 && status < 300)
      return { kind: 'answer', response: { status, headers, body: undefined, text: '', url: where, problem }, notes };
    const reason = `the answer was cut off (${f.reason})`;
    const err = new NetworkError(`${url.origin} answered ${status}, but ${problem}`, f.code, method, 'yes', reason);
    return { kind: 'fail', error: counted(err, attempt), notes };
  }

  // An answer too large is not parsed: what was read of it is already dropped.
  const parsed = raw.tooLarge ? undefined : parseJson(raw.text, headers['content-type'] ?? '');
  const tooDeep = parsed === TOO_DEEP;
  const body = tooDeep ? undefined : parsed;
  const response: HttpResponse = { status, headers, body, text: raw.text, url: where };
  if (status >= 400) {
    if (RETRY_STATUSES.has(status) && !last && (idempotent || status === 429)) {
      const after = parseRetryAfter(headers['retry-after'], a.now);
      if (after !== undefined && after > a.maxRetryAfterMs) {
        notes.push(`not retried: the server asks to wait ${Math.round(after / 1000)}s, longer than pm waits`);
      } else {
        const why = `${status}${after !== undefined ? ', as Retry-After asks' : ''}`;
        const uncertain = a.uncertain || status === 502 || status === 504;
        return { kind: 'retry', why, waitMs: after, uncertain, notes };
      }
    }
    if (status === 409 && a.keyed && !last && headers['retry-after'] !== undefined) {
      // The first request with this key is still being written: its answer will be there.
      const after = parseRetryAfter(headers['retry-after'], a.now);
      if (after === undefined || after <= a.maxRetryAfterMs)
        return { kind: 'retry', why: '409, its key still in use', waitMs: after, uncertain: true, notes };
    }
    if (method === 'DELETE' && status === 404 && a.uncertain) {
      // The attempt that got no answer deleted it.
      notes.push('404 after a DELETE that may have been done: counted as deleted');
      return { kind: 'answer', response: { status: 204, headers, body: undefined, text: '', url: where }, notes };
    }
    const said = readErrorBody(status, body, raw.text, excerpt);
    return {
      kind: 'fail',
      error: counted(new HttpStatusError(status, said.message, response, said.fields), attempt),
      notes,
    };
  }
  if (status >= 300 && status < 400) {
    // Never followed: a redirect would carry the token to another place, and a write sent
    // again there (or not at all) is not what was asked. Nothing was done: say where it points.
    const location = headers.location;
    const said = `the server answered ${status}, a redirect${location ? ` to ${location}` : ''}; pm does not follow redirects, so nothing was done (check the base URL)`;
    return { kind: 'fail', error: counted(new HttpStatusError(status, said, response), attempt), notes };
  }
  if (raw.tooLarge) {
    const mib = a.maxBytes / 1048576;
    const problem = `its answer is larger than ${mib >= 1 ? `${Math.round(mib)} MiB` : `${a.maxBytes} bytes`}`;
    if (a.tolerateBody) return { kind: 'answer', response: { ...response, body: undefined, text: '', problem }, notes };
    return { kind: 'fail', error: new ProtocolError(`the server answered ${status}, but ${problem}`), notes };
  }
  if (tooDeep) {
    const problem = `its answer is JSON nested more than ${MAX_JSON_DEPTH} levels deep, deeper than pm reads`;
    if (a.tolerateBody) return { kind: 'answer', response: { ...response, text: '', problem }, notes };
    return { kind: 'fail', error: new ProtocolError(`the server answered ${status}, but ${problem}`), notes };
  }
  if (raw.text.trim() !== '' && body === undefined && status !== 204) {
    const bit = excerpt(raw.text);
    const problem = `its answer is not JSON${bit ? `: ${bit}` : ''}`;
    if (a.tolerateBody && status >= 200 && status < 300)
      return { kind: 'answer', response: { ...response, problem }, notes };
    const said = `the server answered ${status} with a body that is not JSON${bit ? `: ${bit}` : ''}`;
    return { kind: 'fail', error: new ProtocolError(said), notes };
  }
  return { kind: 'answer', response, notes };
}

/** The header a create's idempotency key goes in, and the one a server's replayed answer carries. */
export const KEY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';

/** Whether an OpenAPI document says the server takes an Idempotency-Key on some POST. */
export function describesKeys(doc: unknown): boolean {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
  if (!isObj(doc) || !isObj(doc.paths)) return false;
  const components = isObj(doc.components) && isObj(doc.components.parameters) ? doc.components.parameters : {};
  const named = (p: unknown): unknown => {
    const ref =
      isObj(p) && typeof p.$ref === 'string' ? /^#\/components\/parameters\/(.+)$/.exec(p.$ref)?.[1] : undefined;
    return ref === undefined ? p : components[ref];
  };
  return Object.values(doc.paths).some((item) => {
    const post = isObj(item) ? item.post : undefined;
    const params = isObj(post) && Array.isArray(post.parameters) ? post.parameters : [];
    return params.map(named).some((p) => isObj(p) && p.in === 'header' && String(p.name).toLowerCase() === KEY_HEADER);
  });
}

export function excerpt(text: string): string {
  const plain = text
    .replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length > 160 ? `${plain.slice(0, 157)}...` : plain;
}

/**
 * Whether JSON text nests arrays and objects more than `max` deep, by one pass over it (no
 * recursion, brackets in strings not counted). Text shorter than `max` cannot.
 */
export function nestedDeeperThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Set instead of a body: JSON nested deeper than MAX_JSON_DEPTH. */
const TOO_DEEP: unique symbol = Symbol('too deep');

function parseJson(text: string, type: string): unknown {
  if (text.trim() === '' || !(type.includes('json') || /^\s*[[{]/.test(text))) return undefined;
  if (nestedDeeperThan(text, MAX_JSON_DEPTH)) return TOO_DEEP;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
