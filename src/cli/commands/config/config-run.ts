/** What the run functions of `pm config` share: warnings, and where set and unset write. */
import { activeProfile, loadConfig, ownProfile, type ProfileConfig, type UserConfig } from '../../config.js';
import { usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';

export function writeWarnings(f: Factory, warnings: readonly string[]): void {
  for (const w of warnings) f.io.stderr.write(`warning: ${w}\n`);
}

/** The user config's own entry for the profile, added when it has none. */
export function profileEntry(cfg: UserConfig, profile: string): ProfileConfig {
  const entry = ownProfile(cfg, profile) ?? {};
  cfg.profiles ??= {};
  cfg.profiles[profile] = entry;
  return entry;
}

/** Drops an empty profile, and an empty profiles object. */
export function tidy(cfg: UserConfig, profile: string): void {
  if (!cfg.profiles) return;
  const p = ownProfile(cfg, profile);
  if (p && Object.keys(p).length === 0) delete cfg.profiles[profile];
  if (Object.keys(cfg.profiles).length === 0) delete cfg.profiles;
}

/**
 * What set and unset change: the configuration, the active profile (a new one allowed), the user
 * config; and where the key is: at the top of the file (default_profile, and timeout for every
 * profile unless --profile-scope) or in the active profile, with `where` saying so.
 */
export async function forWrite(o: { readonly f: Factory; readonly key: string; readonly profileScope: boolean }) {
  const loaded = await loadConfig(o.f);
  const { profile } = activeProfile(o.f.globals(), o.f, loaded.layers, { allowNew: true });
  if (o.key === 'default_profile' && o.profileScope)
    throw usageError('default_profile applies to the whole config; drop --profile-scope.');
  const topLevel = o.key === 'default_profile' || (o.key === 'timeout' && !o.profileScope);
  const where = o.key === 'default_profile' ? 'the user config' : topLevel ? 'every profile' : `profile "${profile}"`;
  return { loaded, profile, cfg: (loaded.user?.config ?? {}) as UserConfig, topLevel, where };
}
