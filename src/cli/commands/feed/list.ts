/** `pm <resource> feed list`, declared. */
import type { Command } from 'commander';
import type { ResourceDef } from '../../../resources/types.js';
import { commandOf, type Run } from '../../command.js';
import type { Factory } from '../../factory.js';
import { addDataFlags, dataFlagsOf } from '../../output/flags.js';
import type { FeedListOptions } from './list-run.js';

const RUN = async (o: FeedListOptions) => (await import('./list-run.js')).feedListRun(o);

export function newCmdFeedList(f: Factory, r: ResourceDef, run: Run<FeedListOptions> = RUN): Command {
  return addDataFlags(
    commandOf('list').description('List the calendar feeds of the account (without their URLs)'),
    'print JSON',
  )
    .addHelpText(
      'after',
      `
Examples:
  pm ${r.path} feed list
  pm ${r.path} feed list --json`,
    )
    .action((flags: { json?: string | true; jq?: string }) => run({ f, output: dataFlagsOf(flags) }));
}
