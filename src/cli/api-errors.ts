/**
 * The one mapping of what a command lets through (the API client's errors, an abort, anything
 * else) to a CliError and its exit code, as `pm help exit-codes` promises. run.ts applies it to
 * every error that reaches it; a run function calls it only where it decides on the code (a
 * delete that ignores "not found", a list cut short by Ctrl-C).
 */
import { HttpStatusError, InsecureTransportError, NetworkError, ProtocolError } from '../client/errors.js';
import { MissingDriverError } from '../core/errors.js';
import { resourceByPath } from '../resources/index.js';
import type { ResourceDef } from '../resources/types.js';
import { CliError, EXIT, type ExitCode, missingDriver } from './errors.js';

/** The resource an error happened on, kept for its message's next step ("List them with ..."). */
const ON = new WeakMap<object, ResourceDef>();

/**
 * `e`, noted as an error on `r`'s records, and thrown on as it is: its message names what to list
 * when it becomes a CliError. The first resource noted wins (the one nearest the failure).
 */
export function about<E>(e: E, r: ResourceDef): E {
  if (typeof e === 'object' && e !== null && !ON.has(e)) ON.set(e, r);
  return e;
}

/** Anything a command threw, as the CliError run.ts prints and exits with. */
export function toCliError(err: unknown): CliError {
  if (err instanceof MissingDriverError) return missingDriver(err, 'this command');
  return describeApiError(err);
}

const tries = (n: number) => (n > 1 ? ` (${n} attempts)` : '');

/**
 * ` (request id 7f3c…)`, from the answer's X-Request-Id (else its body's request_id), for a person
 * to quote to whoever runs the server; nothing when the server gave none, or one not plainly an id.
 */
function requestIdOf(e: HttpStatusError): string {
  const body = e.response.body as { request_id?: unknown } | undefined;
  const id = e.response.headers['x-request-id'] ?? body?.request_id;
  return typeof id === 'string' && /^[\x21-\x7e]{1,128}$/.test(id) ? ` (request id ${id})` : '';
}

/**
 * The extensions of the API (ours) a 422 refuses as not allowed, in words ("properties",
 * "repeat"): a server that does not keep them (the hosted service may not). Undefined when the
 * 422 is about anything else, such as a value of ours that is wrong.
 */
function notKept(r: ResourceDef, fields: Readonly<Record<string, readonly string[]>> | undefined): string | undefined {
  const words: string[] = [];
  for (const [key, messages] of Object.entries(fields ?? {})) {
    if (!messages.some((m) => /not allowed|unknown|not permitted|prohibited|not supported/i.test(m))) continue;
    const name = key.split('.')[0] as string;
    const link = r.links?.find((l) => l.name === name && l.ours);
    if (link) words.push(resourceByPath(link.target).plural);
    else if (r.fields.some((f) => f.name === name && f.ours)) words.push(name);
  }
  return words.length ? [...new Set(words)].join(' or ') : undefined;
}

/** An error from the API client as a CLI error with the right exit code and a next step. */
export function describeApiError(e: unknown, on?: ResourceDef): CliError {
  if (e instanceof CliError) return e;
  const r = on ?? (typeof e === 'object' && e !== null ? ON.get(e) : undefined);
  if (e instanceof HttpStatusError) {
    const s = e.status;
    const fail = (code: ExitCode, message: string, hint?: string) => new CliError(code, message, { status: s, hint });
    if (s === 404) return fail(EXIT.notFound, e.message, r && `List them with \`pm ${r.path} list\`.`);
    if (s === 401)
      return fail(
        EXIT.auth,
        `not authenticated: ${e.message}`,
        'Check the token with `pm auth status`; log in with `pm auth login`.',
      );
    if (s === 403) return fail(EXIT.auth, e.message, 'The token needs a scope it lacks.');
    if (s === 405 && r) return fail(EXIT.api, e.message);
    if (s === 429) {
      const after = e.response.headers['retry-after'];
      const when = after && (/^\d+$/.test(after.trim()) ? `${after.trim()} seconds` : `a while (${after})`);
      return fail(EXIT.api, `rate limited: ${e.message}${tries(e.attempts)}`, when && `Try again in ${when}.`);
    }
    if (s === 502 || s === 503 || s === 504)
      return fail(
        EXIT.network,
        `the server is unavailable (${s}): ${e.message}${tries(e.attempts)}${requestIdOf(e)}`,
        'It may be restarting or overloaded: try again later.',
      );
    if (s >= 500) {
      const id = requestIdOf(e);
      return fail(
        EXIT.api,
        `the server failed (${s}): ${e.message}${id}`,
        `This is a fault of the server, not of the request; pm did not send it again.${id && ' Quote the request id to whoever runs the server.'}`,
      );
    }
    const unkept = s === 422 && r ? notKept(r, e.fieldErrors) : undefined;
    if (unkept)
      return new CliError(EXIT.api, `this server does not keep ${r?.plural}' ${unkept}.`, {
        status: s,
        hint: "It is an extension of pm serve's API (docs/api.md): leave it out, or use a pm server.",
      });
    return new CliError(EXIT.api, e.message, { status: s, fields: e.fieldErrors });
  }
  if (e instanceof NetworkError) {
    let hint = 'Check the base URL with `pm auth status`.';
    if (e.requestSent === 'maybe' && e.method === 'POST')
      hint = `The request may have reached the server before the connection failed, so pm did not send it again: check whether it was done${r ? ` (\`pm ${r.path} list\`)` : ''} before trying again.`;
    else if (e.requestSent === 'yes')
      hint = `The server did the request${r && e.method === 'POST' ? ` (find the new ${r.singular} with \`pm ${r.path} list\`)` : ''}, but its answer was lost on the way.`;
    else if (e.code?.includes('TIMEOUT')) hint = 'The server is slow or not answering; --timeout SECONDS waits longer.';
    else if (e.code === 'EXTRA_CA') hint = 'NODE_EXTRA_CA_CERTS names a PEM file of certificate authorities.';
    else if (e.code === 'PROXY_407')
      hint = 'Put the proxy credentials in its URL: HTTPS_PROXY=http://user:password@proxy:port.';
    else if (e.code?.startsWith('PROXY_')) hint = 'Check HTTPS_PROXY, HTTP_PROXY and NO_PROXY.';
    else if (/certificate/.test(e.reason))
      hint =
        'pm always verifies TLS certificates. If the server uses a private certificate authority, set NODE_EXTRA_CA_CERTS to its PEM file.';
    return new CliError(EXIT.network, e.message, { hint });
  }
  // Its message already says what to do.
  if (e instanceof InsecureTransportError) return new CliError(EXIT.usage, e.message);
  if (e instanceof ProtocolError) return new CliError(EXIT.api, `unexpected answer from the server: ${e.message}`);
  if (e instanceof Error && (e.name === 'AbortError' || (e as { code?: string }).code === 'UND_ERR_ABORTED'))
    return new CliError(EXIT.interrupted, 'interrupted');
  return new CliError(EXIT.api, e instanceof Error ? e.message : String(e), { cause: e });
}
