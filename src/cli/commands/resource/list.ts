/** `pm <resource> list`, declared: a flag per filterable field, paging, sorting, output. */
import type { Command } from 'commander';
import type { FieldDef, ResourceDef } from '../../../resources/types.js';
import { MAX_PER_PAGE } from '../../../core/limits.js';
import { commandOf, type Run } from '../../command.js';
import { usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { addFilterFlags, kebab, optKey, splitList } from '../../flags.js';
import { examples } from '../../help/examples.js';
import { addOutputFlags, outputFlagsOf } from '../../output/flags.js';
import type { ListOptions, SortKey } from './list-run.js';
import { addEmbedFlag, embedOf, type Flags, pageNumber } from './options.js';

const RUN = async (o: ListOptions) => (await import('./list-run.js')).listRun(o);

/** --sort city,bedrooms:desc: fields of the resource, each ascending unless :desc. */
function sortOf(r: ResourceDef, value: unknown): SortKey[] | undefined {
  if (value === undefined) return undefined;
  const keys = splitList(String(value)).map((part) => {
    const m = /^([a-z0-9_-]+)(?::(asc|desc))?$/i.exec(part);
    const field = m?.[1]?.replace(/-/g, '_');
    if (!m || !r.fields.some((x) => x.name === field))
      throw usageError(
        `--sort: "${part}" is not a field of ${r.plural} (with :asc or :desc).`,
        `Fields: ${r.fields.map((x) => x.name).join(', ')}.`,
      );
    return { field: field as string, desc: m[2]?.toLowerCase() === 'desc' };
  });
  if (!keys.length) throw usageError('--sort takes field names: --sort city,bedrooms:desc.');
  return keys;
}

/** --expiring and --expired, as the expiry field's own filter flag (--expires-on) would give them. */
function expiryFlags(f: Factory, expiry: FieldDef, given: Flags): Flags {
  const own = optKey(expiry.name);
  const { expiring, expired, ...flags } = given as Record<string, unknown>;
  if ([flags[own] !== undefined, expiring !== undefined, expired === true].filter(Boolean).length > 1)
    throw usageError(`give one of --${kebab(expiry.name)}, --expiring and --expired.`);
  if (expiring !== undefined) flags[own] = expiring;
  // From the earliest date there is to today (excluded): what expired before today.
  if (expired === true) flags[own] = `0001-01-01/${new Date(f.now()).toISOString().slice(0, 10)}`;
  return flags;
}

export function newCmdList(f: Factory, r: ResourceDef, run: Run<ListOptions> = RUN): Command {
  const cmd = commandOf('list').alias('ls').description(`List ${r.plural}, filtered by any of their fields`);
  addFilterFlags(cmd, r);
  cmd
    .option('--page <n>', 'page number, from 1 (default: 1)')
    .option('--per-page <n>', `records a page, 1-${MAX_PER_PAGE} (default: the server's, 10)`)
    .option('--limit <n>', 'fetch pages until N records (default: one page)')
    .option('--all', 'fetch every page; records are written as they arrive')
    .option(
      '--sort <fields>',
      'sort what was fetched by these fields, each :desc for descending (city,bedrooms:desc); the server always pages oldest first, so with --all this sorts everything',
    );
  const expiry = r.fields.find((x) => x.expiry && x.filter);
  if (expiry)
    cmd
      .option('--expiring <range>', `those whose ${expiry.name} falls in a range: "next 60 days", P60D, 2027-03`)
      .option('--expired', `those whose ${expiry.name} is before today`);
  addEmbedFlag(cmd, r);
  addOutputFlags(cmd);
  cmd.addHelpText('after', `\nFilters: pm help filters; dates and ranges: pm help dates.${examples(r, 'list')}`);
  return cmd.action((given: Flags) => {
    const flags = expiry ? expiryFlags(f, expiry, given) : given;
    const options: ListOptions = {
      f,
      resource: r,
      flags,
      // --limit first: its mistake is the one reported when --page has one too.
      limit: pageNumber('limit', flags.limit),
      page: pageNumber('page', flags.page),
      perPage: pageNumber('per-page', flags.perPage, MAX_PER_PAGE),
      all: flags.all === true,
      embed: embedOf(r, flags.embed),
      sort: sortOf(r, flags.sort),
      output: outputFlagsOf(flags),
    };
    if (options.all && options.limit !== undefined) throw usageError('--all and --limit cannot be used together.');
    if (options.all && options.page !== undefined)
      throw usageError('--all fetches every page from the first: drop --page, or --all to fetch from that page on.');
    return run(options);
  });
}
