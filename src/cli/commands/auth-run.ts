/**
 * The run functions of `pm auth login|status|logout` (auth.ts declares them). A token is read from
 * a prompt without echo or from stdin, never from argv; status never prints it.
 */
import { printableUrl, visible } from '../../core/redact.js';
import { RESOURCES } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import { DEFAULT_PROFILE, ownProfile, readUserConfig, resolveTarget, writeUserConfig } from '../config.js';
import { CliError, EXIT, usageError } from '../errors.js';
import { readStdin } from '../input.js';
import { httpOptions, type Session, targetFlags, withSession } from '../session.js';
import type { AuthLoginOptions, AuthLogoutOptions, AuthStatusOptions } from './auth.js';
import { describeApiError, interactive } from './shared.js';

/** What a token is checked against: a list it may read, the first resource's as good as any. */
const PROBE = RESOURCES.find((r) => r.verbs.list) as ResourceDef;
const probe = (http: Session['http']) =>
  http.request('GET', PROBE.path, { query: new URLSearchParams({ per_page: '1' }) });

export async function authLoginRun(o: AuthLoginOptions): Promise<void> {
  const { f: deps } = o;
  const globals = deps.globals();
  const target = await resolveTarget(targetFlags(globals), deps, { allowNewProfile: true });
  const baseUrl = target.baseUrl;
  if (!baseUrl)
    throw usageError(
      'which server? Give --base-url URL (the embedded default needs no login).',
      'Example: pm auth login --base-url https://pm.example.com',
    );
  let token: string;
  if (o.withToken) token = (await readStdin(deps)).trim().split(/\r?\n/)[0] ?? '';
  else if (interactive(deps, globals) && deps.prompter)
    token = (await deps.prompter.secret(`Token for ${printableUrl(baseUrl)}: `)).trim();
  else
    throw usageError(
      'no terminal to ask for the token: pipe it in with --with-token.',
      `Example: echo "$TOKEN" | pm auth login --base-url ${printableUrl(baseUrl)} --with-token`,
    );
  if (!token) throw usageError('the token is empty.');
  if (/\s/.test(token)) throw usageError('the token contains white space; paste it as one word.');

  if (o.verify) {
    const { HttpClient } = await import('../../client/http.js');
    let http: InstanceType<typeof HttpClient> | undefined;
    try {
      http = new HttpClient({ baseUrl, token, ...httpOptions(globals, deps, target) });
      await probe(http);
    } catch (e) {
      const err = describeApiError(e);
      if (err.exitCode === EXIT.usage) throw err;
      if (err.status !== 403)
        throw new CliError(err.exitCode, `the token was not stored: ${err.message}`, {
          hint: err.status === 401 ? 'The server does not accept this token.' : 'Use --no-verify to store it anyway.',
        });
    } finally {
      await http?.close();
    }
  }
  const cfg = await readUserConfig(deps);
  const profiles = { ...(cfg.profiles ?? {}) };
  profiles[target.profile] = { ...(profiles[target.profile] ?? {}), base_url: baseUrl, token };
  await writeUserConfig(deps, { ...cfg, profiles });
  deps.io.stderr.write(
    `Logged in to ${printableUrl(baseUrl)} (profile "${target.profile}"); the token is stored in ${target.userConfigPath}.\n`,
  );
}

