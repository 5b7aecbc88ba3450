/** `pm config unset`, declared. */
import { Command } from 'commander';
import { UNSET_KEYS, keyOf } from './keys.js';
import type { Factory } from '../../factory.js';
import type { ConfigUnsetOptions } from './unset-run.js';
import type { Run } from '../../command.js';

const RUN = async (o: ConfigUnsetOptions) => (await import('./unset-run.js')).configUnsetRun(o);

export function newCmdConfigUnset(f: Factory, run: Run<ConfigUnsetOptions> = RUN): Command {
  return new Command('unset')
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
      run({ f, key: keyOf(key, UNSET_KEYS, 'Keys you can unset'), profileScope: opts.profileScope === true }),
    );
}
