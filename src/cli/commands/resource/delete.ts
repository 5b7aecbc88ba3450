/** `pm <resource> delete [uuid...]`, declared: uuids, - for uuids on stdin, or --from-file. */
import type { Command } from 'commander';
import type { ResourceDef } from '../../../resources/types.js';
import { addBulkFlags } from '../../bulk/flags.js';
import { commandOf } from '../../command.js';
import { usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { checkName } from '../../flags.js';
import { examples } from '../../help/examples.js';
import { addDataFlags, dataFlagsOf } from '../../output/flags.js';
import { bulkOptionsOf, type WithBulk, withBulk } from './bulk.js';
import type { DeleteOptions } from './delete-run.js';
import { bulkFlagsAlone, type Flags, str } from './options.js';

const RUNS = withBulk({ delete: async (o: DeleteOptions) => (await import('./delete-run.js')).deleteRun(o) });

export function newCmdDelete(f: Factory, r: ResourceDef, runs: WithBulk<'delete', DeleteOptions> = RUNS): Command {
  const cmd = commandOf('delete [uuid...]')
    .alias('rm')
    .description(`Delete ${r.plural} by uuid`)
    .option('-y, --yes', 'do not ask for confirmation (needed in scripts and CI, where pm cannot ask)')
    .option('--dry-run', 'print the requests that would be sent, and send nothing')
    .option('-q, --quiet', 'print nothing but errors')
    .option('--ignore-not-found', 'a record already gone is not an error (exit 0), as kubectl does');
  addDataFlags(cmd, 'print the result as JSON: [{"uuid": …, "deleted": true}]');
  addBulkFlags(cmd, 'delete');
  cmd.addHelpText('after', examples(r, 'delete'));
  return cmd.action((uuids: string[], flags: Flags) => {
    const fromStdin = uuids.length === 1 && uuids[0] === '-';
    if (flags.fromFile !== undefined || fromStdin) {
      if (flags.fromFile !== undefined && uuids.length) throw usageError('give either uuids or --from-file, not both.');
      return runs.bulk(bulkOptionsOf(f, r, 'delete', str(flags.fromFile), flags));
    }
    if (!uuids.length) throw usageError('missing <uuid...> (or - to read uuids from stdin, or --from-file).');
    bulkFlagsAlone(flags);
    return runs.delete({
      f,
      resource: r,
      uuids: uuids.map((u) => checkName(r, u, '<uuid>')),
      yes: flags.yes === true,
      dryRun: flags.dryRun === true,
      quiet: flags.quiet === true,
      json: flags.json !== undefined || flags.jq !== undefined,
      output: dataFlagsOf(flags),
      ignoreNotFound: flags.ignoreNotFound === true,
    });
  });
}
