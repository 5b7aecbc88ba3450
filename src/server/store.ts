/** A data file opened for serving: the database, its repository, and its first-use bootstrap. */
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { ALL_SCOPES } from '../resources/index.js';
import { tokenFileFor } from '../core/paths.js';
import { type DB, openDatabase } from './db.js';
import { Repository } from './repository.js';

export interface Store {
  readonly db: DB;
  readonly repo: Repository;
  readonly file: string;
  close(): void;
}

export function openStore(file: string, now: () => number = Date.now): Store {
  const db = openDatabase(file);
  const repo = new Repository(db, now);
  return { db, repo, file, close: () => db.close() };
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
export function bootstrap(store: Store, opts: { ensure?: boolean } = {}): string | undefined {
  const tokenFile = tokenFileFor(store.file);
  const made = store.repo.write(() => {
    const first = store.repo.firstUser();
    if (first && (!opts.ensure || existsSync(tokenFile))) return undefined;
    const owner = first ?? store.repo.createAccount('default');
    return store.repo.createToken(owner.userId, first ? 'local (renewed)' : 'local', ALL_SCOPES).token;
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
