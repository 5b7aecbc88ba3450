/** `pm <resource> feed create --name NAME`, declared. */
import type { Command } from 'commander';
import type { ResourceDef } from '../../../resources/types.js';
import { commandOf, type Run } from '../../command.js';
import type { Factory } from '../../factory.js';
import { addDataFlags, dataFlagsOf } from '../../output/flags.js';
import type { FeedCreateOptions } from './create-run.js';

const RUN = async (o: FeedCreateOptions) => (await import('./create-run.js')).feedCreateRun(o);

export function newCmdFeedCreate(f: Factory, r: ResourceDef, run: Run<FeedCreateOptions> = RUN): Command {
  return addDataFlags(
    commandOf('create').description('Make a calendar feed and print its URL (shown this once)'),
    'print the feed as JSON (its url included)',
  )
    .requiredOption('--name <name>', 'what the feed is for, e.g. "My phone"')
    .addHelpText(
      'after',
      `
The URL goes to stdout, alone on its line; what to do with it, to stderr. On the embedded
default, nothing is made: a calendar app needs a server it can reach.

Examples:
  pm ${r.path} feed create --name "My phone"
  pm ${r.path} feed create --name "Family calendar" --json`,
    )
    .action((flags: { name: string; json?: string | true; jq?: string }) =>
      run({ f, resource: r, name: flags.name, output: dataFlagsOf(flags) }),
    );
}
