/** The run functions of `pm config` (config.ts declares them). Tokens are never printed. */
import { printableUrl } from '../../core/redact.js';
import { tokenFileFor } from '../../core/paths.js';
import type { Factory } from '../factory.js';
import type { ConfigGetOptions, ConfigListOptions, ConfigSetOptions, ConfigUnsetOptions, SetKey } from './config.js';
import { usageError } from '../errors.js';
import {
  activeProfile,
  DEFAULT_PROFILE,
  checkProfile,
  knownProfiles,
  type LoadedConfig,
  loadConfig,
  normalizeBaseUrl,
  ownProfile,
  parseTimeout,
  type ProfileConfig,
  profileSettings,
  readUserConfig,
  redact,
  resolveTarget,
  searchProjectConfig,
  type Source,
  type Target,
  type UserConfig,
  userConfigPath,
  writeUserConfig,
} from '../config.js';

const TOKEN_NOTE = 'note: tokens are never printed; this is a redacted form of it.\n';

/** Where a setting came from, in words. */
function origin(key: 'profile' | 'base_url' | 'token' | 'timeout', source: Source, target: Target): string {
  const words: Record<Source, string> = {
    flag: key === 'profile' ? '--profile' : '--base-url',
    env: key === 'profile' ? 'PM_PROFILE' : key === 'token' ? 'PM_TOKEN' : 'PM_BASE_URL',
    project: `project config (${target.projectConfigPath})`,
    user: `user config (${target.userConfigPath})`,
    embedded: 'embedded default',
    none: key === 'profile' ? 'default' : 'not set',
  };
  return words[source];
}

function writeWarnings(f: Factory, warnings: readonly string[]): void {
  for (const w of warnings) f.io.stderr.write(`warning: ${w}\n`);
}

function listJson(t: Target, redacted: string | undefined): Record<string, unknown> {
  return {
    profile: t.profile,
    base_url: t.baseUrl === undefined ? null : printableUrl(t.baseUrl),
    token: redacted ?? null,
    timeout: t.timeout ?? null,
    sources: {
      profile: t.sources.profile,
      base_url: t.sources.baseUrl,
      token: t.sources.token,
      timeout: t.sources.timeout,
    },
    data_file: t.embedded?.dataFile ?? null,
    token_file: t.embedded ? tokenFileFor(t.embedded.dataFile) : null,
    user_config: t.userConfigPath,
    project_config: t.projectConfigPath ?? null,
  };
}

