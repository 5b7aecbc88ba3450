/** The run functions of `pm serve` and its token and account commands (serve.ts declares them). */
import { availableParallelism } from 'node:os';
import { tokenFileFor } from '../../core/paths.js';
import { hidePasswords } from '../../core/redact.js';
import { bootstrap, openPostgres, openStore, type RunningServer, type Store, startServer } from '../../server/index.js';
import { MissingDriverError } from '../../core/errors.js';
import { CliError, EXIT, missingDriver, usageError } from '../errors.js';
import type * as Serve from './serve.js';

export async function serveRun(o: Serve.ServeOptions): Promise<void> {
  const { f, dataFile, database, poolSize, readers, logFormat, logLevel, shutdownGraceMs, ...options } = o;
  const { io } = f;
  const { rateLimit } = options;
  const common = {
    ...options,
    // Requests, and server errors with their stacks, on stdout; a database's password never.
    log: {
      format: logFormat,
      level: logLevel,
      out: io.stdout,
      redact: (text: string) => redacted(text, database),
      broken: (message: string) => io.stderr.write(`pm serve: ${message}\n`),
    },
  };
  let server: RunningServer<Store>;
  if (database !== undefined) {
    server = await startServer({ ...common, database, poolSize }).catch((e) => {
      throw failed(e, database);
    });
    if (server.createdAccount) io.stderr.write(NEW_DATABASE(database));
  } else {
    server = await startServer({ ...common, dataFile, readers: readers ?? Math.min(4, availableParallelism()) });
    if (server.createdToken) io.stderr.write(NEW_FILE(dataFile));
  }
  const where = database !== undefined ? `database: ${redacted(database, database)}` : `data: ${dataFile}`;
  io.stderr.write(
    `pm serve: listening on ${server.url} (${where}${rateLimit ? `, rate limit ${rateLimit.limit} per ${rateLimit.windowMs / 1000}s` : ''})\n`,
  );
  if (server.metricsUrl) io.stderr.write(`pm serve: metrics on ${server.metricsUrl}\n`);
  await new Promise<void>((resolve) => {
    let stopping = false;
    // Ctrl-C comes as the run's abort signal (main.ts; a second one ends the process there);
    // a service manager stops pm serve with SIGTERM. Either is a clean stop: exit 0.
    f.interruptIsStop?.();
    const stop = () => {
      if (stopping) {
        // A second signal: no more waiting. With no listener left, SIGTERM ends the process.
        io.stderr.write('pm serve: stopping now\n');
        process.off('SIGTERM', stop);
        process.kill(process.pid, 'SIGTERM');
        return;
      }
      stopping = true;
      io.stderr.write(
        `pm serve: shutting down: no new connections; requests in flight have ${shutdownGraceMs / 1000} s to finish\n`,
      );
      void server.close(shutdownGraceMs).then(() => {
        process.off('SIGTERM', stop);
        resolve();
      });
    };
    process.on('SIGTERM', stop);
    f.signal?.addEventListener('abort', stop, { once: true });
  });
}

/** A failure to reach or set up the database, its password hidden. */
const failed = (e: unknown, database: string) =>
  e instanceof MissingDriverError
    ? missingDriver(e, 'pm serve --database')
    : new CliError(EXIT.api, redacted((e as Error).message, database));

/** A message with the database's password, if it holds it anywhere, in any form, shown as ***. */
function redacted(text: string, database: string | undefined): string {
  return database === undefined ? text : hidePasswords(text, database);
}

const NEW_DATABASE = (database: string) =>
  `pm serve: new database: created an account; make its token with \`pm serve tokens create --database ${redacted(database, database)}\`\n`;

const NEW_FILE = (dataFile: string) =>
  `pm serve: new data file: created an account and a token, written to ${tokenFileFor(dataFile)}\n`;

/**
 * The data file's store for a token or account command. A new file gets the same first-run set-up
 * whichever command opens it (an account, and its token written beside the file), so that the
 * embedded default and `pm serve` find it there later.
 */
async function openData(o: Serve.OnDataFile): Promise<Store> {
  if (o.database !== undefined) {
    const database = o.database;
    const store = await openPostgres(database).catch((e) => {
      throw failed(e, database);
    });
    try {
      if (await store.ensureAccount()) o.f.io.stderr.write(NEW_DATABASE(database));
    } catch (e) {
      await store.close();
      throw failed(e, database);
    }
    return store;
  }
  const store = openStore(o.dataFile);
  try {
    if (bootstrap(store)) o.f.io.stderr.write(NEW_FILE(o.dataFile));
  } catch (e) {
    store.close();
    throw e;
  }
  return store;
}

/** Runs `fn` on the command's store, and closes it. */
async function withData(o: Serve.OnDataFile, fn: (store: Store) => Promise<void>): Promise<void> {
  const store = await openData(o);
  try {
    await fn(store);
  } finally {
    await store.close();
  }
}

/** Where a command's store is, in its messages. */
const storeWord = (o: Serve.OnDataFile) => (o.database !== undefined ? 'database' : 'data file');

export async function tokensCreateRun(o: Serve.TokensCreateOptions): Promise<void> {
  const { io } = o.f;
  await withData(o, async (store) => {
    const userId =
      o.account === undefined
        ? ((await store.firstUser()) as { userId: number }).userId
        : await store.userOfAccount(o.account);
    if (userId === undefined) throw usageError(`--account: no account ${o.account} in this ${storeWord(o)}.`);
    const { token, id } = await store.createToken(userId, o.name, o.scopes);
    io.stdout.write(`${token}\n`);
    io.stderr.write(
      `Created token ${id} "${o.name}" with scopes ${o.scopes.join(' ')}. Store it now: it is not shown again.\n`,
    );
  });
}

export async function tokensListRun(o: Serve.TokensListOptions): Promise<void> {
  const { io } = o.f;
  await withData(o, async (store) => {
    const list = await store.listTokens();
    if (o.json) {
      io.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
      return;
    }
    for (const t of list)
      io.stdout.write(
        `${t.id}\t${t.name}\taccount ${t.account_id}\t…${t.hint}\t${t.revoked_at ? `revoked ${t.revoked_at}` : 'active'}\t${t.scopes.join(' ')}\n`,
      );
  });
}

export async function tokensRevokeRun(o: Serve.TokensRevokeOptions): Promise<void> {
  await withData(o, async (store) => {
    if (!(await store.revokeToken(o.id)))
      throw new CliError(EXIT.notFound, `No active token ${o.id} in this ${storeWord(o)}.`, {
        hint: 'List them with `pm serve tokens list`.',
      });
    o.f.io.stderr.write(`Revoked token ${o.id}.\n`);
  });
}

export async function accountsCreateRun(o: Serve.AccountsCreateOptions): Promise<void> {
  const { io } = o.f;
  await withData(o, async (store) => {
    const { accountId, userId } = await store.createAccount(o.name);
    const { token } = await store.createToken(userId, 'owner', o.scopes);
    io.stdout.write(`${token}\n`);
    io.stderr.write(
      `Created account ${accountId} "${o.name}" and a full-scope token. Store it now: it is not shown again.\n`,
    );
  });
}
