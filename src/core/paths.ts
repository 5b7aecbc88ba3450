/**
 * Where pm keeps its files, following the XDG base directories. Pure: the environment and the
 * home directory are passed in.
 */
import { join } from 'node:path';

interface PathEnv {
  readonly XDG_DATA_HOME?: string | undefined;
  readonly XDG_CONFIG_HOME?: string | undefined;
  readonly XDG_CACHE_HOME?: string | undefined;
}

/** `<dir>/pm`, or `<home>/<fallback>/pm` when the XDG variable is unset or empty. */
const pmDir = (dir: string | undefined, home: string, ...fallback: string[]) =>
  join(dir || join(home, ...fallback), 'pm');

const dataDir = (env: PathEnv, home: string): string => pmDir(env.XDG_DATA_HOME, home, '.local', 'share');
export const configDir = (env: PathEnv, home: string): string => pmDir(env.XDG_CONFIG_HOME, home, '.config');
export const cacheDir = (env: PathEnv, home: string): string => pmDir(env.XDG_CACHE_HOME, home, '.cache');

export function defaultDataFile(env: PathEnv, home: string): string {
  return join(dataDir(env, home), 'pm.db');
}

/** The file beside a data file that holds the token of its first user (mode 0600). */
export function tokenFileFor(dataFile: string): string {
  return `${dataFile}.token`;
}
