/** `pm serve tokens list`, declared. */
import type { Command } from 'commander';
import { DATA_HELP, DATA_OPTION, DATABASE_HELP, DATABASE_OPTION, storeOf } from './store.js';
import { commandOf, type Run } from '../../command.js';
import type { Factory } from '../../factory.js';
import { addDataFlags, dataFlagsOf } from '../../output/flags.js';
import type { TokensListOptions } from './tokens-list-run.js';

const RUN = async (o: TokensListOptions) => (await import('./tokens-list-run.js')).tokensListRun(o);

export function newCmdServeTokensList(f: Factory, run: Run<TokensListOptions> = RUN): Command {
  return addDataFlags(
    commandOf('list').description('List the tokens of a data file (never the tokens themselves)'),
    'print JSON',
  )
    .option(DATA_OPTION, DATA_HELP)
    .option(DATABASE_OPTION, DATABASE_HELP)
    .addHelpText(
      'after',
      `
One token a line: id, name, account, the last characters, active or revoked, scopes.

Examples:
  pm serve tokens list
  pm serve tokens list --data /srv/pm/team.db --json`,
    )
    .action((opts: { json?: string | true; jq?: string }, cmd: Command) =>
      run({ f, ...storeOf(f, cmd), output: dataFlagsOf(opts) }),
    );
}
