/** `pm auth login`, declared. */
import { Command } from 'commander';
import type { Factory } from '../../factory.js';
import type { AuthLoginOptions } from './login-run.js';
import type { Run } from '../../command.js';

const RUN = async (o: AuthLoginOptions) => (await import('./login-run.js')).authLoginRun(o);

export function newCmdAuthLogin(f: Factory, run: Run<AuthLoginOptions> = RUN): Command {
  return new Command('login')
    .description('Store a token for a server (in the user config, mode 0600)')
    .option('--with-token', 'read the token from standard input')
    .option('--no-verify', 'store the token without checking it against the server')
    .addHelpText(
      'after',
      `
The token is never taken as an argument: pm asks for it without echo, or reads it from stdin.

Examples:
  pm auth login --base-url https://pm.example.com
  echo "$PM_TOKEN" | pm auth login --base-url https://pm.example.com --with-token
  pm --profile work auth login --base-url https://pm.work.example`,
    )
    .action((opts: { withToken?: boolean; verify: boolean }) =>
      run({ f, withToken: opts.withToken === true, verify: opts.verify }),
    );
}
