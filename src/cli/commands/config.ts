/**
 * `pm config`: what pm is configured to talk to, and where each setting comes from; and the
 * settings of the user config. Tokens are never printed and never taken as arguments.
 *
 * Building the command loads nothing: each action imports ../config.js (and through it
 * cosmiconfig) when it runs.
 */
import type { Command } from 'commander';
import { tokenFileFor } from '../../core/paths.js';
import type { Deps } from '../context.js';
import { usageError } from '../errors.js';
import type { LoadedConfig, Source, Target, UserConfig } from '../config.js';

interface Globals {
  baseUrl?: string;
  profile?: string;
}

const GET_KEYS = ['base_url', 'token', 'profile', 'timeout', 'default_profile'] as const;
const SET_KEYS = ['base_url', 'timeout', 'default_profile'] as const;
const UNSET_KEYS = ['base_url', 'timeout', 'default_profile', 'token'] as const;
type SetKey = (typeof SET_KEYS)[number];

const TOKEN_REFUSED = 'tokens are never passed as arguments; use `pm auth login`';
const TOKEN_NOTE = 'note: tokens are never printed; this is a redacted form of it.\n';

function globals(cmd: Command): Globals {
  const { baseUrl, profile } = cmd.optsWithGlobals() as Globals;
  return { ...(baseUrl !== undefined ? { baseUrl } : {}), ...(profile !== undefined ? { profile } : {}) };
}

/** Where a setting came from, in words. */
function origin(key: 'profile' | 'base_url' | 'token' | 'timeout', source: Source, target: Target): string {
  switch (source) {
    case 'flag':
      return key === 'profile' ? '--profile' : '--base-url';
    case 'env':
      return key === 'profile' ? 'PM_PROFILE' : key === 'token' ? 'PM_TOKEN' : 'PM_BASE_URL';
    case 'project':
      return `project config (${target.projectConfigPath})`;
    case 'user':
      return `user config (${target.userConfigPath})`;
    case 'embedded':
      return 'embedded default';
    case 'none':
      return key === 'profile' ? 'default' : 'not set';
  }
}

function writeWarnings(deps: Deps, warnings: readonly string[]): void {
  for (const w of warnings) deps.io.stderr.write(`warning: ${w}\n`);
}

