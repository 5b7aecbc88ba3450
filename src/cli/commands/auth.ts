/**
 * `pm auth login|status|logout`. A token is read from a prompt without echo or from stdin, never
 * from argv, and stored 0600 in the user config; status never prints it.
 */
import type { Command } from 'commander';
import { RESOURCES } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import type { Deps } from '../context.js';
import { CliError, EXIT, usageError } from '../errors.js';
import { globalsOf } from '../globals.js';
import { readStdin } from '../input.js';
import { describeApiError, interactive } from './shared.js';

export function registerAuth(program: Command, deps: Deps): void {
  const auth = program
    .command('auth')
    .description('Log in to a server, see which one pm uses, log out')
    .addHelpText(
      'after',
      `
Examples:
  pm auth login --base-url https://pm.example.com
  pm auth status
  PM_BASE_URL=https://pm.example.com PM_TOKEN=$TOKEN pm auth status    # in CI: no login needed`,
    );
  const { io } = deps;

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
    .action(async (opts: { withToken?: boolean; verify: boolean }, cmd: Command) => {
      const globals = globalsOf(cmd);
      const { resolveTarget, readUserConfig, writeUserConfig } = await import('../config.js');
      const target = await resolveTarget(
        {
          ...(globals.baseUrl ? { baseUrl: globals.baseUrl } : {}),
          ...(globals.profile ? { profile: globals.profile } : {}),
        },
        deps,
        { allowNewProfile: true },
      );
      const baseUrl = target.baseUrl;
      if (!baseUrl)
        throw usageError(
          'which server? Give --base-url URL (the embedded default needs no login).',
          'Example: pm auth login --base-url https://pm.example.com',
        );
      let token: string;
      if (opts.withToken) token = (await readStdin(deps)).trim().split(/\r?\n/)[0] ?? '';
      else if (interactive(deps, globals) && deps.prompter)
        token = (await deps.prompter.secret(`Token for ${baseUrl}: `)).trim();
      else
        throw usageError(
          'no terminal to ask for the token: pipe it in with --with-token.',
          `Example: echo "$TOKEN" | pm auth login --base-url ${baseUrl} --with-token`,
        );
      if (!token) throw usageError('the token is empty.');
      if (/\s/.test(token)) throw usageError('the token contains white space; paste it as one word.');

      if (opts.verify) {
        const [{ HttpClient }, { httpOptions }] = await Promise.all([
          import('../../client/http.js'),
          import('../session.js'),
        ]);
        let http: InstanceType<typeof HttpClient> | undefined;
        try {
          http = new HttpClient({ baseUrl, token, ...httpOptions(globals, deps, target) });
          // Any list the token may read proves it; the first resource's is as good as any.
          const probe = RESOURCES.find((r) => r.verbs.list) as ResourceDef;
          await http.request('GET', probe.path, { query: new URLSearchParams({ per_page: '1' }) });
        } catch (e) {
          const err = describeApiError(e);
          if (err.exitCode === EXIT.usage) throw err;
          if (err.status !== 403)
            throw new CliError(err.exitCode, `the token was not stored: ${err.message}`, {
              ...(err.status === 401
                ? { hint: 'The server does not accept this token.' }
                : { hint: 'Use --no-verify to store it anyway.' }),
            });
        } finally {
          await http?.close();
        }
      }
      const cfg = await readUserConfig(deps);
      const profiles = { ...(cfg.profiles ?? {}) };
      profiles[target.profile] = { ...(profiles[target.profile] ?? {}), base_url: baseUrl, token };
      await writeUserConfig(deps, { ...cfg, profiles });
      io.stderr.write(
        `Logged in to ${baseUrl} (profile "${target.profile}"); the token is stored in ${target.userConfigPath}.\n`,
      );
    });

  auth
    .command('status')
    .description('Show which server and profile pm uses, and where the token comes from (never the token)')
    .option('--json', 'print JSON')
    .option('--offline', 'do not check the token against the server')
    .addHelpText(
      'after',
      `
Exits 0 when the token is accepted, 4 when the server refuses it, 5 when it cannot be reached.

Examples:
  pm auth status
  pm --profile work auth status --json
  pm auth status --offline          # where settings come from, without asking the server`,
    )
    .action(async (opts: { json?: boolean; offline?: boolean }, cmd: Command) => {
      const globals = globalsOf(cmd);
      const { resolveTarget } = await import('../config.js');
      const target = await resolveTarget(
        {
          ...(globals.baseUrl ? { baseUrl: globals.baseUrl } : {}),
          ...(globals.profile ? { profile: globals.profile } : {}),
        },
        deps,
      );
      const tokenFrom: Record<string, string> = {
        env: 'the PM_TOKEN environment variable',
        project: `the project config ${target.projectConfigPath ?? ''}`.trim(),
        user: `the user config ${target.userConfigPath}`,
        embedded: target.embedded
          ? `the file beside the data file (${target.embedded.dataFile}.token)`
          : 'the embedded default',
        none: 'nowhere: no token is configured',
        flag: 'a flag',
      };
      let check = 'not checked';
      let exit: CliError | undefined;
      if (!opts.offline && (target.token || target.embedded)) {
        const { withSession } = await import('../session.js');
        try {
          await withSession(globals, deps, async (s) => {
            await s.http.request('GET', 'properties', { query: new URLSearchParams({ per_page: '1' }) });
          });
          check = 'accepted';
        } catch (e) {
          const err = describeApiError(e);
          check = err.status === 403 ? 'accepted (lacks properties.read)' : `failed: ${err.message}`;
          if (err.status !== 403) exit = err;
        }
      }
      const info = {
        server: target.baseUrl ?? null,
        embedded: target.embedded ? { data_file: target.embedded.dataFile } : null,
        profile: target.profile,
        profile_source: target.sources.profile,
        base_url_source: target.sources.baseUrl,
        token_source: target.sources.token,
        token_check: check,
        user_config: target.userConfigPath,
        project_config: target.projectConfigPath ?? null,
      };
      if (opts.json) io.stdout.write(`${JSON.stringify(info, null, 2)}\n`);
      else {
        const server = target.embedded
          ? `the embedded default (the bundled server on ${target.embedded.dataFile})`
          : `${target.baseUrl} (from ${target.sources.baseUrl === 'flag' ? '--base-url' : target.sources.baseUrl === 'env' ? 'PM_BASE_URL' : `the ${target.sources.baseUrl} config`})`;
        io.stdout.write(
          [
            `Server:  ${server}`,
            `Profile: ${target.profile}${target.sources.profile === 'none' ? '' : ` (from ${target.sources.profile})`}`,
            `Token:   from ${tokenFrom[target.sources.token] ?? target.sources.token}; ${check}`,
            `Config:  ${target.userConfigPath}${target.projectConfigPath ? `, ${target.projectConfigPath}` : ''}`,
          ].join('\n') + '\n',
        );
      }
      if (exit) throw new CliError(exit.exitCode, `the token check failed: ${exit.message}`);
    });

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
    .action(async (_opts: unknown, cmd: Command) => {
      const globals = globalsOf(cmd);
      const { resolveTarget, readUserConfig, writeUserConfig } = await import('../config.js');
      const target = await resolveTarget({ ...(globals.profile ? { profile: globals.profile } : {}) }, deps);
      const cfg = await readUserConfig(deps);
      const profile = cfg.profiles?.[target.profile];
      const topLevel = target.profile === 'default' && cfg.token !== undefined;
      if (!profile?.token && !topLevel) {
        io.stderr.write(`No token is stored for profile "${target.profile}".\n`);
        return;
      }
      const next = { ...cfg, profiles: { ...(cfg.profiles ?? {}) } };
      if (profile?.token) {
        const { token: _drop, ...rest } = profile;
        next.profiles[target.profile] = rest;
      }
      if (topLevel) delete next.token;
      await writeUserConfig(deps, next);
      io.stderr.write(
        `Logged out of profile "${target.profile}"; its token was removed from ${target.userConfigPath}.\n`,
      );
      if (deps.env.PM_TOKEN) io.stderr.write('Note: PM_TOKEN is still set in the environment.\n');
    });
}

export { EXIT };
