/** `pm <resource> create`, declared: a flag per input field, a parent where it has one, --from-file. */
import type { Command } from 'commander';
import { aOr } from '../../../core/words.js';
import { resourceByPath } from '../../../resources/index.js';
import type { ResourceDef } from '../../../resources/types.js';
import { addBulkFlags } from '../../bulk/flags.js';
import { commandOf } from '../../command.js';
import { usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { addInputFlags, checkName, matchKeys, optKey } from '../../flags.js';
import { examples } from '../../help/examples.js';
import { addOutputFlags } from '../../output/flags.js';
import { bulkOptionsOf, type WithBulk, withBulk } from './bulk.js';
import type { CreateOptions } from './create-run.js';
import { bulkFlagsAlone, type Flags, type ParentOption, str, writeOptions } from './options.js';

const RUNS = withBulk({ create: async (o: CreateOptions) => (await import('./create-run.js')).createRun(o) });

export function newCmdCreate(f: Factory, r: ResourceDef, runs: WithBulk<'create', CreateOptions> = RUNS): Command {
  const cmd = commandOf('create').description(`Create ${aOr(r.singular)}`);
  addInputFlags(cmd, r, 'create');
  for (const parent of r.parents ?? [])
    cmd.option(`--${parent.name} <uuid>`, `the ${resourceByPath(parent.target).singular} it belongs to`);
  if (r.textInput) cmd.option(`--${r.textInput}-file <file>`, `read the ${r.textInput} from a file (- for stdin)`);
  addBulkFlags(cmd, 'create', matchKeys(r));
  addOutputFlags(cmd);
  cmd.addHelpText('after', examples(r, 'create'));
  return cmd.action((flags: Flags) => {
    if (flags.fromFile !== undefined) return runs.bulk(bulkOptionsOf(f, r, 'create', String(flags.fromFile), flags));
    bulkFlagsAlone(flags);
    let parent: ParentOption | undefined;
    if (r.parents) {
      const [p, ...more] = r.parents.filter((x) => flags[optKey(x.name)] !== undefined);
      const names = r.parents.map((p) => `--${p.name}`).join(' or ');
      if (!p || more.length)
        throw usageError(p ? `give only one of ${names}.` : `${aOr(r.singular)} belongs to a parent: give ${names}.`);
      parent = {
        resource: p.target,
        uuid: checkName(resourceByPath(p.target), String(flags[optKey(p.name)]), `--${p.name}`),
      };
    }
    return runs.create({
      ...writeOptions(f, r, flags),
      parent,
      textFile: r.textInput ? str(flags[optKey(`${r.textInput}_file`)]) : undefined,
    });
  });
}
