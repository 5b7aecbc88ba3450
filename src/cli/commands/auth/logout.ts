/** `pm auth logout`, declared. */
import { Command } from 'commander';
import type { Factory } from '../../factory.js';
import type { AuthLogoutOptions } from './logout-run.js';
import type { Run } from '../../command.js';

const RUN = async (o: AuthLogoutOptions) => (await import('./logout-run.js')).authLogoutRun(o);

export function newCmdAuthLogout(f: Factory, run: Run<AuthLogoutOptions> = RUN): Command {
  return new Command('logout')
    .description("Remove the active profile's stored token")
    .addHelpText(
      'after',
      `
The token is removed from the user config only: it is not revoked on the server.

Examples:
  pm auth logout
  pm --profile work auth logout`,
    )
    .action(() => run({ f }));
}
