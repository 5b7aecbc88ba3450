/**
 * The run functions of `pm serve` and its token and account commands: options in (serve.ts
 * declares and checks them), the server or the data file's store, output out.
 */
import { availableParallelism } from 'node:os';
import { tokenFileFor } from '../../core/paths.js';
import { bootstrap, openStore, type RateLimit, type SqliteStore, startServer } from '../../server/index.js';
import { CliError, EXIT, usageError } from '../errors.js';
import type * as Serve from './serve.js';

export async function serveRun(o: Serve.ServeOptions): Promise<void> {
  const { f, dataFile } = o;
  const { io } = f;
  const rateLimit: RateLimit | undefined = o.rateLimit;
  const server = await startServer({
    dataFile,
    host: o.host,
    port: o.port,
    ...(rateLimit ? { rateLimit } : {}),
    ...(o.publicUrl ? { publicUrl: o.publicUrl } : {}),
    ...(o.maxConnections ? { maxConnections: o.maxConnections } : {}),
    readers: o.readers ?? Math.min(4, availableParallelism()),
    logError: (err) => io.stderr.write(`pm serve: internal error: ${(err as Error)?.stack ?? String(err)}\n`),
  });
  if (server.createdToken) io.stderr.write(NEW_FILE(dataFile));
  io.stderr.write(
    `pm serve: listening on ${server.url} (data: ${dataFile}${rateLimit ? `, rate limit ${rateLimit.limit} per ${rateLimit.windowMs / 1000}s` : ''})\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      io.stderr.write('pm serve: shutting down\n');
      void server.close().then(resolve);
    };
    // SIGTERM too: a service manager stops pm serve with it.
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    f.signal?.addEventListener('abort', stop, { once: true });
  });
}

const NEW_FILE = (dataFile: string) =>
  `pm serve: new data file: created an account and a token, written to ${tokenFileFor(dataFile)}\n`;

/**
 * The data file's store for a token or account command. A new file gets the same first-run set-up
 * whichever command opens it (an account, and its token written beside the file), so that the
 * embedded default and `pm serve` find it there later.
 */
function openData(o: Serve.OnDataFile): SqliteStore {
  const store = openStore(o.dataFile);
  try {
    if (bootstrap(store)) o.f.io.stderr.write(NEW_FILE(o.dataFile));
  } catch (e) {
    store.close();
    throw e;
  }
  return store;
}

export async function tokensCreateRun(o: Serve.TokensCreateOptions): Promise<void> {
  const { io } = o.f;
  const store = openData(o);
  try {
    let userId: number | undefined;
    if (o.account !== undefined) {
      userId = store.userOfAccount(o.account);
      if (userId === undefined) throw usageError(`--account: no account ${o.account} in this data file.`);
    } else {
      userId = (store.firstUser() as { userId: number }).userId;
    }
    const { token, id } = store.createToken(userId, o.name, o.scopes);
    io.stdout.write(`${token}\n`);
    io.stderr.write(
      `Created token ${id} "${o.name}" with scopes ${o.scopes.join(' ')}. Store it now: it is not shown again.\n`,
    );
  } finally {
    store.close();
  }
}

export async function tokensListRun(o: Serve.TokensListOptions): Promise<void> {
  const { io } = o.f;
  const store = openData(o);
  try {
    const list = store.listTokens();
    if (o.json) {
      io.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
      return;
    }
    for (const t of list)
      io.stdout.write(
        `${t.id}\t${t.name}\taccount ${t.account_id}\t…${t.hint}\t${t.revoked_at ? `revoked ${t.revoked_at}` : 'active'}\t${t.scopes.join(' ')}\n`,
      );
  } finally {
    store.close();
  }
}

export async function tokensRevokeRun(o: Serve.TokensRevokeOptions): Promise<void> {
  const store = openData(o);
  try {
    if (!store.revokeToken(o.id))
      throw new CliError(EXIT.notFound, `No active token ${o.id} in this data file.`, {
        hint: 'List them with `pm serve tokens list`.',
      });
    o.f.io.stderr.write(`Revoked token ${o.id}.\n`);
  } finally {
    store.close();
  }
}

export async function accountsCreateRun(o: Serve.AccountsCreateOptions): Promise<void> {
  const { io } = o.f;
  const store = openData(o);
  try {
    const { accountId, userId } = store.createAccount(o.name);
    const { token } = store.createToken(userId, 'owner', o.scopes);
    io.stdout.write(`${token}\n`);
    io.stderr.write(
      `Created account ${accountId} "${o.name}" and a full-scope token. Store it now: it is not shown again.\n`,
    );
  } finally {
    store.close();
  }
}
