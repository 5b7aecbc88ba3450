/**
 * The bulk form of create, update and delete (`--from-file`, uuids on stdin), as their
 * constructors hand it over: the bulk flags read into typed options, and the run loaded lazily.
 */
import type { ResourceDef } from '../../../resources/types.js';
import { sendOptionsOf, type Verb } from '../../bulk/flags.js';
import type { Factory } from '../../factory.js';
import { dataFlagsOf } from '../../output/flags.js';
import type { BulkOptions } from './bulk-run.js';
import { type Flags, str } from './options.js';
import type { Run } from '../../command.js';

export type BulkRun = Run<BulkOptions>;

const BULK_RUN: BulkRun = async (o) => (await import('./bulk-run.js')).bulkRun(o);

/** The runs of a write command (create, update, delete): its own, under its verb, and the bulk one for --from-file. */
export type WithBulk<K extends string, O> = Readonly<Record<K, Run<O>>> & { readonly bulk: BulkRun };

/** A write command's own run, with the bulk run beside it. */
export function withBulk<K extends string, O>(own: Readonly<Record<K, Run<O>>>): WithBulk<K, O> {
  return { ...own, bulk: BULK_RUN };
}

/** What the bulk flags of a write say, checked (--concurrency) before anything is read or sent. */
export function bulkOptionsOf(f: Factory, r: ResourceDef, verb: Verb, fromFile: string | undefined, flags: Flags) {
  const output = flags.output === 'json' || flags.output === 'ndjson' ? flags.output : undefined;
  const options: BulkOptions = {
    f,
    resource: r,
    verb,
    fromFile,
    flags,
    yes: flags.yes === true,
    skipExisting: str(flags.skipExisting),
    validateOnly: flags.validateOnly === true,
    send: sendOptionsOf(flags),
    output: flags.quiet ? 'quiet' : flags.json !== undefined || flags.jq !== undefined ? 'json' : output,
    dataOutput: dataFlagsOf(flags),
  };
  return options;
}
