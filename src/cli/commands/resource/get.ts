/** `pm <resource> get <uuid>`, declared. */
import type { Command } from 'commander';
import type { ResourceDef } from '../../../resources/types.js';
import { commandOf, type Run } from '../../command.js';
import type { Factory } from '../../factory.js';
import { checkName } from '../../flags.js';
import { examples } from '../../help/examples.js';
import { addOutputFlags, outputFlagsOf } from '../../output/flags.js';
import type { GetOptions } from './get-run.js';
import { addEmbedFlag, embedOf, type Flags } from './options.js';

const RUN = async (o: GetOptions) => (await import('./get-run.js')).getRun(o);

export function newCmdGet(f: Factory, r: ResourceDef, run: Run<GetOptions> = RUN): Command {
  const cmd = commandOf('get <uuid>').description(`Show one ${r.singular}`);
  addEmbedFlag(cmd, r);
  addOutputFlags(cmd);
  cmd.addHelpText('after', examples(r, 'get'));
  return cmd.action((uuid: string, flags: Flags) =>
    run({
      f,
      resource: r,
      uuid: checkName(r, uuid, '<uuid>'),
      embed: embedOf(r, flags.embed),
      output: outputFlagsOf(flags),
    }),
  );
}
