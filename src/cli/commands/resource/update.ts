/** `pm <resource> update [uuid]`, declared: a flag per input field, --unset, --from-file. */
import type { Command } from 'commander';
import { aOr } from '../../../core/words.js';
import type { ResourceDef } from '../../../resources/types.js';
import { addBulkFlags } from '../../bulk/flags.js';
import { commandOf } from '../../command.js';
import { usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { addInputFlags, checkNamedFlags, checkName } from '../../flags.js';
import { examples } from '../../help/examples.js';
import { addOutputFlags } from '../../output/flags.js';
import { bulkOptionsOf, type WithBulk, withBulk } from './bulk.js';
import { bulkFlagsAlone, type Flags, writeOptions } from './options.js';
import type { UpdateOptions } from './update-run.js';

const RUNS = withBulk({ update: async (o: UpdateOptions) => (await import('./update-run.js')).updateRun(o) });

export function newCmdUpdate(f: Factory, r: ResourceDef, runs: WithBulk<'update', UpdateOptions> = RUNS): Command {
  const cmd = commandOf('update [uuid]').description(
    `Change fields of ${aOr(r.singular)}; fields not given keep their values`,
  );
  addInputFlags(cmd, r, 'update');
  addBulkFlags(cmd, 'update');
  addOutputFlags(cmd);
  cmd.addHelpText('after', examples(r, 'update'));
  return cmd.action((uuid: string | undefined, flags: Flags) => {
    if (flags.fromFile !== undefined) {
      if (uuid !== undefined) throw usageError('give either <uuid> or --from-file, not both.');
      return runs.bulk(bulkOptionsOf(f, r, 'update', String(flags.fromFile), flags));
    }
    if (uuid === undefined) throw usageError('missing <uuid> (or --from-file with records that carry their uuid).');
    bulkFlagsAlone(flags);
    checkNamedFlags(r, flags);
    return runs.update({ ...writeOptions(f, r, flags), uuid: checkName(r, uuid, '<uuid>') });
  });
}
