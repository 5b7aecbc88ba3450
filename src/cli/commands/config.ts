/**
 * `pm config`: what pm is configured to talk to, and where each setting comes from; and the
 * settings of the user config. Tokens are never printed and never taken as arguments. The run
 * functions are in config-run.ts (which loads ../config.js and through it cosmiconfig).
 */
import { Command } from 'commander';
import { adopt } from '../command.js';
import { usageError } from '../errors.js';
import type { Factory } from '../factory.js';

const GET_KEYS = ['base_url', 'token', 'profile', 'timeout', 'default_profile'] as const;
const SET_KEYS = ['base_url', 'timeout', 'default_profile'] as const;
/** What set writes, and the token that `pm auth login` wrote. */
const UNSET_KEYS = [...SET_KEYS, 'token'] as const;
export type SetKey = (typeof SET_KEYS)[number];

export interface ConfigListOptions {
  readonly f: Factory;
  readonly json: boolean;
}

export interface ConfigGetOptions {
  readonly f: Factory;
  readonly key: (typeof GET_KEYS)[number];
}

export interface ConfigSetOptions {
  readonly f: Factory;
  readonly key: SetKey;
  readonly value: string;
  /** Set timeout for the active profile only. */
  readonly profileScope: boolean;
}

export interface ConfigUnsetOptions {
  readonly f: Factory;
  readonly key: (typeof UNSET_KEYS)[number];
  readonly profileScope: boolean;
}

const run = () => import('./config-run.js');
const RUNS = {
  list: async (o: ConfigListOptions) => (await run()).configListRun(o),
  get: async (o: ConfigGetOptions) => (await run()).configGetRun(o),
  set: async (o: ConfigSetOptions) => (await run()).configSetRun(o),
  unset: async (o: ConfigUnsetOptions) => (await run()).configUnsetRun(o),
  path: async (o: { f: Factory }) => (await run()).configPathRun(o),
};
export type ConfigRuns = typeof RUNS;

/** A key among `keys`, or a usage error listing them. */
function keyOf<K extends string>(key: string, keys: readonly K[], what: string): K {
  if (!(keys as readonly string[]).includes(key))
    throw usageError(`unknown key "${key}".`, `${what}: ${keys.join(', ')}.`);
  return key as K;
}

export const CONFIG_COMMANDS = {
  config: 'Show where pm points and where each setting comes from; change the user config',
};

export function newCmdConfig(f: Factory, runs: ConfigRuns = RUNS): Command {
  const config = new Command('config').description(CONFIG_COMMANDS.config).addHelpText(
    'after',
    `
Settings come from, in order: the flags (--base-url, --profile), the environment (PM_BASE_URL,
PM_TOKEN, PM_PROFILE), a project config (a "pm" key in package.json, .pmrc, .pmrc.json,
.pmrc.yaml or .pmrc.yml, in the working directory or one above it, up to your home directory or
the repository root), then the user config ($XDG_CONFIG_HOME/pm/config.json, else
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
    .action((opts: { json?: boolean }) => runs.list({ f, json: opts.json === true }));

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
    .action((key: string) => runs.get({ f, key: keyOf(key, GET_KEYS, 'Keys') }));

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
    .action((key: string, value: string, opts: { profileScope?: boolean }) => {
      if (key === 'token') throw usageError('tokens are never passed as arguments; use `pm auth login`');
      return runs.set({
        f,
        key: keyOf(key, SET_KEYS, 'Keys you can set'),
        value,
        profileScope: opts.profileScope === true,
      });
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
    .action((key: string, opts: { profileScope?: boolean }) =>
      runs.unset({ f, key: keyOf(key, UNSET_KEYS, 'Keys you can unset'), profileScope: opts.profileScope === true }),
    );

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
    .action(() => runs.path({ f }));
  return config;
}

export function registerConfig(program: Command, f: Factory): void {
  adopt(program, newCmdConfig(f));
}
