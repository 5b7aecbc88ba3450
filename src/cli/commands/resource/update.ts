/** `pm <resource> update [uuid]`, declared: a flag per input field, --unset, --from-file. */
import { type Command, Option } from 'commander';
import { aOr } from '../../../core/words.js';
import type { FieldDef, ResourceDef } from '../../../resources/types.js';
import { addBulkFlags } from '../../bulk/flags.js';
import { commandOf } from '../../command.js';
import { usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { addInputFlags, checkNamedFlags, checkName, kebab, optKey } from '../../flags.js';
import { examples } from '../../help/examples.js';
import { addOutputFlags } from '../../output/flags.js';
import { bulkOptionsOf, type WithBulk, withBulk } from './bulk.js';
import { bulkFlagsAlone, type Flags, writeOptions } from './options.js';
import type { UpdateOptions } from './update-run.js';

const RUNS = withBulk({ update: async (o: UpdateOptions) => (await import('./update-run.js')).updateRun(o) });

/** --expires DATE and --no-expires, as --expires-on DATE and --unset expires_on. */
function expiryInput(expiry: FieldDef, given: Flags): Flags {
  const { expires, ...flags } = given as Record<string, unknown>;
  if (expires === undefined) return flags;
  const own = optKey(expiry.name);
  if (flags[own] !== undefined) throw usageError(`give one of --${kebab(expiry.name)} and --expires.`);
  if (expires === false) flags.unset = [...((flags.unset as string[] | undefined) ?? []), expiry.name];
  else flags[own] = expires;
  return flags;
}

export function newCmdUpdate(f: Factory, r: ResourceDef, runs: WithBulk<'update', UpdateOptions> = RUNS): Command {
  const cmd = commandOf('update [uuid]').description(
    `Change fields of ${aOr(r.singular)}; fields not given keep their values`,
  );
  addInputFlags(cmd, r, 'update');
  const expiry = r.fields.find((x) => x.expiry && !x.readOnly);
  if (expiry)
    cmd
      .option('--expires <date>', `the same as --${kebab(expiry.name)}: 2028-03-01, "in 1 year"`)
      .addOption(new Option('--no-expires', `clear ${expiry.name}: it never expires`));
  addBulkFlags(cmd, 'update');
  addOutputFlags(cmd);
  cmd.addHelpText('after', examples(r, 'update'));
  return cmd.action((uuid: string | undefined, given: Flags) => {
    const flags = expiry ? expiryInput(expiry, given) : given;
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
