/** `pm config path`, declared. */
import { Command } from 'commander';
import type { Factory } from '../../factory.js';
import type { ConfigPathOptions } from './path-run.js';
import type { Run } from '../../command.js';

const RUN = async (o: ConfigPathOptions) => (await import('./path-run.js')).configPathRun(o);

export function newCmdConfigPath(f: Factory, run: Run<ConfigPathOptions> = RUN): Command {
  return new Command('path')
    .description('Print the path of the user config, and of the project config on a second line if one is found')
    .addHelpText(
      'after',
      `
Examples:
  pm config path
  $EDITOR "$(pm config path | head -n 1)"`,
    )
    .action(() => run({ f }));
}
