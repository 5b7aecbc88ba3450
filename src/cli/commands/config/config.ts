/**
 * `pm config`: what pm is configured to talk to, and where each setting comes from; and the
 * settings of the user config. Tokens are never printed and never taken as arguments. A leaf
 * command is a module pair here; its run (which loads ../config.js, and through it cosmiconfig)
 * is loaded when it runs.
 */
import type { Command } from 'commander';
import { adopt, group, type Run } from '../../command.js';
import type { Factory } from '../../factory.js';
import { newCmdConfigGet } from './get.js';
import type { ConfigGetOptions } from './get-run.js';
import { newCmdConfigList } from './list.js';
import type { ConfigListOptions } from './list-run.js';
import { newCmdConfigPath } from './path.js';
import type { ConfigPathOptions } from './path-run.js';
import { newCmdConfigSet } from './set.js';
import type { ConfigSetOptions } from './set-run.js';
import { newCmdConfigUnset } from './unset.js';
import type { ConfigUnsetOptions } from './unset-run.js';

/** The run functions of the config commands, each replaceable (tests record what they are given). */
export interface ConfigRuns {
  readonly list: Run<ConfigListOptions>;
  readonly get: Run<ConfigGetOptions>;
  readonly set: Run<ConfigSetOptions>;
  readonly unset: Run<ConfigUnsetOptions>;
  readonly path: Run<ConfigPathOptions>;
}

export const CONFIG_COMMANDS = {
  config: 'Show where pm points and where each setting comes from; change the user config',
};

export function newCmdConfig(f: Factory, runs: Partial<ConfigRuns> = {}): Command {
  return group(
    'config',
    CONFIG_COMMANDS.config,
    [
      newCmdConfigList(f, runs.list),
      newCmdConfigGet(f, runs.get),
      newCmdConfigSet(f, runs.set),
      newCmdConfigUnset(f, runs.unset),
      newCmdConfigPath(f, runs.path),
    ],
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
}

export function registerConfig(program: Command, f: Factory): void {
  adopt(program, newCmdConfig(f));
}
