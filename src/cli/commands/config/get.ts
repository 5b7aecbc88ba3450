/** `pm config get`, declared. */
import { Command } from 'commander';
import { GET_KEYS, keyOf } from './keys.js';
import type { Factory } from '../../factory.js';
import type { ConfigGetOptions } from './get-run.js';
import type { Run } from '../../command.js';

const RUN = async (o: ConfigGetOptions) => (await import('./get-run.js')).configGetRun(o);

export function newCmdConfigGet(f: Factory, run: Run<ConfigGetOptions> = RUN): Command {
  return new Command('get')
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
    .action((key: string) => run({ f, key: keyOf(key, GET_KEYS, 'Keys') }));
}
