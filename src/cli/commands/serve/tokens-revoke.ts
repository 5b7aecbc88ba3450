/** `pm serve tokens revoke <id>`, declared. */
import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import { DATA_HELP, DATA_OPTION, DATABASE_HELP, DATABASE_OPTION, storeOf } from './store.js';
import { commandOf, type Run } from '../../command.js';
import type { Factory } from '../../factory.js';
import type { TokensRevokeOptions } from './tokens-revoke-run.js';

const RUN = async (o: TokensRevokeOptions) => (await import('./tokens-revoke-run.js')).tokensRevokeRun(o);

export function newCmdServeTokensRevoke(f: Factory, run: Run<TokensRevokeOptions> = RUN): Command {
  return commandOf('revoke <id>')
    .description('Revoke a token by its id (see pm serve tokens list)')
    .option(DATA_OPTION, DATA_HELP)
    .option(DATABASE_OPTION, DATABASE_HELP)
    .addHelpText(
      'after',
      `
Examples:
  pm serve tokens revoke 3
  pm serve tokens revoke 3 --data /srv/pm/team.db`,
    )
    .action((id: string, _opts: unknown, cmd: Command) => {
      if (!/^\d+$/.test(id)) throw usageError(`<id> must be a token id number, not "${id}".`);
      return run({ f, ...storeOf(f, cmd), id: Number(id) });
    });
}
