/**
 * `pm <resource> list|get|create|update|delete|apply`, generated from the resource descriptions:
 * per verb, typed options and a constructor that checks only how the flags combine; the run
 * functions are in resource-run.ts (docs/architecture.md, "commands/").
 */
import type { Command } from 'commander';
import { embedNames, filterFields, resourceByPath, RESOURCES } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import { MAX_PER_PAGE } from '../../core/limits.js';
import { addBulkFlags, addSendFlags, type Verb } from '../bulk/flags.js';
import { adopt, commandOf } from '../command.js';
import { CliError, EXIT, usageError } from '../errors.js';
import type { Factory } from '../factory.js';
import {
  addFilterFlags,
  addInputFlags,
  checkNamedFlags,
  checkUuid,
  kebab,
  matchKeys,
  optKey,
  splitList,
} from '../flags.js';
import { examples } from '../help/examples.js';
import { inWords } from '../help/text.js';
import { addOutputFlags, outputFlagsOf } from '../output/flags.js';
import type { OutputFlags } from '../output/index.js';
import { newCmdDownload } from './attachments/download.js';
import { newCmdUpload } from './attachments/upload.js';
import { newCmdDue } from './due.js';
import { newCmdFeed } from './feed.js';

type Flags = Readonly<Record<string, unknown>>;

/** What every resource command is given: the factory, and the resource it works on. */
export interface OnResource {
  readonly f: Factory;
  readonly resource: ResourceDef;
}

export interface ListOptions extends OnResource {
  /** Every parsed flag: filterQuery (flag-values.ts) reads the filter flags among them. */
  readonly flags: Flags;
  readonly page?: number | undefined;
  readonly perPage?: number | undefined;
  readonly limit?: number | undefined;
  readonly all: boolean;
  readonly embed?: string | undefined;
  /** Sort what was fetched by these fields, in this order (client-side). */
  readonly sort?: readonly SortKey[] | undefined;
  readonly output: OutputFlags;
}

export interface SortKey {
  readonly field: string;
  readonly desc: boolean;
}

export interface GetOptions extends OnResource {
  readonly uuid: string;
  readonly embed?: string | undefined;
  readonly output: OutputFlags;
}

/** The record a new one is created under (a note's property), by path and uuid. */
export interface ParentOption {
  readonly resource: string;
  readonly uuid: string;
}

interface WriteOptions extends OnResource {
  /** Every parsed flag: bodyFromFlags (flag-values.ts) reads the field flags among them. */
  readonly flags: Flags;
  /** --data: inline JSON, @file or - for stdin. */
  readonly data?: string | undefined;
  readonly dryRun: boolean;
  readonly output: OutputFlags;
}

export interface CreateOptions extends WriteOptions {
  readonly parent?: ParentOption | undefined;
  /** The file (or - for stdin) the description's text input is read from (--content-file). */
  readonly textFile?: string | undefined;
}

export interface UpdateOptions extends WriteOptions {
  readonly uuid: string;
}

export interface DeleteOptions extends OnResource {
  readonly uuids: readonly string[];
  readonly yes: boolean;
  readonly dryRun: boolean;
  readonly quiet: boolean;
  readonly json: boolean;
  /** A record already gone counts as deleted. */
  readonly ignoreNotFound?: boolean;
}

/** A write from records in a file (or uuids on stdin, for delete). */
export interface BulkOptions extends OnResource {
  readonly verb: Verb;
  /** The file, or - for stdin; undefined when delete reads uuids from stdin. */
  readonly fromFile?: string | undefined;
  readonly flags: Flags;
}

/** `apply`: make the records match a file, matched on key fields. */
export interface ApplyOptions extends OnResource {
  /** --from-file, --key, --prune and --dry-run, as their help says. */
  readonly fromFile: string;
  readonly key: string;
  readonly prune: boolean;
  readonly dryRun: boolean;
  /** Every parsed flag: the list filters (for --prune) and the bulk and output flags among them. */
  readonly flags: Flags;
}

