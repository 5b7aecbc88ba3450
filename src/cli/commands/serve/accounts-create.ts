/** `pm serve accounts create`, declared. */
import type { Command } from 'commander';
import { ALL_SCOPES } from '../../../resources/index.js';
import { commandOf, type Run } from '../../command.js';
import type { Factory } from '../../factory.js';
import type { AccountsCreateOptions } from './accounts-create-run.js';
import { DATA_HELP, DATA_OPTION, DATABASE_HELP, DATABASE_OPTION, storeOf } from './store.js';

const RUN = async (o: AccountsCreateOptions) => (await import('./accounts-create-run.js')).accountsCreateRun(o);

export function newCmdServeAccountsCreate(f: Factory, run: Run<AccountsCreateOptions> = RUN): Command {
  return commandOf('create')

    .description('Create an account with a user and a full-scope token; print the token')
    .requiredOption('--name <name>', 'the account name')
    .option(DATA_OPTION, DATA_HELP)
    .option(DATABASE_OPTION, DATABASE_HELP)
    .addHelpText(
      'after',
      `
Each account sees only its own records.

Examples:
  pm serve accounts create --name "Acme Lettings"
  token=$(pm serve accounts create --name team --data /srv/pm/team.db)`,
    )
    .action((opts: { name: string }, cmd: Command) =>
      run({ f, ...storeOf(f, cmd), name: opts.name, scopes: ALL_SCOPES }),
    );
}
