/** `pm auth status`, declared. */
import { Command } from 'commander';
import type { Factory } from '../../factory.js';
import { addDataFlags, dataFlagsOf } from '../../output/flags.js';
import type { AuthStatusOptions } from './status-run.js';
import type { Run } from '../../command.js';

const RUN = async (o: AuthStatusOptions) => (await import('./status-run.js')).authStatusRun(o);

export function newCmdAuthStatus(f: Factory, run: Run<AuthStatusOptions> = RUN): Command {
  return addDataFlags(
    new Command('status').description(
      'Show which server and profile pm uses, and where the token comes from (never the token)',
    ),
  )
    .option('--offline', 'do not check the token against the server')
    .addHelpText(
      'after',
      `
Exits 0 when the token is accepted, 4 when there is none or the server refuses it, 5 when the
server cannot be reached.

Examples:
  pm auth status
  pm --profile work auth status --json
  pm auth status --offline          # where settings come from, without asking the server`,
    )
    .action((opts: { json?: string | true; jq?: string; offline?: boolean }) =>
      run({ f, output: dataFlagsOf(opts), offline: opts.offline === true }),
    );
}