function listJson(t: Target, redacted: string | undefined): Record<string, unknown> {
  return {
    profile: t.profile,
    base_url: t.baseUrl ?? null,
    token: redacted ?? null,
    timeout: t.timeout ?? null,
    sources: {
      profile: t.sources.profile,
      base_url: t.sources.baseUrl,
      token: t.sources.token,
      timeout: t.sources.timeout ?? 'none',
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
    rows.push(['base_url', t.baseUrl ?? '', origin('base_url', t.sources.baseUrl, t)]);
    rows.push(['token', redacted ?? '(none)', origin('token', t.sources.token, t)]);
  }
  const timeoutSource = t.sources.timeout ?? 'none';
  rows.push([
    'timeout',
    t.timeout !== undefined ? `${t.timeout}s` : '(not set)',
    timeoutSource === 'none' ? 'the client default applies' : origin('timeout', timeoutSource, t),
  ]);
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  let out = rows.map(([k, v, s]) => `${k.padEnd(w0)}  ${v.padEnd(w1)}  ${s}`.trimEnd()).join('\n');
  out += `\n\nuser config     ${t.userConfigPath}\nproject config  ${t.projectConfigPath ?? '(none found)'}\n`;
  return out;
}

/** A note when something with higher precedence hides what was just written. */
function shadowNote(
  mod: ConfigModule,
  key: SetKey,
  loaded: LoadedConfig,
  flags: Globals,
  deps: Deps,
  profile: string,
): string | undefined {
  if (key === 'base_url') {
    if (flags.baseUrl !== undefined) return '--base-url overrides it for this command.';
    if (deps.env.PM_BASE_URL?.trim()) return 'PM_BASE_URL is set in this environment and overrides it.';
  }
  if (key === 'default_profile') {
    if (flags.profile !== undefined) return '--profile overrides it for this command.';
    if (deps.env.PM_PROFILE?.trim()) return 'PM_PROFILE is set in this environment and overrides it.';
    const p = loaded.project.layer?.config;
    if (p && (p.profile ?? p.default_profile) !== undefined)
      return `the project config ${loaded.project.path} chooses a profile and overrides it here.`;
  }
  const project = loaded.project.layer;
  if (project && (key === 'base_url' || key === 'timeout')) {
    if (mod.profileSettings(project.config, profile)[key] !== undefined)
      return `the project config ${project.path} sets ${key} for profile "${profile}" and takes precedence here.`;
  }
  return undefined;
}

type ConfigModule = typeof import('../config.js');

function load(): Promise<ConfigModule> {
  return import('../config.js');
}

function profileEntry(cfg: UserConfig, profile: string): NonNullable<UserConfig['profiles']>[string] {
  cfg.profiles ??= {};
  if (!Object.hasOwn(cfg.profiles, profile)) cfg.profiles[profile] = {};
  return cfg.profiles[profile] as NonNullable<UserConfig['profiles']>[string];
}

/** Drops an empty profile, and an empty profiles object. */
function tidy(cfg: UserConfig, profile: string): void {
  if (!cfg.profiles) return;
  const p = Object.hasOwn(cfg.profiles, profile) ? cfg.profiles[profile] : undefined;
  if (p && Object.keys(p).length === 0) delete cfg.profiles[profile];
  if (Object.keys(cfg.profiles).length === 0) delete cfg.profiles;
}

function scopeOf(profile: string): string {
  return `profile "${profile}"`;
}

export function registerConfig(program: Command, deps: Deps): void {
  const { io } = deps;
  const config = program
    .command('config')
    .description('Show where pm points and where each setting comes from; change the user config')
    .addHelpText(
      'after',
      `
Settings come from, in order: the flags (--base-url, --profile), the environment (PM_BASE_URL,
PM_TOKEN, PM_PROFILE), a project config (a "pm" key in package.json, .pmrc, .pmrc.json,
.pmrc.yaml, .pmrc.yml or pm.config.js/.mjs/.cjs, in the working directory or one above it, up
to your home directory), then the user config ($XDG_CONFIG_HOME/pm/config.json, else
~/.config/pm/config.json). With no base URL anywhere, pm uses the embedded default.

A config file looks like:
  { "default_profile": "work", "timeout": 30,
    "base_url": "https://api.example.com",
    "profiles": { "work": { "base_url": "https://pm.example.org" } } }
Top-level base_url and token belong to the profile "default"; a top-level timeout applies to
every profile. A token in a config file is only sent to that file's base URL.

Examples:
  pm config list
  pm --profile work config set base_url https://pm.example.org`,
    );

  config
    .command('list')
    .description('Show the effective settings of the active profile and where each comes from')
    .option('--json', 'print them as JSON')
    .addHelpText(
      'after',
      `
Tokens are shown redacted (pm_…abcd), never in full.

Examples:
  pm config list
  pm --profile work config list --json`,
    )
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { resolveTarget, redact } = await load();
      const target = await resolveTarget(globals(cmd), deps);
      writeWarnings(deps, target.warnings);
      const redacted = redact(target.token);
      io.stdout.write(
        opts.json ? `${JSON.stringify(listJson(target, redacted), null, 2)}\n` : listText(target, redacted),
      );
    });

  config
    .command('get')
    .description('Print the effective value of one setting')
    .argument('<key>', `one of: ${GET_KEYS.join(', ')}`)
    .addHelpText(
      'after',
      `
Prints nothing when the setting is not set. A token is printed redacted, never in full.

Examples:
  pm config get base_url
  timeout=$(pm config get timeout)`,
    )
    .action(async (key: string, _opts: unknown, cmd: Command) => {
      if (!(GET_KEYS as readonly string[]).includes(key))
        throw usageError(`unknown key "${key}".`, `Keys: ${GET_KEYS.join(', ')}.`);
      const { resolveTarget, redact, readUserConfig } = await load();
      const target = await resolveTarget(globals(cmd), deps);
      writeWarnings(deps, target.warnings);
      let value: string | undefined;
      switch (key) {
        case 'profile':
          value = target.profile;
          break;
        case 'base_url':
          value = target.baseUrl;
          if (value === undefined && target.embedded)
            io.stderr.write(`base_url is not set: pm uses the embedded default (${target.embedded.dataFile}).\n`);
          break;
        case 'token':
          value = redact(target.token);
          if (value !== undefined) io.stderr.write(TOKEN_NOTE);
          else if (target.embedded)
            io.stderr.write(`the embedded default's token is read from ${tokenFileFor(target.embedded.dataFile)}.\n`);
          break;
        case 'timeout':
          value = target.timeout === undefined ? undefined : String(target.timeout);
          break;
        case 'default_profile':
          value = (await readUserConfig(deps)).default_profile;
          break;
      }
      if (value !== undefined) io.stdout.write(`${value}\n`);
      else if (key !== 'base_url' && key !== 'token') io.stderr.write(`${key} is not set.\n`);
      else if (!target.embedded) io.stderr.write(`${key} is not set.\n`);
    });

  config
    .command('set')
    .description("Change a setting in the user config, for the active profile (--profile, else the default's)")
    .argument('<key>', `one of: ${SET_KEYS.join(', ')}`)
    .argument('<value>', 'the new value')
    .option('--profile-scope', 'set timeout for the active profile only (by default it applies to every profile)')
    .addHelpText(
      'after',
      `
base_url is always the active profile's; --profile NAME creates the profile if it is new.
timeout (seconds) applies to every profile unless --profile-scope is given.
default_profile names the profile used when neither --profile nor PM_PROFILE is given.
Tokens are never passed as arguments: use \`pm auth login\`.

Examples:
  pm config set base_url https://api.example.com
  pm --profile staging config set timeout 60 --profile-scope`,
    )
    .action(async (key: string, value: string, opts: { profileScope?: boolean }, cmd: Command) => {
      if (key === 'token') throw usageError(TOKEN_REFUSED);
      if (!(SET_KEYS as readonly string[]).includes(key))
        throw usageError(`unknown key "${key}".`, `Keys you can set: ${SET_KEYS.join(', ')}.`);
      const k = key as SetKey;
      const mod = await load();
      const flags = globals(cmd);
      const loaded = await mod.loadConfig(deps);
      const { profile } = mod.activeProfile(flags, deps, loaded.layers, { allowNew: true });
      const cfg: UserConfig = loaded.user?.config ?? {};
      const isNew = profile !== mod.DEFAULT_PROFILE && !mod.knownProfiles(loaded.layers).includes(profile);
      let where: string;
      switch (k) {
        case 'base_url': {
          const url = mod.normalizeBaseUrl(value, 'base_url');
          const before = mod.profileSettings(cfg, profile);
          if (profile === mod.DEFAULT_PROFILE) {
            cfg.base_url = url;
            const p = cfg.profiles && Object.hasOwn(cfg.profiles, profile) ? cfg.profiles[profile] : undefined;
            if (p) delete p.base_url;
            tidy(cfg, profile);
          } else profileEntry(cfg, profile).base_url = url;
          where = scopeOf(profile);
          if (
            before.token !== undefined &&
            before.base_url !== undefined &&
            before.base_url.replace(/\/+$/, '') !== url
          )
            io.stderr.write(
              `note: the token kept for ${scopeOf(profile)} was for ${before.base_url}; run \`pm auth login\` if it is not valid for ${url}.\n`,
            );
          value = url;
          break;
        }
        case 'timeout': {
          const seconds = mod.parseTimeout(value, 'timeout');
          if (opts.profileScope) {
            profileEntry(cfg, profile).timeout = seconds;
            where = scopeOf(profile);
          } else {
            cfg.timeout = seconds;
            where = 'every profile';
          }
          value = String(seconds);
          break;
        }
        case 'default_profile': {
          if (opts.profileScope) throw usageError('default_profile applies to the whole config; drop --profile-scope.');
          if (!mod.isValidProfileName(value))
            throw usageError(`"${value}" is not a profile name (letters, digits, "_", "-", ".").`);
          const known = mod.knownProfiles(loaded.layers);
          if (!known.includes(value))
            throw usageError(
              `no profile "${value}" in any config file.`,
              `Known profiles: ${known.join(', ')}. Create it with: pm --profile ${value} config set base_url <url>`,
            );
          cfg.default_profile = value;
          where = 'the user config';
          break;
        }
      }
      await mod.writeUserConfig(deps, cfg);
      io.stderr.write(
        `set ${k} = ${value} for ${where}${isNew && where === scopeOf(profile) ? ' (new profile)' : ''} in ${loaded.userConfigPath}\n`,
      );
      const note = shadowNote(mod, k, loaded, flags, deps, profile);
      if (note) io.stderr.write(`note: ${note}\n`);
    });

  config
    .command('unset')
    .description('Remove a setting from the user config, for the active profile')
    .argument('<key>', `one of: ${UNSET_KEYS.join(', ')}`)
    .option('--profile-scope', "remove the active profile's own timeout (by default, the one for every profile)")
    .addHelpText(
      'after',
      `
Unsetting token removes it from the file only: it is not revoked on the server (see \`pm auth\`).

Examples:
  pm config unset timeout
  pm --profile staging config unset base_url`,
    )
    .action(async (key: string, opts: { profileScope?: boolean }, cmd: Command) => {
      if (!(UNSET_KEYS as readonly string[]).includes(key))
        throw usageError(`unknown key "${key}".`, `Keys you can unset: ${UNSET_KEYS.join(', ')}.`);
      const mod = await load();
      const loaded = await mod.loadConfig(deps);
      const { profile } = mod.activeProfile(globals(cmd), deps, loaded.layers, { allowNew: true });
      const cfg: UserConfig = loaded.user?.config ?? {};
      const p = cfg.profiles && Object.hasOwn(cfg.profiles, profile) ? cfg.profiles[profile] : undefined;
      let removed = false;
      let where = scopeOf(profile);
      const drop = (obj: Record<string, unknown> | undefined, k: string) => {
        if (obj && Object.hasOwn(obj, k)) {
          delete obj[k];
          removed = true;
        }
      };
      if (key === 'default_profile') {
        if (opts.profileScope) throw usageError('default_profile applies to the whole config; drop --profile-scope.');
        drop(cfg as Record<string, unknown>, 'default_profile');
        where = 'the user config';
      } else if (key === 'timeout' && !opts.profileScope) {
        drop(cfg as Record<string, unknown>, 'timeout');
        where = 'every profile';
      } else {
        drop(p as Record<string, unknown> | undefined, key);
        if (profile === mod.DEFAULT_PROFILE && key !== 'timeout') drop(cfg as Record<string, unknown>, key);
      }
      if (!removed) {
        io.stderr.write(`${key} was not set for ${where} in ${loaded.userConfigPath}; nothing changed.\n`);
        return;
      }
      tidy(cfg, profile);
      await mod.writeUserConfig(deps, cfg);
      io.stderr.write(`unset ${key} for ${where} in ${loaded.userConfigPath}\n`);
      if (key === 'token') io.stderr.write('note: the token was removed from the file, not revoked on the server.\n');
    });

  config
    .command('path')
    .description('Print the path of the user config, and of the project config on a second line if one is found')
    .addHelpText(
      'after',
      `
Examples:
  pm config path
  $EDITOR "$(pm config path | head -n 1)"`,
    )
    .action(async () => {
      const { userConfigPath, searchProjectConfig } = await load();
      // The search tolerates a malformed project file: its path is what is needed to fix it.
      const project = await searchProjectConfig(deps);
      io.stdout.write(`${userConfigPath(deps)}\n`);
      if (project.path) io.stdout.write(`${project.path}\n`);
      if (project.error) io.stderr.write(`warning: ${project.error.message}\n`);
    });
}
