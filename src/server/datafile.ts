/**
 * A data file opened for serving: its store, its first-use bootstrap, and the token kept beside
 * it (`<data file>.token`, mode 0600) for the CLI's embedded default and `pm serve`'s first run.
 */
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { tokenFileFor } from '../core/paths.js';
import { ALL_SCOPES } from '../resources/index.js';
import { openSqliteStore, type SqliteStore } from './sqlite/index.js';
import type { SyncStore } from './store.js';

/** A store kept in a local data file, beside which its local token is written. */
export interface DataFileStore extends SyncStore {
  /** The data file, or ":memory:" (then no token file is written). */
  readonly file: string;
}

/** Opens (creating and migrating it when needed) the data file: SQLite. */
export function openStore(file: string, now: () => number = Date.now): SqliteStore {
  return openSqliteStore(file, now);
}

/** Writes a secret to a new file readable by its owner only. */
function writeSecretFile(path: string, content: string): void {
  const fd = openSync(path, 'w', 0o600);
  try {
    writeSync(fd, `${content}\n`);
  } finally {
    closeSync(fd);
  }
}

/**
 * On first use of a data file, creates an account, its first user and a full-scope token, and
 * writes the token beside the data file (mode 0600). Returns the token when one was written.
 * With `ensure`, also writes a fresh token when the file beside the data is missing.
 */
export function bootstrap(store: DataFileStore, opts: { ensure?: boolean } = {}): string | undefined {
  const tokenFile = tokenFileFor(store.file);
  const made = store.write(() => {
    const first = store.firstUser();
    if (first && (!opts.ensure || existsSync(tokenFile))) return undefined;
    const owner = first ?? store.createAccount('default');
    return store.createToken(owner.userId, first ? 'local (renewed)' : 'local', ALL_SCOPES).token;
  });
  if (made && store.file !== ':memory:') writeSecretFile(tokenFile, made);
  return made;
}

/** Reads the token written beside a data file, if any. */
export function readLocalToken(dataFile: string): string | undefined {
  try {
    const t = readFileSync(tokenFileFor(dataFile), 'utf8').trim();
    return t || undefined;
  } catch {
    return undefined;
  }
}
