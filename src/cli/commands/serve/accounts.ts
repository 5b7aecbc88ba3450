/** `pm serve accounts create`: the group. */
import { Command } from 'commander';
import { adopt } from '../../command.js';
import type { Factory } from '../../factory.js';
import { newCmdServeAccountsCreate } from './accounts-create.js';
import type { ServeRuns } from './runs.js';

export function newCmdServeAccounts(f: Factory, runs: Partial<ServeRuns> = {}): Command {
  const accounts = new Command('accounts').description('Manage the accounts of a data file');
  adopt(accounts, newCmdServeAccountsCreate(f, runs.accountsCreate));
  return accounts;
}
