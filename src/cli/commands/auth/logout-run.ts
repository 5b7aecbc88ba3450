/** `pm auth logout`: the active profile's stored token removed. */
import { printableUrl } from '../../../core/redact.js';
import { DEFAULT_PROFILE, ownProfile, readUserConfig, resolveTarget, writeUserConfig } from '../../config.js';
import type { Factory } from '../../factory.js';
import { targetFlags } from '../../session.js';

export interface AuthLogoutOptions {
  readonly f: Factory;
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
