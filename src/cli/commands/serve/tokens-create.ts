/** `pm serve tokens create`, declared. */
import type { Command } from 'commander';
import { ALL_SCOPES } from '../../../resources/index.js';
import { usageError } from '../../errors.js';
import { DATA_HELP, DATA_OPTION, DATABASE_HELP, DATABASE_OPTION, storeOf } from './store.js';
import { commandOf, type Run } from '../../command.js';
import type { Factory } from '../../factory.js';
import type { TokensCreateOptions } from './tokens-create-run.js';

const RUN = async (o: TokensCreateOptions) => (await import('./tokens-create-run.js')).tokensCreateRun(o);

function parseScopes(text: string): string[] {
  if (text === 'all') return [...ALL_SCOPES];
  const scopes = text.split(/[,\s]+/).filter(Boolean);
  const bad = scopes.filter((s) => !ALL_SCOPES.includes(s));
  if (bad.length || !scopes.length)
    throw usageError(
      `--scopes: unknown scope ${bad.map((b) => `"${b}"`).join(', ') || '(none given)'}.`,
      `Valid scopes: ${ALL_SCOPES.join(', ')}, or "all".`,
    );
  return scopes;
}

export function newCmdServeTokensCreate(f: Factory, run: Run<TokensCreateOptions> = RUN): Command {
  return commandOf('create')
    .description('Create a token and print it (it is shown only once)')
    .option('--scopes <list>', `comma-separated scopes, or "all" (${ALL_SCOPES.join(', ')})`, 'all')
    .option('--name <name>', 'a name to recognise the token by', 'token')
    .option('--account <id>', 'account id (default: the first account)')
    .option(DATA_OPTION, DATA_HELP)
    .option(DATABASE_OPTION, DATABASE_HELP)
    .addHelpText(
      'after',
      `
Examples:
  pm serve tokens create --name ci --scopes reminders.read,reminders.write
  pm serve tokens create --data /srv/pm/team.db --name alice > alice.token`,
    )
    .action((opts: { scopes: string; name: string; account?: string }, cmd: Command) => {
      const scopes = parseScopes(opts.scopes);
      if (opts.account !== undefined && !/^\d+$/.test(opts.account))
        throw usageError(`--account must be an account id number, not "${opts.account}".`);
      return run({
        f,
        ...storeOf(f, cmd),
        scopes,
        name: opts.name,
        account: opts.account === undefined ? undefined : Number(opts.account),
      });
    });
}
