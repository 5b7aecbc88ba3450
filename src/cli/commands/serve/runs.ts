/** The run functions of `pm serve` and its subcommands, as their constructors take them. */
import type { AccountsCreateOptions } from './accounts-create-run.js';
import type { ServeOptions } from './serve-run.js';
import type { TokensCreateOptions } from './tokens-create-run.js';
import type { TokensListOptions } from './tokens-list-run.js';
import type { TokensRevokeOptions } from './tokens-revoke-run.js';

/** The run functions of pm serve and its subcommands, each replaceable (tests record what they are given). */
export interface ServeRuns {
  readonly serve: (o: ServeOptions) => Promise<void>;
  readonly tokensCreate: (o: TokensCreateOptions) => Promise<void>;
  readonly tokensList: (o: TokensListOptions) => Promise<void>;
  readonly tokensRevoke: (o: TokensRevokeOptions) => Promise<void>;
  readonly accountsCreate: (o: AccountsCreateOptions) => Promise<void>;
}
