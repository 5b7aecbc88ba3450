/** `pm serve tokens create|list|revoke`: the group, a module pair per leaf command. */
import type { Command } from 'commander';
import { group } from '../../command.js';
import type { Factory } from '../../factory.js';
import type { ServeRuns } from './runs.js';
import { newCmdServeTokensCreate } from './tokens-create.js';
import { newCmdServeTokensList } from './tokens-list.js';
import { newCmdServeTokensRevoke } from './tokens-revoke.js';

export function newCmdServeTokens(f: Factory, runs: Partial<ServeRuns> = {}): Command {
  return group(
    'tokens',
    'Manage the API tokens of a data file',
    [
      newCmdServeTokensCreate(f, runs.tokensCreate),
      newCmdServeTokensList(f, runs.tokensList),
      newCmdServeTokensRevoke(f, runs.tokensRevoke),
    ],
    `
Examples:
  pm serve tokens create --name ci --scopes reminders.read,reminders.write
  pm serve tokens list --data /srv/pm/team.db
  pm serve tokens revoke 3`,
  );
}
