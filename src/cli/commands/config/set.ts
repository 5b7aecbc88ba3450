/** `pm config set`, declared. */
import { Command } from 'commander';
import { usageError } from '../../errors.js';
import { keyOf, SET_KEYS } from './keys.js';
import type { Factory } from '../../factory.js';
import type { ConfigSetOptions } from './set-run.js';
import type { Run } from '../../command.js';

const RUN = async (o: ConfigSetOptions) => (await import('./set-run.js')).configSetRun(o);

export function newCmdConfigSet(f: Factory, run: Run<ConfigSetOptions> = RUN): Command {
  return new Command('set')
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
      return run({
        f,
        key: keyOf(key, SET_KEYS, 'Keys you can set'),
        value,
        profileScope: opts.profileScope === true,
      });
    });
}
