/**
 * Where pm keeps its files, following the XDG base directories. Pure: the environment and the
 * home directory are passed in.
 */
import { join } from 'node:path';

export interface PathEnv {
  readonly XDG_DATA_HOME?: string | undefined;
  readonly XDG_CONFIG_HOME?: string | undefined;
  readonly XDG_CACHE_HOME?: string | undefined;
}

/** XDG_DATA_HOME/pm, else ~/.local/share/pm. */
export function dataDir(env: PathEnv, home: string): string {
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'pm');
}

/** XDG_CONFIG_HOME/pm, else ~/.config/pm. */
export function configDir(env: PathEnv, home: string): string {
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'pm');
}

/** XDG_CACHE_HOME/pm, else ~/.cache/pm. */
export function cacheDir(env: PathEnv, home: string): string {
  return join(env.XDG_CACHE_HOME || join(home, '.cache'), 'pm');
}

export function defaultDataFile(env: PathEnv, home: string): string {
  return join(dataDir(env, home), 'pm.db');
}

/** The file beside a data file that holds the token of its first user (mode 0600). */
export function tokenFileFor(dataFile: string): string {
  return `${dataFile}.token`;
}
