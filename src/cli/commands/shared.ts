/** Pieces every command shares: stdin, confirmation, display settings, API errors as CLI errors. */
import type { ResourceDef } from '../../resources/types.js';
import { HttpStatusError, NetworkError, ProtocolError } from '../../client/errors.js';
import type { Deps } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import type { Display } from '../output/index.js';
import type { GlobalOptions } from '../program.js';

export async function readAllStdin(deps: Deps): Promise<string> {
  const chunks: string[] = [];
  for await (const c of deps.io.stdin) chunks.push(typeof c === 'string' ? c : c.toString('utf8'));
  return chunks.join('');
}

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

export async function confirm(deps: Deps, globals: GlobalOptions, question: string): Promise<boolean> {
  if (!interactive(deps, globals))
    throw new CliError(EXIT.usage, 'refusing to delete without confirmation: pass --yes when not at a terminal.', {
      hint: 'pm never prompts with --no-input or CI=true.',
    });
  return (deps.prompter as NonNullable<Deps['prompter']>).confirm(question);
}

export async function display(deps: Deps, globals: GlobalOptions): Promise<Display> {
  const { colorEnabled } = await import('../output/index.js');
  return {
    stdout: deps.io.stdout,
    stderr: deps.io.stderr,
    color: colorEnabled(deps.env, deps.io.stdout.isTTY, globals.color),
    tty: deps.io.stdout.isTTY === true,
    ...(deps.timeZone ? { timeZone: deps.timeZone } : {}),
    now: deps.now,
  };
}

/** An error from the API client as a CLI error with the right exit code and a next step. */
export function describeApiError(e: unknown, r?: ResourceDef): CliError {
  if (e instanceof CliError) return e;
  if (e instanceof HttpStatusError) {
    const s = e.status;
    if (s === 404)
      return new CliError(EXIT.notFound, e.message, {
        status: s,
        ...(r ? { hint: `List them with \`pm ${r.path} list\`.` } : {}),
      });
    if (s === 401)
      return new CliError(EXIT.auth, `not authenticated: ${e.message}`, {
        status: s,
        hint: 'Check the token with `pm auth status`; log in with `pm auth login`.',
      });
    if (s === 403) return new CliError(EXIT.auth, e.message, { status: s, hint: 'The token needs a scope it lacks.' });
    if (s === 405 && r) return new CliError(EXIT.api, e.message, { status: s });
    if (s === 429) {
      const after = e.response.headers['retry-after'];
      return new CliError(EXIT.api, `rate limited: ${e.message}`, {
        status: s,
        ...(after ? { hint: `Try again in ${after} seconds.` } : {}),
      });
    }
    return new CliError(EXIT.api, e.message, { status: s, ...(e.fieldErrors ? { fields: e.fieldErrors } : {}) });
  }
  if (e instanceof NetworkError)
    return new CliError(EXIT.network, e.message, { hint: 'Check the base URL with `pm auth status`.' });
  if (e instanceof ProtocolError) return new CliError(EXIT.api, `unexpected answer from the server: ${e.message}`);
  if (e instanceof Error && (e.name === 'AbortError' || (e as { code?: string }).code === 'UND_ERR_ABORTED'))
    return new CliError(EXIT.interrupted, 'interrupted');
  return new CliError(EXIT.api, e instanceof Error ? e.message : String(e), { cause: e });
}