function listText(t: Target, redacted: string | undefined): string {
  const rows: [string, string, string][] = [['profile', t.profile, origin('profile', t.sources.profile, t)]];
  if (t.embedded) {
    rows.push(['base_url', '(embedded default)', `the bundled server on ${t.embedded.dataFile}`]);
    rows.push(['token', '(embedded default)', `read from ${tokenFileFor(t.embedded.dataFile)}`]);
  } else {
    rows.push(['base_url', printableUrl(t.baseUrl ?? ''), origin('base_url', t.sources.baseUrl, t)]);
    rows.push(['token', redacted ?? '(none)', origin('token', t.sources.token, t)]);
  }
  rows.push([
    'timeout',
    t.timeout !== undefined ? `${t.timeout}s` : '(not set)',
    t.sources.timeout === 'none' ? 'the client default applies' : origin('timeout', t.sources.timeout, t),
  ]);
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  let out = rows.map(([k, v, s]) => `${k.padEnd(w0)}  ${v.padEnd(w1)}  ${s}`.trimEnd()).join('\n');
  out += `\n\nuser config     ${t.userConfigPath}\nproject config  ${t.projectConfigPath ?? '(none found)'}\n`;
  return out;
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

/** The user config's own entry for the profile, added when it has none. */
function profileEntry(cfg: UserConfig, profile: string): ProfileConfig {
  const entry = ownProfile(cfg, profile) ?? {};
  cfg.profiles ??= {};
  cfg.profiles[profile] = entry;
  return entry;
}

/** Drops an empty profile, and an empty profiles object. */
function tidy(cfg: UserConfig, profile: string): void {
  if (!cfg.profiles) return;
  const p = ownProfile(cfg, profile);
  if (p && Object.keys(p).length === 0) delete cfg.profiles[profile];
  if (Object.keys(cfg.profiles).length === 0) delete cfg.profiles;
}

export async function configListRun(o: ConfigListOptions): Promise<void> {
  const { f } = o;
  const target = await resolveTarget(f.globals(), f);
  writeWarnings(f, target.warnings);
  const redacted = redact(target.token);
  f.io.stdout.write(o.json ? `${JSON.stringify(listJson(target, redacted), null, 2)}\n` : listText(target, redacted));
}

export async function configGetRun(o: ConfigGetOptions): Promise<void> {
  const { f, key } = o;
  const { io } = f;
  const target = await resolveTarget(f.globals(), f);
  writeWarnings(f, target.warnings);
  const value = await {
    profile: () => target.profile,
    base_url: () => (target.baseUrl === undefined ? undefined : printableUrl(target.baseUrl)),
    token: () => redact(target.token),
    timeout: () => (target.timeout === undefined ? undefined : String(target.timeout)),
    default_profile: async () => (await readUserConfig(f)).default_profile,
  }[key]();
  if (value !== undefined) {
    if (key === 'token') io.stderr.write(TOKEN_NOTE);
    io.stdout.write(`${value}\n`);
  } else if (target.embedded && key === 'base_url')
    io.stderr.write(`base_url is not set: pm uses the embedded default (${target.embedded.dataFile}).\n`);
  else if (target.embedded && key === 'token')
    io.stderr.write(`the embedded default's token is read from ${tokenFileFor(target.embedded.dataFile)}.\n`);
  else io.stderr.write(`${key} is not set.\n`);
}

/**
 * What set and unset change: the configuration, the active profile (a new one allowed), the user
 * config; and where the key is: at the top of the file (default_profile, and timeout for every
 * profile unless --profile-scope) or in the active profile, with `where` saying so.
 */
async function forWrite(o: ConfigSetOptions | ConfigUnsetOptions) {
  const loaded = await loadConfig(o.f);
  const { profile } = activeProfile(o.f.globals(), o.f, loaded.layers, { allowNew: true });
  if (o.key === 'default_profile' && o.profileScope)
    throw usageError('default_profile applies to the whole config; drop --profile-scope.');
  const topLevel = o.key === 'default_profile' || (o.key === 'timeout' && !o.profileScope);
  const where = o.key === 'default_profile' ? 'the user config' : topLevel ? 'every profile' : `profile "${profile}"`;
  return { loaded, profile, cfg: (loaded.user?.config ?? {}) as UserConfig, topLevel, where };
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

export async function configUnsetRun(o: ConfigUnsetOptions): Promise<void> {
  const { key } = o;
  const { io } = o.f;
  const { loaded, profile, cfg, topLevel, where } = await forWrite(o);
  let removed = false;
  const drop = (obj: object | undefined, k: string) => {
    if (obj && Object.hasOwn(obj, k)) {
      delete (obj as Record<string, unknown>)[k];
      removed = true;
    }
  };
  if (topLevel) drop(cfg, key);
  else {
    drop(ownProfile(cfg, profile), key);
    if (profile === DEFAULT_PROFILE && key !== 'timeout') drop(cfg, key);
  }
  if (!removed) {
    io.stderr.write(`${key} was not set for ${where} in ${loaded.userConfigPath}; nothing changed.\n`);
    return;
  }
  tidy(cfg, profile);
  await writeUserConfig(o.f, cfg);
  io.stderr.write(`unset ${key} for ${where} in ${loaded.userConfigPath}\n`);
  if (key === 'token') io.stderr.write('note: the token was removed from the file, not revoked on the server.\n');
}

export async function configPathRun(o: { f: Factory }): Promise<void> {
  const { f } = o;
  const { io } = f;
  // The search tolerates a malformed project file: its path is what is needed to fix it.
  const project = await searchProjectConfig(f);
  io.stdout.write(`${userConfigPath(f)}\n`);
  if (project.path) io.stdout.write(`${project.path}\n`);
  if (project.error) io.stderr.write(`warning: ${project.error.message}\n`);
}
