/**
 * A PostgreSQL database for the store (docs/architecture.md): a pool of connections (node-postgres,
 * loaded when first used, so a CLI run that does not use PostgreSQL never loads it).
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as PG from 'pg';
import { ApiError, MissingDriverError } from '../../core/errors.js';
import { printableUrl } from '../../core/redact.js';
import { OverBudget } from '../budget.js';
import type { Row } from '../sql/steps.js';
import { PG_MIGRATIONS } from './schema.js';

/** Where the queries of one operation go: the pool, or the one connection of a transaction. */
export interface Pg {
  /** Runs a statement (`?` placeholders, values bound); `shape` false for statements built from a list's filters. */
  query(sql: string, params?: readonly unknown[], shape?: boolean): Promise<Row[]>;
  /** The number of rows a statement changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /** Runs `fn` in one transaction (nested calls join it); rolled back when it throws. */
  write<T>(fn: (tx: Pg) => Promise<T>): Promise<T>;
}

/** A transaction's COMMIT sent and never answered: whether it was written is not known. */
class CommitUnknown extends Error {
  constructor(override readonly cause: unknown) {
    super(`the database was lost during COMMIT: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'CommitUnknown';
  }
}

/** The default number of connections an instance holds at most. */
export const DEFAULT_POOL_SIZE = 10;

/** How long a client is told to wait when the database cannot be reached. */
const RETRY_AFTER_S = 5;

/** The key of the advisory lock migrations run under (any constant of pm's own). */
const MIGRATION_LOCK = 7_340_130_013;

/** `?` placeholders as PostgreSQL's `$1, $2...` (pm's SQL has no `?` in literals). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * A statement's name when it is prepared once per connection: from its text, and the generation
 * of the pool's statements (a new one when the schema changed under them: `isStalePlan`).
 */
const nameOf = (text: string, generation: number) =>
  `pm_${createHash('sha1').update(text).digest('hex').slice(0, 20)}_${generation}`;

/**
 * PostgreSQL's refusal of a prepared statement whose result columns changed under it: another
 * instance migrated the schema (a column it selects changed type). The statement prepared again
 * under a new name answers; nothing was done by the one refused.
 */
function isStalePlan(e: unknown): boolean {
  return (
    (e as { code?: unknown }).code === '0A000' &&
    /cached plan must not change result type/.test(String((e as Error).message))
  );
}

const LOST_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EAI_AGAIN',
]);

const LOST_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|connect ECONNREFUSED|Connection ended/i;

/** Whether an error means the database cannot be reached now (rather than a fault of the request). */
function isUnavailable(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown };
  const code = typeof err?.code === 'string' ? err.code : '';
  if (LOST_CODES.has(code)) return true;
  // Connection exceptions (08), the server shutting down or starting (57P01-57P03), too many connections (53300).
  if (/^08/.test(code) || /^57P0[1-3]$/.test(code) || code === '53300') return true;
  return LOST_MESSAGES.test(typeof err?.message === 'string' ? err.message : '');
}

/** Failures that happen before a statement is sent: nothing reached the database. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN', '53300', '57P03']);
const notSent = (e: unknown) =>
  NOT_SENT.has(String((e as { code?: unknown }).code)) ||
  /timeout exceeded when trying to connect|connect ECONNREFUSED/i.test(String((e as Error)?.message));

/** PostgreSQL's query_canceled: statement_timeout, or pg_cancel_backend (a list's budget spent). */
const isCancelled = (e: unknown): boolean => (e as { code?: unknown }).code === '57014';

/**
 * What an operation did to the database, for what its failure may say: `read` writes nothing;
 * `write` is a transaction (its COMMIT, if sent and not answered, is CommitUnknown); `statement`
 * one statement that writes, outside a transaction (whether it ran is known only if never sent).
 */
export type Doing = 'read' | 'write' | 'statement';

/**
 * An error as a client should hear of it: a lost database is a 503 that says "Nothing was
 * written" only where that is known (a transaction not committed); a statement stopped by
 * statement_timeout a 503 saying so; anything else as it is.
 */
export function storeError(e: unknown, doing: Doing = 'read'): unknown {
  const said = answerOf(e, doing);
  // What the database said stays with the answer, for the server's log (never the client's).
  if (said !== e) (said as ApiError).cause = e;
  return said;
}

function answerOf(e: unknown, doing: Doing): unknown {
  const retry = { 'Retry-After': String(RETRY_AFTER_S) };
  if (isCancelled(e)) {
    const rolledBack = doing === 'write' ? ' Nothing was written;' : '';
    return new ApiError(
      503,
      `The database took longer than the server allows.${rolledBack} try again shortly.`,
      undefined,
      retry,
    );
  }
  const unknown = e instanceof CommitUnknown || (doing === 'statement' && isUnavailable(e) && !notSent(e));
  if (!unknown && !isUnavailable(e)) return e;
  if (unknown)
    return new ApiError(
      503,
      'The server lost its database while writing this: it may or may not have been written. Check before trying again.',
      undefined,
      retry,
    );
  const busy = /timeout exceeded when trying to connect/i.test(String((e as Error)?.message));
  const what = busy
    ? "The server's connections to its database are all busy"
    : 'The server cannot reach its database at the moment';
  const message =
    doing === 'write' ? `${what}. Nothing was written; try again shortly.` : `${what}; try again shortly.`;
  return new ApiError(503, message, undefined, retry);
}

export interface PgDatabase extends Pg {
  readonly pool: PG.Pool;
  /**
   * Runs `fn` on a connection of its own: when `signal` aborts (the list's budget is spent, or its
   * client has gone away), the statement it runs is cancelled (pg_cancel_backend, from another
   * connection) and the connection is closed rather than given back; `fn` then fails with
   * OverBudget, as it does when statement_timeout stops a statement.
   */
  reading<T>(signal: AbortSignal | undefined, fn: (pg: Pg) => Promise<T>): Promise<T>;
  /**
   * A transaction begun on a connection of its own and ended by its holder, for one whose
   * statements wait for something else between them (an upload streamed into it).
   */
  begin(): Promise<HeldTransaction>;
  close(): Promise<void>;
}

/** A transaction held open (`PgDatabase.begin`): exactly one of its three ends gives its connection back. */
export interface HeldTransaction {
  /** Its connection, for what `pg` does not send (a COPY). */
  readonly client: PG.PoolClient;
  /** Its statements. */
  readonly pg: Pg;
  /** Commits; rolls back when that fails (then throws, a COMMIT sent and not answered as CommitUnknown). */
  commit(): Promise<void>;
  /** Rolls back (`cause`: the failure that ends it, which says whether its connection is still sound). */
  rollback(cause?: unknown): Promise<void>;
  /** Closes its connection, which ends the transaction: for one left in a state no statement can follow. */
  drop(): void;
}

export interface PgOptions {
  readonly url: string;
  readonly poolSize?: number | undefined;
  readonly now?: () => number;
  /**
   * The longest any statement may run (ms): PostgreSQL stops it (statement_timeout, set for every
   * connection as it opens), even if this instance has gone. None when undefined (tools).
   */
  readonly statementTimeoutMs?: number | undefined;
}

/**
 * The URL with its `sslmode` meaning what it means to PostgreSQL's own clients (libpq): `require`
 * encrypts without checking the certificate (unless `sslrootcert` is given: then as `verify-ca`),
 * `verify-ca` checks it against a CA, `verify-full` the host name too. node-postgres reads all of
 * them as `verify-full` unless told `uselibpqcompat=true`; a URL that says so itself is kept.
 */
function libpqUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.searchParams.has('sslmode') || u.searchParams.has('uselibpqcompat')) return url;
    u.searchParams.set('uselibpqcompat', 'true');
    return u.href;
  } catch {
    return url;
  }
}

/** Opens a pool on the database at `url` (not yet connected: `migrate` connects first). */
export function openPg(opts: PgOptions): PgDatabase {
  let pg: typeof PG;
  try {
    pg = createRequire(import.meta.url)('pg') as typeof PG;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND')
      throw new MissingDriverError('pg', 'the PostgreSQL driver');
    throw e;
  }
  const pool = new pg.Pool({
    connectionString: libpqUrl(opts.url),
    max: opts.poolSize ?? DEFAULT_POOL_SIZE,
    connectionTimeoutMillis: 5000,
    // A database that stops answering (a network cut without a reset) fails a request after 30 s
    // (or once its statement_timeout is past) as one that is down does, rather than holding it.
    query_timeout: Math.max(30_000, (opts.statementTimeoutMs ?? 0) + 5_000),
    ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
    keepAlive: true,
    idleTimeoutMillis: 30_000,
    application_name: 'pm serve',
    // BIGINT (ids, counts, milliseconds) as numbers, as SQLite gives them: all are far below 2^53.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === pg.types.builtins.INT8
          ? (v: string) => Number(v)
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // A connection that breaks while idle (the database restarted) is dropped by the pool; without
  // a listener its error would end the process.
  pool.on('error', () => {});

  // Statements are prepared again, under new names, once one is refused as stale (isStalePlan).
  let generation = 0;
  /** A statement, or a whole transaction, tried again once, prepared anew, when refused as stale. */
  const again = async <T>(inTx: boolean, attempt: () => Promise<T>): Promise<T> => {
    const seen = generation;
    try {
      return await attempt();
    } catch (e) {
      if (inTx || !isStalePlan(e)) throw e;
      if (generation === seen) generation++;
      return attempt();
    }
  };
  const on = (client: PG.Pool | PG.PoolClient, inTx: boolean): Pg => {
    const send = (sql: string, params: readonly unknown[], shape: boolean) =>
      again(inTx, () => {
        const text = numbered(sql);
        const values = params as unknown[];
        return client.query<Row>(shape ? { name: nameOf(text, generation), text, values } : { text, values });
      });
    const self: Pg = {
      query: async (sql, params = [], shape = true) => (await send(sql, params, shape)).rows,
      run: async (sql, params = []) => (await send(sql, params, true)).rowCount ?? 0,
      async write(fn) {
        if (inTx) return fn(self);
        // A transaction refused a stale statement was rolled back whole: it runs again, anew.
        return again(false, () => transaction(fn));
      },
    };
    return self;
  };
  /** A transaction begun on a connection of its own, ended by its holder (`HeldTransaction`). */
  const begin = async (): Promise<HeldTransaction> => {
    const c = await pool.connect();
    let broken: unknown;
    let ended = false;
    // A connection lost between two statements of the transaction is reported as an event of
    // its client (no query is waiting for it): without a listener it would end the process.
    // The next statement fails, and the client is then dropped rather than given back.
    const lost = (err: Error) => {
      broken = err;
    };
    c.on('error', lost);
    const release = (drop = false) => {
      if (ended) return;
      ended = true;
      c.off('error', lost);
      // A connection that failed is not given back to be used again.
      c.release(broken instanceof Error ? broken : drop || undefined);
    };
    const rollback = async (cause?: unknown) => {
      if (ended) return;
      broken = isUnavailable(cause) || cause instanceof CommitUnknown ? cause : undefined;
      try {
        await c.query('ROLLBACK');
      } catch (r) {
        broken = r;
      }
      release();
    };
    try {
      await c.query('BEGIN');
    } catch (e) {
      await rollback(e);
      throw e;
    }
    return {
      client: c,
      pg: on(c, true),
      async commit() {
        try {
          // A COMMIT sent and not answered may have been written or not: it is said so (storeError).
          await c.query('COMMIT').catch((e) => {
            throw isUnavailable(e) ? new CommitUnknown(e) : e;
          });
        } catch (e) {
          await rollback(e);
          throw e;
        }
        release();
      },
      rollback,
      drop: () => release(true),
    };
  };
  /** `fn` in one transaction on a connection of its own. */
  const transaction = async <T>(fn: (tx: Pg) => Promise<T>): Promise<T> => {
    const tx = await begin();
    let out: T;
    try {
      out = await fn(tx.pg);
    } catch (e) {
      await tx.rollback(e);
      throw e;
    }
    await tx.commit();
    return out;
  };
  const reading = async <T>(signal: AbortSignal | undefined, fn: (pg: Pg) => Promise<T>): Promise<T> => {
    signal?.throwIfAborted();
    const c = await pool.connect();
    let broken: unknown;
    const lost = (err: Error) => {
      broken = err;
    };
    c.on('error', lost);
    let cancelled: Promise<unknown> | undefined;
    // From another connection: this one is busy with the statement. A cancel that comes after the
    // statement ended finds the connection idle, or another statement of `fn`; the connection is
    // closed after it either way, never given back to run someone else's.
    const cancel = () => {
      // The backend's process id, from its BackendKeyData (node-postgres keeps it; its types do not say so).
      const pid = (c as unknown as { processID: number }).processID;
      cancelled = pool.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => {});
    };
    signal?.addEventListener('abort', cancel, { once: true });
    const pg = on(c, false);
    // No statement starts once the budget is spent.
    const checked: Pg = {
      async query(sql, params, shape) {
        signal?.throwIfAborted();
        return pg.query(sql, params, shape);
      },
      async run(sql, params) {
        signal?.throwIfAborted();
        return pg.run(sql, params);
      },
      write: pg.write,
    };
    try {
      return await fn(checked);
    } catch (e) {
      broken = isUnavailable(e) ? e : broken;
      throw signal?.aborted || isCancelled(e) ? new OverBudget(true) : e;
    } finally {
      signal?.removeEventListener('abort', cancel);
      c.off('error', lost);
      await cancelled;
      c.release(cancelled || broken ? (broken instanceof Error ? broken : true) : undefined);
    }
  };
  return { ...on(pool, false), pool, reading, begin, close: () => pool.end() };
}

/**
 * Brings the database to the current schema, under an advisory lock so that instances starting
 * at once migrate it once (the others wait, then find it done). A database at a version newer
 * than this pm knows is refused.
 */
export async function migrate(db: PgDatabase, url: string): Promise<void> {
  let c: PG.PoolClient;
  try {
    c = await db.pool.connect();
  } catch (e) {
    // Node's TLS errors name no remedy: an untrusted certificate is said to be one, with the fix.
    const code = String((e as { code?: unknown }).code ?? '');
    const untrusted = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS_CERT_ALTNAME/.test(code);
    const hint = untrusted
      ? " (the database's TLS certificate is not trusted: give the CA that signed it with sslrootcert=FILE in the URL)"
      : '';
    throw new Error(`cannot connect to the database ${printableUrl(url)}: ${(e as Error).message}${hint}`);
  }
  const lost = () => {};
  c.on('error', lost);
  try {
    // Migrations wait for another instance's and may rewrite large tables: no statement_timeout
    // (this connection is closed afterwards, not given back with it off).
    await c.query('SET statement_timeout = 0');
    await c.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await c.query('CREATE TABLE IF NOT EXISTS pm_schema (version INTEGER NOT NULL)');
      const rows = (await c.query<{ version: number }>('SELECT version FROM pm_schema')).rows;
      const current = rows[0]?.version ?? 0;
      if (current > PG_MIGRATIONS.length)
        throw new Error(
          `the database ${printableUrl(url)} is at schema version ${current}, newer than this pm knows (${PG_MIGRATIONS.length}); upgrade pm`,
        );
      if (current === PG_MIGRATIONS.length) return;
      await c.query('BEGIN');
      try {
        for (let v = current; v < PG_MIGRATIONS.length; v++)
          for (const sql of PG_MIGRATIONS[v] as readonly string[]) await c.query(sql);
        if (rows.length) await c.query('UPDATE pm_schema SET version = $1', [PG_MIGRATIONS.length]);
        else await c.query('INSERT INTO pm_schema (version) VALUES ($1)', [PG_MIGRATIONS.length]);
        await c.query('COMMIT');
      } catch (e) {
        await c.query('ROLLBACK');
        throw e;
      }
    } finally {
      await c.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    c.off('error', lost);
    c.release(true);
  }
}
