import { MissingDriverError } from '../core/errors.js';

/**
 * The CLI's typed error and its exit codes. Errors travel up to run.ts, the one place that turns
 * them into a message and an exit code.
 */

export const EXIT = {
  ok: 0,
  /** The API refused the request or failed. */
  api: 1,
  /** A usage error, found before any request. */
  usage: 2,
  notFound: 3,
  /** Authentication or permission. */
  auth: 4,
  /** The server could not be reached, or timed out. */
  network: 5,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

interface CliErrorOptions {
  /** What to try next, shown after the message. */
  readonly hint?: string;
  /** Field errors from a 422, one a line. */
  readonly fields?: Record<string, string[]>;
  /** HTTP status, when the error came from the API. */
  readonly status?: number;
  /** Show the command's usage after the message (usage errors). */
  readonly showUsage?: boolean;
  readonly cause?: unknown;
}

export class CliError extends Error {
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;
  readonly fields: Record<string, string[]> | undefined;
  readonly status: number | undefined;
  readonly showUsage: boolean;

  constructor(exitCode: ExitCode, message: string, opts: CliErrorOptions = {}) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.name = 'CliError';
    this.exitCode = exitCode;
    this.hint = opts.hint;
    this.fields = opts.fields;
    this.status = opts.status;
    this.showUsage = opts.showUsage ?? false;
  }
}

/** The exit code of several failures: theirs when they are all of one kind, else 1. */
export function oneKind(codes: readonly ExitCode[]): ExitCode {
  const first = codes[0] ?? EXIT.api;
  return codes.every((c) => c === first) ? first : EXIT.api;
}

export function usageError(message: string, hint?: string): CliError {
  return new CliError(EXIT.usage, message, { showUsage: true, ...(hint ? { hint } : {}) });
}

/**
 * A database driver left out of pm's install, in two lines: what `needs` it and why it is not
 * there, and how to get it (and, for the embedded default, how to do without).
 */
export function missingDriver(e: MissingDriverError, needs: string, without?: string): CliError {
  return new CliError(
    EXIT.api,
    `${needs} needs ${e.what} (${e.driver}), which is not installed: ${MissingDriverError.WHY}.`,
    {
      hint: `Install pm with them (npm ci in a clone; npm install of its package without --omit=optional)${without ? `, or ${without}` : ''}.`,
      cause: e,
    },
  );
}
