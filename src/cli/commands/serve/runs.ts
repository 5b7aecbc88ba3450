/** The run functions of `pm serve` and its subcommands, as their constructors take them. */
import type { AccountsCreateOptions } from './accounts-create-run.js';
import type { AccountsListOptions } from './accounts-list-run.js';
import type { ServeOptions } from './serve-run.js';
import type { TokensCreateOptions } from './tokens-create-run.js';
import type { TokensListOptions } from './tokens-list-run.js';
import type { TokensRevokeOptions } from './tokens-revoke-run.js';
import type { Run } from '../../command.js';

/** The run functions of pm serve and its subcommands, each replaceable (tests record what they are given). */
export interface ServeRuns {
  readonly serve: Run<ServeOptions>;
  readonly tokensCreate: Run<TokensCreateOptions>;
  readonly tokensList: Run<TokensListOptions>;
  readonly tokensRevoke: Run<TokensRevokeOptions>;
  readonly accountsCreate: Run<AccountsCreateOptions>;
  readonly accountsList: Run<AccountsListOptions>;
}
