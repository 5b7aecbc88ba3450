/** The store a `pm serve` command works on: --data or --database, declared and checked once. */
import { defaultDataFile } from '../../../core/paths.js';
import { printableUrl } from '../../../core/redact.js';
import { usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import type { Command } from 'commander';

/**
 * What every command on a store is given: the factory, and the store: a PostgreSQL database
 * (`database`, its URL) or else the SQLite data file.
 */
export interface OnDataFile {
  readonly f: Factory;
  readonly dataFile: string;
  readonly database?: string | undefined;
}

/**
 * The store a command works on: --database (or PM_DATABASE_URL), else --data (or the default data
 * file); each given before or after the subcommand (`pm serve --data F tokens list` or
 * `pm serve tokens list --data F`). --data with --database is a usage error; --data given wins
 * over PM_DATABASE_URL.
 */
export function storeOf(f: Factory, cmd: Command): Omit<OnDataFile, 'f'> {
  const given = cmd.optsWithGlobals() as { data?: string; database?: string };
  if (given.data !== undefined && given.database !== undefined)
    throw usageError('--data and --database name two stores: give one of them.', DATABASE_HINT);
  const database = given.database ?? (given.data === undefined ? f.env.PM_DATABASE_URL || undefined : undefined);
  if (database !== undefined && !/^postgres(ql)?:\/\//i.test(database))
    throw usageError(`--database must be a postgres:// URL, not "${printableUrl(database)}".`, DATABASE_HINT);
  return { dataFile: given.data ?? defaultDataFile(f.env, f.home), database };
}

const DATABASE_HINT = 'For example: --database postgres://pm@db.example.com:5432/pm?sslmode=require';

export const DATA_OPTION = '--data <file>';
export const DATA_HELP = 'SQLite data file (default: the embedded default data file)';
export const DATABASE_OPTION = '--database <url>';
export const DATABASE_HELP =
  'PostgreSQL database URL, instead of a data file (default: $PM_DATABASE_URL: prefer it, as a URL on the command line shows in ps)';
