/** `pm serve accounts list`, declared. */
import type { Command } from 'commander';
import { DATA_HELP, DATA_OPTION, DATABASE_HELP, DATABASE_OPTION, storeOf } from './store.js';
import { commandOf, type Run } from '../../command.js';
import type { Factory } from '../../factory.js';
import { addDataFlags, dataFlagsOf } from '../../output/flags.js';
import type { AccountsListOptions } from './accounts-list-run.js';
import { sizeFlag } from '../shared.js';

const RUN = async (o: AccountsListOptions) => (await import('./accounts-list-run.js')).accountsListRun(o);

export function newCmdServeAccountsList(f: Factory, run: Run<AccountsListOptions> = RUN): Command {
  return addDataFlags(
    commandOf('list').description('List the accounts of a data file and the bytes of files each keeps'),
    'print JSON',
  )
    .option('--quota <size>', 'the quota pm serve is given (--quota): each account shown against it')
    .option(DATA_OPTION, DATA_HELP)
    .option(DATABASE_OPTION, DATABASE_HELP)
    .addHelpText(
      'after',
      `
One account a line: id, name, its files and the bytes they take (with --quota, the share of it).

Examples:
  pm serve accounts list
  pm serve accounts list --quota 10GiB --data /srv/pm/team.db --json`,
    )
    .action((opts: { json?: string | true; jq?: string }, cmd: Command) =>
      run({
        f,
        ...storeOf(f, cmd),
        output: dataFlagsOf(opts),
        // pm serve's own --quota, given after `accounts list` or before it.
        quotaBytes: sizeFlag('--quota', (cmd.optsWithGlobals() as { quota?: string }).quota),
      }),
    );
}
