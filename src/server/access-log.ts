/**
 * `pm serve`'s log (`--log-format`, `--log-level`): a line per request answered, and the cause of
 * every server error once, with its request id; as text for a person or as JSON lines for a log
 * shipper (pino, writing to stdout without a worker thread). What a line may hold is the
 * RequestRecord (observe.ts): the target with its secrets masked, never a header, a body or a token.
 * Loaded only by `pm serve`, when a log is asked for.
 */
import type { Observer, RequestRecord } from './observe.js';

export type LogFormat = 'text' | 'json';
/** What is written: server errors (and lists stopped at their budget); and every request; and more. */
export type LogLevel = 'error' | 'info' | 'debug';
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];
export const LOG_LEVELS: readonly LogLevel[] = ['error', 'info', 'debug'];

/** Where the lines go: process.stdout (written to its file descriptor directly), or any writer. */
export interface LogOut {
  write(chunk: string): unknown;
  readonly fd?: number;
}

export interface LogOptions {
  readonly format: LogFormat;
  readonly level: LogLevel;
  readonly out: LogOut;
  /** Hides what must not be logged in an error's text (a database password). */
  readonly redact?: ((text: string) => string) | undefined;
  /** Told once when the log can no longer be written (its reader went away). */
  readonly broken?: ((message: string) => void) | undefined;
}

export interface ServerLog extends Observer {
  /** A server error (its stack), or a list stopped at its budget (its message), on a request. */
  error(err: unknown, requestId?: string): void;
  /** Writes out what is still buffered (before the process ends). */
  flush(): void;
}

export async function openLog(o: LogOptions): Promise<ServerLog> {
  const { default: pino } = await import('pino');
  // Lines written asynchronously, those that come while one is written joined to it; flushed at
  // the end. No transport: a worker thread would cost more than the write.
  const fast = o.out.fd === 1 ? pino.destination({ dest: 1, sync: false }) : undefined;
  // A log whose reader went away (a closed pipe) is given up, said once: the server goes on
  // answering, and nothing piles up in memory.
  let broken = false;
  fast?.on('error', (e: NodeJS.ErrnoException) => {
    if (broken) return;
    broken = true;
    o.broken?.(`the log could not be written (${e.code ?? e.message}): no more lines are written`);
  });
  const out = { write: (line: string) => void (broken ? undefined : (fast ?? o.out).write(line)) };
  const redact = o.redact ?? ((text: string) => text);
  const flush = () => {
    try {
      if (!broken) fast?.flushSync();
    } catch {
      // What could not be written by the end is lost with its reader.
    }
  };
  const cause = (err: unknown) => {
    const e = err as Error | undefined;
    // A list stopped at its budget is told as it is (api.ts says it without values): no stack.
    if (e?.name === 'OverBudget') return { warning: true, text: redact(e.message) };
    return { warning: false, text: redact(e?.stack ?? String(err)) };
  };
  /** A 5xx the store answered: what the client was told, and what the store said. */
  const fault = (f: Error) => {
    const why = f.cause as Error | undefined;
    return redact(`${f.message} (${why?.message ?? String(why)})`);
  };

  if (o.format === 'json') {
    const logger = pino(
      {
        level: o.level === 'error' ? 'warn' : o.level,
        base: undefined,
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
      },
      out,
    );
    const infoOn = logger.isLevelEnabled('info');
    return {
      started: logger.isLevelEnabled('debug')
        ? (request_id, method, path) => logger.debug({ request_id, method, path }, 'request started')
        : undefined,
      answered: (r) => {
        if (infoOn) logger.info(jsonRecord(r), 'request');
        if (r.fault) logger.error({ request_id: r.requestId, status: r.status }, fault(r.fault));
      },
      error: (err, request_id) => {
        const { warning, text } = cause(err);
        if (warning) logger.warn({ request_id }, text);
        else logger.error({ request_id, stack: text }, text.split('\n', 1)[0] ?? '');
      },
      flush,
    };
  }

  const rank = LOG_LEVELS.indexOf(o.level);
  const line = (text: string) => out.write(`${new Date().toISOString()} ${text}\n`);
  return {
    started:
      rank >= 2 ? (id, method, target) => line(`started ${method} ${printable(target)} request_id=${id}`) : undefined,
    answered: (r) => {
      if (rank >= 1) line(textRecord(r));
      if (r.fault) line(`error request_id=${printable(r.requestId)} ${fault(r.fault)}`);
    },
    error: (err, id) => {
      const { warning, text } = cause(err);
      line(`${warning ? 'warning' : 'error'}${id === undefined ? '' : ` request_id=${id}`} ${text}`);
    },
    flush,
  };
}

function jsonRecord(r: RequestRecord): Record<string, unknown> {
  return {
    method: r.method,
    path: r.target,
    status: r.status,
    duration_ms: Math.round(r.durationMs * 1000) / 1000,
    bytes: r.bytesOut,
    bytes_in: r.bytesIn,
    request_id: r.requestId,
    account_id: r.accountId,
    remote: r.remote,
  };
}

/** `201 POST /reminders 2.41 ms 245 B request_id=... account=1 remote=127.0.0.1`. */
function textRecord(r: RequestRecord): string {
  return `${r.status} ${r.method} ${printable(r.target)} ${r.durationMs.toFixed(2)} ms ${r.bytesOut} B request_id=${printable(r.requestId)} account=${r.accountId ?? '-'} remote=${r.remote ?? '-'}`;
}

/** A target as a text line may hold it: spaces and control characters (C0 and C1) percent-encoded. */
function printable(text: string): string {
  return text.replace(
    /[\x00-\x20\x7f-\x9f]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}