/** The real run functions, loaded when a command runs (the one lazy boundary of these commands). */
const RUNS = {
  list: async (o: ListOptions) => (await import('./resource-run.js')).listRun(o),
  get: async (o: GetOptions) => (await import('./resource-run.js')).getRun(o),
  create: async (o: CreateOptions) => (await import('./resource-run.js')).createRun(o),
  update: async (o: UpdateOptions) => (await import('./resource-run.js')).updateRun(o),
  delete: async (o: DeleteOptions) => (await import('./resource-run.js')).deleteRun(o),
  bulk: async (o: BulkOptions) => (await import('../bulk/commands.js')).bulkRun(o),
  apply: async (o: ApplyOptions) => (await import('../bulk/apply.js')).applyRun(o),
};

export type Runs = typeof RUNS;

/** "List, show, create, update and delete properties", from the verbs the resource has. */
function verbsSummary(r: ResourceDef): string {
  const words: string[] = (['list', 'show', 'create', 'update', 'delete'] as const).filter((w) =>
    w === 'show' ? r.verbs.get : r.verbs[w],
  );
  if (r.files) words.splice(0, 0, 'upload', 'download');
  const text = `${inWords(words)} ${r.plural}`;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${r.verbs.update ? '' : ` (${r.plural} cannot be updated)`}`;
}

/** A page number flag: a whole number from 1 (at most `max`). */
function pageNumber(flag: string, v: unknown, max?: number): number | undefined {
  if (v === undefined) return undefined;
  const s = String(v);
  if (!/^\d+$/.test(s) || Number(s) < 1) throw usageError(`--${flag} must be a whole number from 1, not "${s}".`);
  if (max !== undefined && Number(s) > max) throw usageError(`--${flag} must be at most ${max}, not ${s}.`);
  return Number(s);
}

const BULK_ONLY = ['skipExisting', 'validateOnly', 'concurrency', 'failed', 'format'] as const;

/** A bulk flag means nothing without --from-file: given alone, it is refused, not silently ignored. */
function bulkFlagsAlone(flags: Flags): void {
  const given = BULK_ONLY.find((k) => flags[k] !== undefined);
  if (given)
    throw usageError(
      `--${given.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} goes with --from-file: it means nothing for a single record.`,
    );
}

const str = (v: unknown): string | undefined => (v === undefined ? undefined : String(v));

/** --embed: names the resource can embed, checked before any request. */
function embedOf(r: ResourceDef, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const bad = splitList(String(value)).find((n) => !embedNames(r).includes(n));
  if (bad) throw usageError(`--embed: ${r.path} cannot embed "${bad}"; they can embed ${embedNames(r).join(', ')}.`);
  return String(value);
}

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

/** What create and update read alike: every flag, --data, --dry-run and the output flags. */
function writeOptions(f: Factory, r: ResourceDef, flags: Flags): WriteOptions {
  return { f, resource: r, flags, data: str(flags.data), dryRun: flags.dryRun === true, output: outputFlagsOf(flags) };
}

function addEmbedFlag(cmd: Command, r: ResourceDef): void {
  if (embedNames(r).length) cmd.option('--embed <names>', `embed related data: ${embedNames(r).join(', ')}`);
}

export function newCmdList(f: Factory, r: ResourceDef, run: Runs['list'] = RUNS.list): Command {
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
  addEmbedFlag(cmd, r);
  addOutputFlags(cmd);
  cmd.addHelpText('after', `\nFilters: pm help filters; dates and ranges: pm help dates.${examples(r, 'list')}`);
  return cmd.action((flags: Flags) => {
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

export function newCmdGet(f: Factory, r: ResourceDef, run: Runs['get'] = RUNS.get): Command {
  const cmd = commandOf('get <uuid>').description(`Show one ${r.singular}`);
  addEmbedFlag(cmd, r);
  addOutputFlags(cmd);
  cmd.addHelpText('after', examples(r, 'get'));
  return cmd.action((uuid: string, flags: Flags) =>
    run({
      f,
      resource: r,
      uuid: checkUuid(uuid, '<uuid>'),
      embed: embedOf(r, flags.embed),
      output: outputFlagsOf(flags),
    }),
  );
}

export function newCmdCreate(f: Factory, r: ResourceDef, runs: Pick<Runs, 'create' | 'bulk'> = RUNS): Command {
  const cmd = commandOf('create').description(`Create a ${r.singular}`);
  addInputFlags(cmd, r, 'create');
  for (const parent of r.parents ?? [])
    cmd.option(`--${parent.name} <uuid>`, `the ${resourceByPath(parent.target).singular} it belongs to`);
  if (r.textInput) cmd.option(`--${r.textInput}-file <file>`, `read the ${r.textInput} from a file (- for stdin)`);
  addBulkFlags(cmd, 'create', matchKeys(r));
  addOutputFlags(cmd);
  cmd.addHelpText('after', examples(r, 'create'));
  return cmd.action((flags: Flags) => {
    if (flags.fromFile !== undefined)
      return runs.bulk({ f, resource: r, verb: 'create', fromFile: String(flags.fromFile), flags });
    bulkFlagsAlone(flags);
    let parent: ParentOption | undefined;
    if (r.parents) {
      const [p, ...more] = r.parents.filter((x) => flags[optKey(x.name)] !== undefined);
      const names = r.parents.map((p) => `--${p.name}`).join(' or ');
      if (!p || more.length)
        throw usageError(p ? `give only one of ${names}.` : `a ${r.singular} belongs to a parent: give ${names}.`);
      parent = { resource: p.target, uuid: checkUuid(String(flags[optKey(p.name)]), `--${p.name}`) };
    }
    return runs.create({
      ...writeOptions(f, r, flags),
      parent,
      textFile: r.textInput ? str(flags[optKey(`${r.textInput}_file`)]) : undefined,
    });
  });
}

export function newCmdUpdate(f: Factory, r: ResourceDef, runs: Pick<Runs, 'update' | 'bulk'> = RUNS): Command {
  const cmd = commandOf('update [uuid]').description(
    `Change fields of a ${r.singular}; fields not given keep their values`,
  );
  addInputFlags(cmd, r, 'update');
  addBulkFlags(cmd, 'update');
  addOutputFlags(cmd);
  cmd.addHelpText('after', examples(r, 'update'));
  return cmd.action((uuid: string | undefined, flags: Flags) => {
    if (flags.fromFile !== undefined) {
      if (uuid !== undefined) throw usageError('give either <uuid> or --from-file, not both.');
      return runs.bulk({ f, resource: r, verb: 'update', fromFile: String(flags.fromFile), flags });
    }
    if (uuid === undefined) throw usageError('missing <uuid> (or --from-file with records that carry their uuid).');
    bulkFlagsAlone(flags);
    checkNamedFlags(r, flags);
    return runs.update({ ...writeOptions(f, r, flags), uuid: checkUuid(uuid, '<uuid>') });
  });
}

export function newCmdDelete(f: Factory, r: ResourceDef, runs: Pick<Runs, 'delete' | 'bulk'> = RUNS): Command {
  const cmd = commandOf('delete [uuid...]')
    .alias('rm')
    .description(`Delete ${r.plural} by uuid`)
    .option('-y, --yes', 'do not ask for confirmation (needed in scripts and CI, where pm cannot ask)')
    .option('--dry-run', 'print the requests that would be sent, and send nothing')
    .option('-q, --quiet', 'print nothing but errors')
    .option('--json', 'print the result as JSON: [{"uuid": …, "deleted": true}]')
    .option('--ignore-not-found', 'a record already gone is not an error (exit 0), as kubectl does');
  addBulkFlags(cmd, 'delete');
  cmd.addHelpText('after', examples(r, 'delete'));
  return cmd.action((uuids: string[], flags: Flags) => {
    const fromStdin = uuids.length === 1 && uuids[0] === '-';
    if (flags.fromFile !== undefined || fromStdin) {
      if (flags.fromFile !== undefined && uuids.length) throw usageError('give either uuids or --from-file, not both.');
      return runs.bulk({ f, resource: r, verb: 'delete', fromFile: str(flags.fromFile), flags });
    }
    if (!uuids.length) throw usageError('missing <uuid...> (or - to read uuids from stdin, or --from-file).');
    bulkFlagsAlone(flags);
    return runs.delete({
      f,
      resource: r,
      uuids: uuids.map((u) => checkUuid(u, '<uuid>')),
      yes: flags.yes === true,
      dryRun: flags.dryRun === true,
      quiet: flags.quiet === true,
      json: flags.json === true,
      ignoreNotFound: flags.ignoreNotFound === true,
    });
  });
}

/** A filter to name in a message: the first text one. */
const pruneExample = (r: ResourceDef) =>
  (filterFields(r).find((x) => x.filter === 'fuzzy') ?? filterFields(r)[0])?.name ?? 'uuid';

export function newCmdApply(f: Factory, r: ResourceDef, run: Runs['apply'] = RUNS.apply): Command {
  const cmd = commandOf('apply')
    .description(`Make the ${r.plural} match a file: create the missing, update the changed, leave the rest`)
    .requiredOption('--from-file <file>', 'the records as they should be: NDJSON, a JSON array or CSV (- for stdin)')
    .requiredOption('--key <fields>', `the fields a record is matched on, e.g. ${matchKeys(r)}`)
    .option('--prune', `also delete the ${r.plural} the filters below select that are not in the file`)
    .option('-y, --yes', 'delete what --prune selects without asking (needed in scripts and CI, where pm cannot ask)')
    .option('--dry-run', 'print the plan (create, update, delete, unchanged) and send nothing');
  addSendFlags(cmd)
    .option('-q, --quiet', 'print the uuid of each record of the file, and nothing else')
    .option('--json', 'print the result (or the plan, with --dry-run) as JSON');
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
--prune lists what it would delete and asks first (--yes where nobody can answer).${examples(r, 'apply')}`,
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
      dryRun: flags.dryRun === true,
      flags,
    });
  });
}

