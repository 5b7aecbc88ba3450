/** `pm <resource> apply`, declared: --from-file, --key, and --prune with the list filters. */
import type { Command } from 'commander';
import { filterFields } from '../../../resources/index.js';
import type { ResourceDef } from '../../../resources/types.js';
import { addSendFlags, sendOptionsOf } from '../../bulk/flags.js';
import { commandOf, type Run } from '../../command.js';
import { usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { addFilterFlags, kebab, matchKeys } from '../../flags.js';
import { examples } from '../../help/examples.js';
import type { ApplyOptions } from './apply-run.js';
import type { Flags } from './options.js';
import { addDataFlags, dataFlagsOf } from '../../output/flags.js';

const RUN = async (o: ApplyOptions) => (await import('./apply-run.js')).applyRun(o);

/** A filter to name in a message: the first text one. */
const pruneExample = (r: ResourceDef) =>
  (filterFields(r).find((x) => x.filter === 'fuzzy') ?? filterFields(r)[0])?.name ?? 'uuid';

export function newCmdApply(f: Factory, r: ResourceDef, run: Run<ApplyOptions> = RUN): Command {
  const cmd = commandOf('apply')
    .description(`Make the ${r.plural} match a file: create the missing, update the changed, leave the rest`)
    .requiredOption('--from-file <file>', 'the records as they should be: NDJSON, a JSON array or CSV (- for stdin)')
    .requiredOption('--key <fields>', `the fields a record is matched on, e.g. ${matchKeys(r)}`)
    .option('--prune', `also delete the ${r.plural} the filters below select that are not in the file`)
    .option(
      '--dedupe',
      `where several ${r.plural} have the --key fields of a record of the file, keep the oldest and delete the others`,
    )
    .option(
      '-y, --yes',
      'delete what --prune or --dedupe selects without asking (needed in scripts and CI, where pm cannot ask)',
    )
    .option('--dry-run', 'print the plan (create, update, delete, unchanged) and send nothing');
  addSendFlags(cmd).option('-q, --quiet', 'print the uuid of each record of the file, and nothing else');
  addDataFlags(cmd, 'print the result (or the plan, with --dry-run) as JSON');
  const declared = cmd.options.length;
  addFilterFlags(cmd, r);
  // The filter flags, as declared: given, they select what --prune may delete.
  const filterKeys = cmd.options.slice(declared).map((o) => o.attributeName());
  cmd.addHelpText(
    'after',
    `
Each record of the file is matched to the one ${r.singular} with the same --key
fields: missing, it is created; found, only the fields that differ from the file
are sent; the same, it is left alone. Run twice, apply changes nothing the
second time. --prune needs a filter, so that it deletes only what it should; a
text filter selects every ${r.singular} whose field contains the text, ignoring case.
--prune lists what it would delete and asks first (--yes where nobody can answer).
Several ${r.plural} with the key of one record of the file (made twice by hand, or
by runs against a server without idempotency keys) are named, and that record
fails (exit 1); --dedupe keeps the oldest of them and deletes the others, asking
first as --prune does.
A blank CSV cell (or "" in JSON) clears the field; a required field cannot be
blank. A column the file does not have leaves that field as it is.${examples(r, 'apply')}`,
  );
  return cmd.action((flags: Flags) => {
    const filters = filterKeys.some((k) => flags[k] !== undefined);
    if (flags.prune && !filters)
      throw usageError(
        `--prune needs a filter (such as --${kebab(pruneExample(r))}): it deletes what the filters select and the file lacks.`,
      );
    if (!flags.prune && filters) throw usageError('filters go with --prune: they select what it may delete.');
    return run({
      f,
      resource: r,
      fromFile: String(flags.fromFile),
      key: String(flags.key),
      prune: flags.prune === true,
      dedupe: flags.dedupe === true,
      dryRun: flags.dryRun === true,
      yes: flags.yes === true,
      quiet: flags.quiet === true,
      json: flags.json !== undefined || flags.jq !== undefined,
      output: dataFlagsOf(flags),
      send: sendOptionsOf(flags),
      flags,
    });
  });
}
