/** Pieces every command shares: confirmation, a record's short description, API errors as CLI errors. */
import type { ResourceDef } from '../../resources/types.js';
import { HttpStatusError, InsecureTransportError, NetworkError, ProtocolError } from '../../client/errors.js';
import { visible } from '../../core/redact.js';
import type { Deps } from '../context.js';
import { CliError, EXIT, type ExitCode, usageError } from '../errors.js';
import type { Factory } from '../factory.js';
import type { GlobalOptions } from '../globals.js';
import type { Session } from '../session.js';

/** The clock and zone human dates are read in. */
export const when = (deps: Deps) => ({ now: deps.now(), ...(deps.timeZone ? { zone: deps.timeZone } : {}) });

/** Whether a person can be asked: a terminal on both ends, and neither --no-input nor CI=true. */
export function interactive(deps: Deps, globals: GlobalOptions): boolean {
  return (
    globals.input !== false &&
    deps.env.CI !== 'true' &&
    deps.env.CI !== '1' &&
    deps.io.stdin.isTTY === true &&
    deps.io.stderr.isTTY === true &&
    deps.prompter !== undefined
  );
}

/**
 * Asks before a delete; "no" stops the command. When no one is there to answer, refuses before
 * the question is made (making it may read the records from the server).
 */
export async function confirmDelete(f: Factory, question: () => Promise<string> | string): Promise<void> {
  if (!interactive(f, f.globals()))
    throw new CliError(EXIT.usage, 'refusing to delete without confirmation: pass --yes when not at a terminal.', {
      hint: 'pm never prompts with --no-input or CI=true.',
    });
  if (!(await f.prompter!.confirm(await question()))) throw new CliError(EXIT.usage, 'nothing deleted.');
}

/**
 * A whole-number flag from `min` to `max`, in no more digits than `max` has; else a usage error
 * that says it in `words`.
 */
export function numberFlag(
  flag: string,
  text: string | undefined,
  min: number,
  max: number,
  words = `a whole number from ${min} to ${max}`,
): number | undefined {
  if (text === undefined) return undefined;
  if (!new RegExp(`^\\d{1,${String(max).length}}$`).test(text) || Number(text) < min || Number(text) > max)
    throw usageError(`${flag} must be ${words}, not "${text}".`);
  return Number(text);
}

/** A short line naming a record: its first text columns (address, city; name, email…). */
export function describeRecord(r: ResourceDef, rec: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const f of r.fields) {
    if (!f.column || f.name === 'uuid' || parts.length >= 2) continue;
    const v = rec[f.name];
    if (typeof v === 'string' && v.trim()) parts.push(visible(v.trim()));
  }
  return parts.join(', ');
}

/** The field of a parent that counts a child's records (a property's num_notes), if any. */
export const countOf = (parent: ResourceDef, child: ResourceDef) =>
  parent.fields.find((f) => f.computed && 'count' in f.computed && f.computed.count === child.path);

/** Every record of `r` that `query` selects, 100 a page, one page held at a time. */
export async function* everyRecord(s: Session, r: ResourceDef, query: URLSearchParams) {
  query.set('per_page', '100');
  try {
    for await (const page of s.client.pages(r, query)) yield* page.records;
  } catch (e) {
    throw describeApiError(e, r);
  }
}

/**
 * Runs `fn` with a session of its own, closed after it, that gets no abort signal: its requests in
 * flight finish after Ctrl-C, and the command (a bulk write, an import) stops sending by itself.
 */
export async function withUnabortedSession(f: Factory, fn: (s: Session) => Promise<void>): Promise<void> {
  const { withSession } = await import('../session.js');
  await withSession(f.globals(), { ...f, signal: undefined }, fn);
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

/** An error from the API client as a CLI error with the right exit code and a next step. */
export function describeApiError(e: unknown, r?: ResourceDef): CliError {
  if (e instanceof CliError) return e;
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
