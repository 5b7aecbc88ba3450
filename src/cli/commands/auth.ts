/**
 * `pm auth login|status|logout`, declared: typed options and constructors; the work is in
 * auth-run.ts, loaded when a command runs. A token is never taken as an argument.
 */
import { Command } from 'commander';
import { adopt } from '../command.js';
import type { Factory } from '../factory.js';

export interface AuthLoginOptions {
  readonly f: Factory;
  /** Read the token from standard input (else a prompt without echo). */
  readonly withToken: boolean;
  /** Check the token against the server before storing it. */
  readonly verify: boolean;
}

export interface AuthStatusOptions {
  readonly f: Factory;
  readonly json: boolean;
  /** Do not ask the server. */
  readonly offline: boolean;
}

export interface AuthLogoutOptions {
  readonly f: Factory;
}

const run = () => import('./auth-run.js');
const RUNS = {
  login: async (o: AuthLoginOptions) => (await run()).authLoginRun(o),
  status: async (o: AuthStatusOptions) => (await run()).authStatusRun(o),
  logout: async (o: AuthLogoutOptions) => (await run()).authLogoutRun(o),
};
export type AuthRuns = typeof RUNS;

export const AUTH_COMMANDS = { auth: 'Log in to a server, see which one pm uses, log out' };

export function newCmdAuth(f: Factory, runs: AuthRuns = RUNS): Command {
  const auth = new Command('auth').description(AUTH_COMMANDS.auth).addHelpText(
    'after',
    `
Examples:
  pm auth login --base-url https://pm.example.com
  pm auth status
  PM_BASE_URL=https://pm.example.com PM_TOKEN=$TOKEN pm auth status    # in CI: no login needed`,
  );

  auth
    .command('login')
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
      runs.login({ f, withToken: opts.withToken === true, verify: opts.verify }),
    );

  auth
    .command('status')
    .description('Show which server and profile pm uses, and where the token comes from (never the token)')
    .option('--json', 'print JSON')
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
    .action((opts: { json?: boolean; offline?: boolean }) =>
      runs.status({ f, json: opts.json === true, offline: opts.offline === true }),
    );

  auth
    .command('logout')
    .description("Remove the active profile's stored token")
    .addHelpText(
      'after',
      `
The token is removed from the user config only: it is not revoked on the server.

Examples:
  pm auth logout
  pm --profile work auth logout`,
    )
    .action(() => runs.logout({ f }));
  return auth;
}

export function registerAuth(program: Command, f: Factory): void {
  adopt(program, newCmdAuth(f));
}
