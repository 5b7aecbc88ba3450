/**
 * `pm auth login|status|logout`: the group; each leaf command is a module pair here (login.ts,
 * login-run.ts...), its run loaded when it runs. A token is never taken as an argument.
 */
import type { Command } from 'commander';
import { adopt, group, type Run } from '../../command.js';
import type { Factory } from '../../factory.js';
import { newCmdAuthLogin } from './login.js';
import type { AuthLoginOptions } from './login-run.js';
import { newCmdAuthLogout } from './logout.js';
import type { AuthLogoutOptions } from './logout-run.js';
import { newCmdAuthStatus } from './status.js';
import type { AuthStatusOptions } from './status-run.js';

/** The run functions of the auth commands, each replaceable (tests record what they are given). */
export interface AuthRuns {
  readonly login: Run<AuthLoginOptions>;
  readonly status: Run<AuthStatusOptions>;
  readonly logout: Run<AuthLogoutOptions>;
}

export const AUTH_COMMANDS = { auth: 'Log in to a server, see which one pm uses, log out' };

export function newCmdAuth(f: Factory, runs: Partial<AuthRuns> = {}): Command {
  return group(
    'auth',
    AUTH_COMMANDS.auth,
    [newCmdAuthLogin(f, runs.login), newCmdAuthStatus(f, runs.status), newCmdAuthLogout(f, runs.logout)],
    `
Examples:
  pm auth login --base-url https://pm.example.com
  pm auth status
  PM_BASE_URL=https://pm.example.com PM_TOKEN=$TOKEN pm auth status    # in CI: no login needed`,
  );
}

export function registerAuth(program: Command, f: Factory): void {
  adopt(program, newCmdAuth(f));
}
