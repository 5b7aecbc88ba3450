/** `pm serve tokens create|list|revoke`: the group, a module pair per leaf command. */
import { Command } from 'commander';
import { adopt } from '../../command.js';
import type { Factory } from '../../factory.js';
import type { ServeRuns } from './runs.js';
import { newCmdServeTokensCreate } from './tokens-create.js';
import { newCmdServeTokensList } from './tokens-list.js';
import { newCmdServeTokensRevoke } from './tokens-revoke.js';

export function newCmdServeTokens(f: Factory, runs: Partial<ServeRuns> = {}): Command {
  const tokens = new Command('tokens').description('Manage the API tokens of a data file').addHelpText(
    'after',
    `
Examples:
  pm serve tokens create --name ci --scopes reminders.read,reminders.write
  pm serve tokens list --data /srv/pm/team.db
  pm serve tokens revoke 3`,
  );
  adopt(tokens, newCmdServeTokensCreate(f, runs.tokensCreate));
  adopt(tokens, newCmdServeTokensList(f, runs.tokensList));
  adopt(tokens, newCmdServeTokensRevoke(f, runs.tokensRevoke));
  return tokens;
}
