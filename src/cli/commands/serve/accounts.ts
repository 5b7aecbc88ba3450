/** `pm serve accounts create|list`: the group. */
import type { Command } from 'commander';
import { group } from '../../command.js';
import type { Factory } from '../../factory.js';
import { newCmdServeAccountsCreate } from './accounts-create.js';
import { newCmdServeAccountsList } from './accounts-list.js';
import type { ServeRuns } from './runs.js';

export function newCmdServeAccounts(f: Factory, runs: Partial<ServeRuns> = {}): Command {
  return group('accounts', 'Manage the accounts of a data file', [
    newCmdServeAccountsCreate(f, runs.accountsCreate),
    newCmdServeAccountsList(f, runs.accountsList),
  ]);
}
