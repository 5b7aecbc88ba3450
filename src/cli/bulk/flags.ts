/** The flags of bulk writes, declared without loading the bulk machinery. */
import type { Command } from 'commander';
import { usageError } from '../errors.js';

export type Verb = 'create' | 'update' | 'delete';

const DEFAULT_CONCURRENCY = 4;
const MAX_CONCURRENCY = 32;

/** How the records of a file are read and sent: flags of the bulk writes and of apply. */
export const addSendFlags = (cmd: Command): Command =>
  cmd
    .option('--format <format>', 'the file format when its name does not say: ndjson, json or csv')
    .option('--concurrency <n>', `requests in flight at once (1-${MAX_CONCURRENCY}, default ${DEFAULT_CONCURRENCY})`)
    .option('--failed <file>', 'write every record that did not go through here, with the reason, for a second run');

/** Adds the bulk flags to a write command; `key`: the fields --skip-existing's help gives as an example. */
export function addBulkFlags(cmd: Command, verb: Verb, key = ''): void {
  addSendFlags(cmd.option('--from-file <file>', `${verb} from NDJSON, a JSON array or CSV (- for stdin)`));
  if (verb !== 'delete')
    cmd.option('--validate-only', 'check every record of --from-file, list every problem, and send nothing');
  if (verb === 'create')
    cmd.option(
      '--skip-existing <fields>',
      `skip records that match an existing one on these fields${key ? ` (e.g. ${key})` : ''}, so a re-run creates nothing twice`,
    );
}

/** How the records of a file are read and sent (--format, --concurrency, --failed), checked. */
export interface SendOptions {
  /** The file format, when its name does not say it. */
  readonly format?: string | undefined;
  readonly concurrency: number;
  /** Where the records that did not go through are written. */
  readonly failedFile?: string | undefined;
}

function concurrencyOf(v: unknown): number {
  if (v === undefined) return DEFAULT_CONCURRENCY;
  const s = String(v);
  if (!/^\d+$/.test(s) || Number(s) < 1 || Number(s) > MAX_CONCURRENCY)
    throw usageError(`--concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}, not "${s}".`);
  return Number(s);
}

/** The send flags among a command's parsed flags (addSendFlags declared them). */
export function sendOptionsOf(flags: { format?: unknown; concurrency?: unknown; failed?: unknown }): SendOptions {
  return {
    format: flags.format === undefined ? undefined : String(flags.format),
    concurrency: concurrencyOf(flags.concurrency),
    failedFile: flags.failed === undefined ? undefined : String(flags.failed),
  };
}
