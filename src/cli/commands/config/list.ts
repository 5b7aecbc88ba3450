/** `pm config list`, declared. */
import { Command } from 'commander';
import type { Factory } from '../../factory.js';
import { addDataFlags, dataFlagsOf } from '../../output/flags.js';
import type { ConfigListOptions } from './list-run.js';
import type { Run } from '../../command.js';

const RUN = async (o: ConfigListOptions) => (await import('./list-run.js')).configListRun(o);

export function newCmdConfigList(f: Factory, run: Run<ConfigListOptions> = RUN): Command {
  return addDataFlags(
    new Command('list').description('Show the effective settings of the active profile and where each comes from'),
    'print them as JSON',
  )
    .addHelpText(
      'after',
      `
Tokens are shown redacted (pm_…abcd), never in full.

Examples:
  pm config list
  pm --profile work config list --json`,
    )
    .action((opts: { json?: string | true; jq?: string }) => run({ f, output: dataFlagsOf(opts) }));
}
