/**
 * A data file opened for serving: its store, its first-use bootstrap, and the token kept beside
 * it (`<data file>.token`, mode 0600) for the CLI's embedded default and `pm serve`'s first run.
 */
import { existsSync, lstatSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { tokenFileFor } from '../core/paths.js';
import { ALL_SCOPES } from '../resources/index.js';
import type { SqliteStore } from './sqlite/index.js';

/** Opens (creating and migrating it when needed) the data file: SQLite. */
export { openSqliteStore as openStore } from './sqlite/index.js';

/**
 * Where uploads wait for their transaction by default (spool.ts): beside the data file, on the
 * disk their bytes are going to (the system's temporary directory may be memory: tmpfs); the
 * system's temporary directory for a database in memory.
 */
export function uploadDirOf(dataFile: string): string {
  // node:os only then: loading it costs every run on the embedded default.
  return dataFile === ':memory:' || dataFile === ''
    ? process.getBuiltinModule('node:os').tmpdir()
    : dirname(resolve(dataFile));
}

/**
 * Refuses a secret file that is there and not this user's own: a link, another owner's, or one
 * others can read or write (planted in a shared folder, say). Never written through, never read.
 */
function checkSecretFile(path: string): void {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  const uid = process.getuid?.();
  const why = st.isSymbolicLink()
    ? 'it is a symbolic link'
    : !st.isFile()
      ? 'it is not a regular file'
      : uid !== undefined && st.uid !== uid
        ? `it belongs to another user (uid ${st.uid})`
        : (st.mode & 0o077) !== 0
          ? `others may read or write it (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')})`
          : undefined;
  if (why)
    throw new Error(
      `refusing to write the token to ${path}: ${why}. Remove it, or give the data file a folder of your own`,
    );
}

/**
 * Writes a secret readable by its owner only: to a new file in the same folder (created
 * exclusively, mode 0600), then renamed over the old one, so it is never written through a link
 * and never left with another file's mode.
 */
function writeSecretFile(path: string, content: string): void {
  checkSecretFile(path);
  const tmp = `${path}.${process.pid}.${process.getBuiltinModule('node:crypto').randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(tmp, `${content}\n`, { flag: 'wx', mode: 0o600 });
  try {
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * On first use of a data file, creates an account, its first user and a full-scope token, and
 * writes the token beside the data file (mode 0600). Returns the token when one was written.
 * With `ensure`, also writes a fresh token when the file beside the data is missing.
 */
export function bootstrap(store: SqliteStore, opts: { ensure?: boolean } = {}): string | undefined {
  const tokenFile = tokenFileFor(store.file);
  if (store.file !== ':memory:') checkSecretFile(tokenFile);
  // The file is written before the transaction commits: whoever opens the data file next (another
  // process starting at the same moment) finds the account and its token file together.
  return store.write(() => {
    const first = store.firstUser();
    if (first && (!opts.ensure || existsSync(tokenFile))) return undefined;
    const owner = first ?? store.createAccount('default');
    const made = store.createToken(owner.userId, first ? 'local (renewed)' : 'local', ALL_SCOPES).token;
    if (store.file !== ':memory:') writeSecretFile(tokenFile, made);
    return made;
  });
}

export function readLocalToken(dataFile: string): string | undefined {
  try {
    const t = readFileSync(tokenFileFor(dataFile), 'utf8').trim();
    return t || undefined;
  } catch {
    return undefined;
  }
}