export async function authStatusRun(o: AuthStatusOptions): Promise<void> {
  const { f: deps } = o;
  const { io } = deps;
  const globals = deps.globals();
  const target = await resolveTarget(targetFlags(globals), deps);
  for (const w of target.warnings) io.stderr.write(`warning: ${visible(w)}\n`);
  const tokenFrom: Record<string, string> = {
    env: 'the PM_TOKEN environment variable',
    project: `the project config ${target.projectConfigPath ?? ''}`.trim(),
    user: `the user config ${target.userConfigPath}`,
    embedded: target.embedded
      ? `the file beside the data file (${target.embedded.dataFile}.token)`
      : 'the embedded default',
    none: 'nowhere: no token is configured',
  };
  let check = 'not checked';
  let exit: CliError | undefined;
  if (!o.offline && (target.token || target.embedded)) {
    try {
      await withSession(globals, deps, (s) => probe(s.http));
      check = 'accepted';
    } catch (e) {
      const err = describeApiError(e);
      check = err.status === 403 ? `accepted (lacks ${PROBE.scope}.read)` : `failed: ${err.message}`;
      if (err.status !== 403) exit = err;
    }
  }
  const info = {
    server: target.baseUrl === undefined ? null : printableUrl(target.baseUrl),
    embedded: target.embedded ? { data_file: target.embedded.dataFile } : null,
    profile: target.profile,
    profile_source: target.sources.profile,
    base_url_source: target.sources.baseUrl,
    token_source: target.sources.token,
    token_check: check,
    user_config: target.userConfigPath,
    project_config: target.projectConfigPath ?? null,
  };
  if (o.json) io.stdout.write(`${JSON.stringify(info, null, 2)}\n`);
  else {
    const server = target.embedded
      ? `the embedded default (the bundled server on ${target.embedded.dataFile})`
      : `${printableUrl(target.baseUrl ?? '')} (from ${target.sources.baseUrl === 'flag' ? '--base-url' : target.sources.baseUrl === 'env' ? 'PM_BASE_URL' : `the ${target.sources.baseUrl} config`})`;
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
  // Scripts and CI jobs check this: no usable token is a failure (as gh auth status).
  if (!target.token && !target.embedded)
    throw new CliError(EXIT.auth, `no token for ${printableUrl(target.baseUrl ?? '')}`, {
      hint: 'Log in with `pm auth login`, or set PM_TOKEN.',
    });
}

export async function authLogoutRun(o: AuthLogoutOptions): Promise<void> {
  const { f: deps } = o;
  const { io } = deps;
  const { profile: flag } = targetFlags(deps.globals());
  const target = await resolveTarget({ profile: flag }, deps);
  const cfg = await readUserConfig(deps);
  const entry = ownProfile(cfg, target.profile);
  const topLevel = target.profile === DEFAULT_PROFILE && cfg.token !== undefined;
  if (!entry?.token && !topLevel) {
    io.stderr.write(`No token is stored for profile "${target.profile}".\n`);
    return;
  }
  // An emptied profile, and a "profiles" the file did not have, are written as {}.
  cfg.profiles ??= {};
  delete entry?.token;
  if (topLevel) delete cfg.token;
  await writeUserConfig(deps, cfg);
  io.stderr.write(`Logged out of profile "${target.profile}"; its token was removed from ${target.userConfigPath}.\n`);
  // What pm talks to now, and how to change that.
  const now = await resolveTarget({ profile: flag }, deps);
  const where = (src: string) =>
    src === 'env'
      ? 'the environment'
      : src === 'project'
        ? (now.projectConfigPath ?? 'the project file')
        : now.userConfigPath;
  if (now.token !== undefined && now.baseUrl !== undefined) {
    const how = now.sources.token === 'env' ? 'unset PM_TOKEN' : `remove it from ${where(now.sources.token)}`;
    io.stderr.write(
      `pm still has a token for ${printableUrl(now.baseUrl)}, from ${where(now.sources.token)}: ${how} to stop using it.\n`,
    );
  } else if (now.baseUrl !== undefined) {
    const clear =
      now.sources.baseUrl === 'env'
        ? 'unset PM_BASE_URL'
        : now.sources.baseUrl === 'user'
          ? `\`pm config unset base_url${target.profile === DEFAULT_PROFILE ? '' : ` --profile ${target.profile}`}\``
          : `remove base_url from ${where(now.sources.baseUrl)}`;
    io.stderr.write(
      `The base URL ${printableUrl(now.baseUrl)} is still configured (${where(now.sources.baseUrl)}), without a token: \`pm auth login\` to log in again, or ${clear} to use the embedded default.\n`,
    );
  } else if (now.embedded) io.stderr.write(`pm now uses the embedded default (${now.embedded.dataFile}).\n`);
}