/** `update` on a resource that has none: a clear refusal instead of "unknown command". */
function newCmdNoUpdate(r: ResourceDef): Command {
  return commandOf('update')
    .description(`Not possible: ${r.plural} cannot be updated (delete and create again)`)
    .allowUnknownOption()
    .argument('[args...]')
    .action(() => {
      throw new CliError(EXIT.usage, `${r.path} cannot be updated.`, {
        hint: `Delete it with \`pm ${r.path} delete <uuid>\` and create a new one.`,
      });
    });
}

/**
 * Registers a command group per resource. `only`, when given, names the groups a run uses: the
 * others are declared by name and summary alone (all that `pm --help` shows of them), so a run
 * does not build every verb and flag of every resource.
 */
/**
 * A command group per resource. With `only`, the groups it names are built in full (the others
 * are a name and a summary); with `verb` too (`pm properties list`), a group builds that verb's
 * command alone when it has one so named: commander needs no other to run it.
 */
export function registerResources(program: Command, f: Factory, only?: ReadonlySet<string>, verb?: string): void {
  for (const r of RESOURCES) {
    const group = program.command(r.path).description(verbsSummary(r));
    if (only && !only.has(r.path)) continue;
    group.addHelpText('after', examples(r, 'group'));
    // Each verb by its names (aliases included), and how to build it.
    const verbs: [names: readonly string[], build: () => Command, hidden?: boolean][] = [];
    if (r.verbs.list) verbs.push([['list', 'ls'], () => newCmdList(f, r)]);
    if (r.verbs.get) verbs.push([['get'], () => newCmdGet(f, r)]);
    if (r.verbs.create) verbs.push([['create'], () => newCmdCreate(f, r)]);
    if (r.verbs.update) verbs.push([['update'], () => newCmdUpdate(f, r)]);
    else verbs.push([['update'], () => newCmdNoUpdate(r), true]);
    if (r.verbs.delete) verbs.push([['delete', 'rm'], () => newCmdDelete(f, r)]);
    if (r.verbs.create && r.verbs.list) verbs.push([['apply'], () => newCmdApply(f, r)]);
    if (r.files) verbs.push([['upload'], () => newCmdUpload(f, r)], [['download'], () => newCmdDownload(f, r)]);
    if (r.agenda) verbs.push([['due'], () => newCmdDue(f, r)]);
    if (r.agenda) verbs.push([['feed'], () => newCmdFeed(f, r)]);
    const named = verb === undefined ? undefined : verbs.find(([names]) => names.includes(verb));
    for (const [, build, hidden] of named ? [named] : verbs) adopt(group, build(), { hidden: hidden === true });
  }
}
