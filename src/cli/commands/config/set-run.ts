/** `pm config set <key> <value>`: a setting of the user config changed. */
import { printableUrl } from '../../../core/redact.js';
import {
  DEFAULT_PROFILE,
  checkProfile,
  knownProfiles,
  type LoadedConfig,
  normalizeBaseUrl,
  ownProfile,
  parseTimeout,
  profileSettings,
  writeUserConfig,
} from '../../config.js';
import type { Factory } from '../../factory.js';
import { forWrite, profileEntry, tidy } from './config-run.js';
import type { SetKey } from './keys.js';

export interface ConfigSetOptions {
  readonly f: Factory;
  readonly key: SetKey;
  readonly value: string;
  /** Set timeout for the active profile only. */
  readonly profileScope: boolean;
}

/** A note when something with higher precedence hides what was just written. */
function shadowNote(key: SetKey, loaded: LoadedConfig, f: Factory, profile: string): string | undefined {
  const flags = f.globals();
  const project = loaded.project.layer;
  if (key === 'base_url') {
    if (flags.baseUrl !== undefined) return '--base-url overrides it for this command.';
    if (f.env.PM_BASE_URL?.trim()) return 'PM_BASE_URL is set in this environment and overrides it.';
  }
  if (key === 'default_profile') {
    if (flags.profile !== undefined) return '--profile overrides it for this command.';
    if (f.env.PM_PROFILE?.trim()) return 'PM_PROFILE is set in this environment and overrides it.';
    if (project && (project.config.profile ?? project.config.default_profile) !== undefined)
      return `the project config ${project.path} chooses a profile and overrides it here.`;
    return undefined;
  }
  if (project && profileSettings(project.config, profile)[key] !== undefined)
    return `the project config ${project.path} sets ${key} for profile "${profile}" and takes precedence here.`;
  return undefined;
}

export async function configSetRun(o: ConfigSetOptions): Promise<void> {
  const { f, key: k } = o;
  let { value } = o;
  const { io } = f;
  const { loaded, profile, cfg, topLevel, where } = await forWrite(o);
  const isNew = profile !== DEFAULT_PROFILE && !knownProfiles(loaded.layers).includes(profile);
  switch (k) {
    case 'base_url': {
      const url = normalizeBaseUrl(value, 'base_url');
      const before = profileSettings(cfg, profile);
      if (profile === DEFAULT_PROFILE) {
        cfg.base_url = url;
        delete ownProfile(cfg, profile)?.base_url;
        tidy(cfg, profile);
      } else profileEntry(cfg, profile).base_url = url;
      if (before.token !== undefined && before.base_url !== undefined && before.base_url.replace(/\/+$/, '') !== url)
        io.stderr.write(
          `note: the token kept for ${where} was for ${before.base_url}; run \`pm auth login\` if it is not valid for ${url}.\n`,
        );
      value = printableUrl(url);
      break;
    }
    case 'timeout': {
      const seconds = parseTimeout(value, 'timeout');
      if (topLevel) cfg.timeout = seconds;
      else profileEntry(cfg, profile).timeout = seconds;
      value = String(seconds);
      break;
    }
    case 'default_profile':
      checkProfile(value, loaded.layers);
      cfg.default_profile = value;
      break;
  }
  await writeUserConfig(f, cfg);
  io.stderr.write(
    `set ${k} = ${value} for ${where}${isNew && !topLevel ? ' (new profile)' : ''} in ${loaded.userConfigPath}\n`,
  );
  const note = shadowNote(k, loaded, f, profile);
  if (note) io.stderr.write(`note: ${note}\n`);
}
