/** The store a `pm serve` command works on, opened (a new one set up) and closed. */
import { MissingDriverError } from '../../../core/errors.js';
import { tokenFileFor } from '../../../core/paths.js';
import { hidePasswords } from '../../../core/redact.js';
import { bootstrap, openPostgres, openStore, type Store } from '../../../server/index.js';
import { CliError, EXIT, missingDriver } from '../../errors.js';
import type { OnDataFile } from './store.js';

/** A failure to reach or set up the database, its password hidden. */
export const failed = (e: unknown, database: string) =>
  e instanceof MissingDriverError
    ? missingDriver(e, 'pm serve --database')
    : new CliError(EXIT.api, redacted((e as Error).message, database));

/** A message with the database's password, if it holds it anywhere, in any form, shown as ***. */
export function redacted(text: string, database: string | undefined): string {
  return database === undefined ? text : hidePasswords(text, database);
}

export const NEW_DATABASE = (database: string) =>
  `pm serve: new database: created an account; make its token with \`pm serve tokens create --database ${redacted(database, database)}\`\n`;

export const NEW_FILE = (dataFile: string) =>
  `pm serve: new data file: created an account and a token, written to ${tokenFileFor(dataFile)}\n`;

/**
 * The data file's store for a token or account command. A new file gets the same first-run set-up
 * whichever command opens it (an account, and its token written beside the file), so that the
 * embedded default and `pm serve` find it there later.
 */
async function openData(o: OnDataFile): Promise<Store> {
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
export async function withData(o: OnDataFile, fn: (store: Store) => Promise<void>): Promise<void> {
  const store = await openData(o);
  try {
    await fn(store);
  } finally {
    await store.close();
  }
}

/** Where a command's store is, in its messages. */
export const storeWord = (o: OnDataFile) => (o.database !== undefined ? 'database' : 'data file');
