/**
 * `pm auth login|status|logout`: the group; each leaf command is a module pair here (login.ts,
 * login-run.ts...), its run loaded when it runs. A token is never taken as an argument.
 */
import { Command } from 'commander';
import { adopt } from '../../command.js';
import type { Factory } from '../../factory.js';
import { newCmdAuthLogin } from './login.js';
import type { AuthLoginOptions } from './login-run.js';
import { newCmdAuthLogout } from './logout.js';
import type { AuthLogoutOptions } from './logout-run.js';
import { newCmdAuthStatus } from './status.js';
import type { AuthStatusOptions } from './status-run.js';

/** The run functions of the auth commands, each replaceable (tests record what they are given). */
export interface AuthRuns {
  readonly login: (o: AuthLoginOptions) => Promise<void>;
  readonly status: (o: AuthStatusOptions) => Promise<void>;
  readonly logout: (o: AuthLogoutOptions) => Promise<void>;
}

export const AUTH_COMMANDS = { auth: 'Log in to a server, see which one pm uses, log out' };

export function newCmdAuth(f: Factory, runs: Partial<AuthRuns> = {}): Command {
  const auth = new Command('auth').description(AUTH_COMMANDS.auth).addHelpText(
    'after',
    `
Examples:
  pm auth login --base-url https://pm.example.com
  pm auth status
  PM_BASE_URL=https://pm.example.com PM_TOKEN=$TOKEN pm auth status    # in CI: no login needed`,
  );

  adopt(auth, newCmdAuthLogin(f, runs.login));
  adopt(auth, newCmdAuthStatus(f, runs.status));
  adopt(auth, newCmdAuthLogout(f, runs.logout));
  return auth;
}

export function registerAuth(program: Command, f: Factory): void {
  adopt(program, newCmdAuth(f));
}
