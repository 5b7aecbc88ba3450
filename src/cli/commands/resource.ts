/**
 * `pm <resource> list|get|create|update|delete`, generated from the resource descriptions.
 * Each verb: flags declared here, how they combine checked here, the work done in its run
 * function, with everything it needs passed in.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { inputFields, RESOURCES, resourceByPath } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import { MAX_PER_PAGE } from '../../core/limits.js';
import type { Deps } from '../context.js';
import { CliError, EXIT, usageError } from '../errors.js';
import { addFilterFlags, addInputFlags, kebab, optKey } from '../flags.js';
import { globalsOf } from '../globals.js';
import { addBulkFlags, type Verb } from '../bulk/flags.js';
import { examplesText, resourceExamples } from '../help/examples.js';
import { confirm, describeApiError, display, readAllStdin } from './shared.js';
import { registerDue } from './due.js';

/** The clock and zone human dates are read in. */
const when = (deps: Deps) => ({ now: deps.now(), ...(deps.timeZone ? { zone: deps.timeZone } : {}) });

async function bulk(
  r: ResourceDef,
  verb: Verb,
  opts: Opts,
  cmd: Command,
  deps: Deps,
  fromStdin = false,
): Promise<void> {
  const { bodyFromFlags } = await import('../flag-values.js');
  if (verb !== 'delete' && Object.keys(bodyFromFlags(r, opts, verb, when(deps))).length)
    throw usageError('field flags cannot be combined with --from-file: put the fields in the file.');
  const { runBulkWrite } = await import('../bulk/commands.js');
  return runBulkWrite(r, verb, opts, cmd, deps, fromStdin);
}

type Opts = Record<string, unknown>;

const plural = (r: ResourceDef): string => r.plural;

function addOutputFlags(cmd: Command): void {
  cmd
    .option('--json [fields]', 'print JSON; with a comma-separated list, only those fields (--json uuid,city)')
    .option('--fields <list>', 'comma-separated fields to show, in this order, in any format')
    .option('-o, --output <format>', 'table, json, ndjson, csv or tsv (default: table; tab-separated when piped)')
    .option('-q, --quiet', 'print only uuids, one a line (for $(...) and xargs)')
    .option('--jq <expr>', 'filter the JSON with a jq expression; strings print raw (see: pm help output)');
}

const examples = (r: ResourceDef, verb: Parameters<typeof resourceExamples>[1]) =>
  examplesText(resourceExamples(r, verb));

/** "List, show, create, update and delete properties", from the verbs the resource has. */
function verbsSummary(r: ResourceDef): string {
  const words = (['list', 'show', 'create', 'update', 'delete'] as const).filter((w) =>
    w === 'show' ? r.verbs.get : r.verbs[w],
  );
  const said = words.length > 1 ? `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}` : words[0];
  const text = `${said} ${plural(r)}`;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${r.verbs.update ? '' : ` (${plural(r)} cannot be updated)`}`;
}

/**
 * Registers a command group per resource. `only`, when given, names the groups a run uses: the
 * others are declared by name and summary alone (all that `pm --help` shows of them), so a run
 * does not build every verb and flag of every resource.
 */
export function registerResources(program: Command, deps: Deps, only?: ReadonlySet<string>): void {
  for (const r of RESOURCES)
    if (!only || only.has(r.path)) registerResource(program, r, deps);
    else program.command(r.path).description(verbsSummary(r));
}

function registerResource(program: Command, r: ResourceDef, deps: Deps): void {
  const group = program.command(r.path).description(verbsSummary(r));
  group.addHelpText('after', examples(r, 'group'));

  if (r.verbs.list) {
    const cmd = group
      .command('list')
      .alias('ls')
      .description(`List ${plural(r)}, filtered by any of their fields`);
    addFilterFlags(cmd, r);
    cmd
      .option('--page <n>', 'page number, from 1 (default: 1)')
      .option('--per-page <n>', `records a page, 1-${MAX_PER_PAGE} (default: the server's, 10)`)
      .option('--limit <n>', 'fetch pages until N records (default: one page)')
      .option('--all', 'fetch every page; records are written as they arrive');
    if (r.embeds?.length) cmd.option('--embed <names>', `embed related data: ${r.embeds.join(', ')}`);
    addOutputFlags(cmd);
    cmd.addHelpText('after', `\nFilters: pm help filters; dates and ranges: pm help dates.${examples(r, 'list')}`);
    cmd.action((opts: Opts, c: Command) => runList(r, opts, c, deps));
  }

  if (r.verbs.get) {
    const cmd = group.command('get <uuid>').description(`Show one ${r.singular}`);
    if (r.embeds?.length) cmd.option('--embed <names>', `embed related data: ${r.embeds.join(', ')}`);
    addOutputFlags(cmd);
    cmd.addHelpText('after', examples(r, 'get'));
    cmd.action((uuid: string, opts: Opts, c: Command) => runGet(r, uuid, opts, c, deps));
  }

  if (r.verbs.create) {
    const cmd = group.command('create').description(`Create a ${r.singular}`);
    addInputFlags(cmd, r, 'create');
    for (const parent of r.parents ?? [])
      cmd.option(`--${parent.name} <uuid>`, `the ${resourceByPath(parent.target).singular} it belongs to`);
    if (r.textInput)
      cmd.option(`--${kebab(r.textInput)}-file <file>`, `read the ${r.textInput} from a file (- for stdin)`);
    addBulkFlags(cmd, 'create');
    addOutputFlags(cmd);
    cmd.addHelpText('after', examples(r, 'create'));
    cmd.action((opts: Opts, c: Command) =>
      opts.fromFile !== undefined ? bulk(r, 'create', opts, c, deps) : runCreate(r, opts, c, deps),
    );
  }

  if (r.verbs.update) {
    const cmd = group
      .command('update [uuid]')
      .description(`Change fields of a ${r.singular}; fields not given keep their values`);
    addInputFlags(cmd, r, 'update');
    addBulkFlags(cmd, 'update');
    addOutputFlags(cmd);
    cmd.addHelpText('after', examples(r, 'update'));
    cmd.action((uuid: string | undefined, opts: Opts, c: Command) => {
      if (opts.fromFile !== undefined) {
        if (uuid !== undefined) throw usageError('give either <uuid> or --from-file, not both.');
        return bulk(r, 'update', opts, c, deps);
      }
      if (uuid === undefined) throw usageError('missing <uuid> (or --from-file with records that carry their uuid).');
      return runUpdate(r, uuid, opts, c, deps);
    });
  } else {
    group
      .command('update', { hidden: true })
      .description(`Not possible: ${plural(r)} cannot be updated (delete and create again)`)
      .allowUnknownOption()
      .argument('[args...]')
      .action(() => {
        throw new CliError(EXIT.usage, `${r.path} cannot be updated.`, {
          hint: `Delete it with \`pm ${r.path} delete <uuid>\` and create a new one.`,
        });
      });
  }

  if (r.verbs.delete) {
    const cmd = group
      .command('delete [uuid...]')
      .alias('rm')
      .description(`Delete ${plural(r)} by uuid`)
      .option('-y, --yes', 'do not ask for confirmation (needed in scripts and CI, where pm cannot ask)')
      .option('--dry-run', 'print the requests that would be sent, and send nothing')
      .option('-q, --quiet', 'print nothing but errors')
      .option('--json', 'print the result as JSON: [{"uuid": …, "deleted": true}]');
    addBulkFlags(cmd, 'delete');
    cmd.addHelpText('after', examples(r, 'delete'));
    cmd.action(async (uuids: string[], opts: Opts, c: Command) => {
      const fromStdin = uuids.length === 1 && uuids[0] === '-';
      if (opts.fromFile !== undefined || fromStdin) {
        if (opts.fromFile !== undefined && uuids.length)
          throw usageError('give either uuids or --from-file, not both.');
        const what = fromStdin ? 'standard input' : String(opts.fromFile);
        if (!opts.yes && !(await confirm(deps, globalsOf(c), `Delete every ${r.singular} listed in ${what}?`)))
          throw new CliError(EXIT.usage, 'nothing deleted.');
        return bulk(r, 'delete', opts, c, deps, fromStdin);
      }
      if (!uuids.length) throw usageError('missing <uuid...> (or - to read uuids from stdin, or --from-file).');
      return runDelete(r, uuids, opts, c, deps);
    });
  }
  if (r.agenda) registerDue(group, deps);
}

// ------------------------------------------------------------------ run functions

type Spec = import('../output/index.js').OutputSpec;

/** The output flags, checked (a bad --jq is a usage error before any request). */
async function outputSpec(r: ResourceDef, opts: Opts): Promise<Spec> {
  const { outputSpecFrom, prepareOutput } = await import('../output/index.js');
  const spec = outputSpecFrom(r, opts);
  await prepareOutput(spec);
  return spec;
}

/** --embed, plus what the selected fields need (--json custom_fields embeds them). */
function embedList(r: ResourceDef, opts: Opts, spec: Spec): string | undefined {
  const names = new Set<string>();
  if (opts.embed !== undefined) for (const e of String(opts.embed).split(',')) if (e.trim()) names.add(e.trim());
  for (const e of r.embeds ?? []) if (spec.fields?.includes(e)) names.add(e);
  return names.size ? [...names].join(',') : undefined;
}

function pageNumber(flag: string, v: unknown, max?: number): number | undefined {
  if (v === undefined) return undefined;
  const s = String(v);
  if (!/^\d+$/.test(s) || Number(s) < 1) throw usageError(`--${flag} must be a whole number from 1, not "${s}".`);
  if (max !== undefined && Number(s) > max) throw usageError(`--${flag} must be at most ${max}, not ${s}.`);
  return Number(s);
}

async function runList(r: ResourceDef, opts: Opts, cmd: Command, deps: Deps): Promise<void> {
  const { createListPrinter } = await import('../output/index.js');
  const spec = await outputSpec(r, opts);
  const { filterQuery } = await import('../flag-values.js');
  const q = filterQuery(r, opts, deps.now(), deps.timeZone);
  const page = pageNumber('page', opts.page);
  const perPage = pageNumber('per-page', opts.perPage, MAX_PER_PAGE);
  const limit = pageNumber('limit', opts.limit);
  const all = opts.all === true;
  if (all && limit !== undefined) throw usageError('--all and --limit cannot be used together.');
  const embed = embedList(r, opts, spec);
  if (embed) q.set('embed', embed);
  if (page !== undefined) q.set('page', String(page));
  const size = perPage ?? (all ? MAX_PER_PAGE : limit !== undefined ? Math.min(limit, MAX_PER_PAGE) : undefined);
  if (size !== undefined) q.set('per_page', String(size));

  const globals = globalsOf(cmd);
  const { withSession } = await import('../session.js');
  await withSession(globals, deps, async (s) => {
    const printer = createListPrinter(r, spec, await display(deps, globals));
    let first: { total: number; page: number; perPage: number; totalPages: number } | undefined;
    let fetched = 0;
    try {
      const pages = s.client.pages(r, q, all ? Number.POSITIVE_INFINITY : (limit ?? Number.POSITIVE_INFINITY));
      for await (const pg of pages) {
        fetched++;
        first ??= {
          total: pg.pagination.total,
          page: pg.pagination.current_page,
          perPage: pg.pagination.per_page,
          totalPages: pg.pagination.total_pages,
        };
        printer.add(pg.records);
        if (!all && limit === undefined) break;
      }
    } catch (e) {
      throw describeApiError(e, r);
    }
    await printer.end(first ? { ...first, fetchedPages: fetched } : undefined);
  });
}

async function runGet(r: ResourceDef, uuid: string, opts: Opts, cmd: Command, deps: Deps): Promise<void> {
  const { printRecord } = await import('../output/index.js');
  const spec = await outputSpec(r, opts);
  const globals = globalsOf(cmd);
  const { withSession } = await import('../session.js');
  await withSession(globals, deps, async (s) => {
    let rec: Record<string, unknown>;
    try {
      rec = await s.client.get(r, uuid, embedList(r, opts, spec));
    } catch (e) {
      throw describeApiError(e, r);
    }
    await printRecord(r, rec, spec, await display(deps, globals));
  });
}

/** Reads --data: inline JSON, @file, or - for stdin. */
async function dataOption(value: unknown, deps: Deps): Promise<Record<string, unknown>> {
  if (value === undefined) return {};
  const text = String(value);
  let json: string;
  let where = '--data';
  if (text === '-') {
    json = await readAllStdin(deps);
    where = '--data - (stdin)';
  } else if (text.startsWith('@')) {
    const file = text.slice(1);
    try {
      json = readFileSync(file, 'utf8');
    } catch (e) {
      throw usageError(`--data: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`);
    }
    where = `--data ${text}`;
  } else json = text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (e) {
    throw usageError(`${where} is not valid JSON: ${(e as Error).message}.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw usageError(`${where} must be a JSON object.`);
  return parsed as Record<string, unknown>;
}

/** Client-side check of a body, so mistakes fail before any request; unknown keys go to the server. */
async function precheck(r: ResourceDef, body: Record<string, unknown>, mode: 'create' | 'update'): Promise<void> {
  const { fieldErrors } = await import('../writes.js');
  const errors = fieldErrors(r, body, mode);
  if (!errors) return;
  const fields: Record<string, string[]> = {};
  for (const [k, msgs] of Object.entries(errors)) fields[`--${kebab(k.split('.')[0] as string)}`] = msgs;
  throw new CliError(EXIT.usage, `the ${r.singular} is not valid.`, {
    fields,
    hint: `Run 'pm ${r.path} ${mode} --help' for the flags.`,
  });
}

function dryRun(
  s: import('../session.js').Session,
  method: string,
  path: string,
  body: unknown,
  opts: Opts,
  deps: Deps,
): void {
  const url = s.http.url(path).toString();
  const headers = s.http.headers(body !== undefined, true);
  if (opts.json !== undefined || opts.output === 'json') {
    deps.io.stdout.write(
      `${JSON.stringify({ method, url, headers, ...(body !== undefined ? { body } : {}) }, null, 2)}\n`,
    );
    return;
  }
  let text = `${method} ${url}\n`;
  for (const [k, v] of Object.entries(headers)) text += `${k}: ${v}\n`;
  if (body !== undefined) text += `\n${JSON.stringify(body, null, 2)}\n`;
  deps.io.stdout.write(text);
}

async function runCreate(r: ResourceDef, opts: Opts, cmd: Command, deps: Deps): Promise<void> {
  const { printRecord } = await import('../output/index.js');
  const spec = await outputSpec(r, opts);
  let parent: { resource: string; uuid: string } | undefined;
  if (r.parents) {
    const given = r.parents.filter((pp) => opts[optKey(pp.name)] !== undefined);
    const flags = r.parents.map((pp) => `--${pp.name}`).join(' or ');
    if (given.length !== 1)
      throw usageError(
        given.length ? `give only one of ${flags}.` : `a ${r.singular} belongs to a parent: give ${flags}.`,
      );
    const pp = given[0] as NonNullable<ResourceDef['parents']>[number];
    parent = { resource: pp.target, uuid: String(opts[optKey(pp.name)]) };
  }
  const { bodyFromFlags } = await import('../flag-values.js');
  const body = { ...(await dataOption(opts.data, deps)), ...bodyFromFlags(r, opts, 'create', when(deps)) };
  const text = r.textInput;
  if (text && body[text] === undefined) {
    const fileOpt = opts[optKey(`${text}_file`)];
    if (fileOpt !== undefined) {
      const f = String(fileOpt);
      try {
        body[text] = f === '-' ? await readAllStdin(deps) : readFileSync(f, 'utf8');
      } catch (e) {
        throw usageError(
          `--${kebab(text)}-file: cannot read ${f}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`,
        );
      }
    } else if (!deps.io.stdin.isTTY && opts.data !== '-') {
      body[text] = (await readAllStdin(deps)).replace(/\n$/, '');
    }
  }
  await precheck(r, body, 'create');
  const globals = globalsOf(cmd);
  const { withSession } = await import('../session.js');
  await withSession(globals, deps, async (s) => {
    if (opts.dryRun) return dryRun(s, 'POST', s.client.createPath(r, parent), body, opts, deps);
    let rec: Record<string, unknown>;
    try {
      rec = await s.client.create(r, body, parent);
    } catch (e) {
      throw describeApiError(e, parent ? resourceByPath(parent.resource) : r);
    }
    await printRecord(r, rec, spec, await display(deps, globals));
    if (deps.io.stderr.isTTY && !spec.quiet) deps.io.stderr.write(`Created ${r.singular} ${String(rec.uuid ?? '')}.\n`);
  });
}

async function runUpdate(r: ResourceDef, uuid: string, opts: Opts, cmd: Command, deps: Deps): Promise<void> {
  const { printRecord } = await import('../output/index.js');
  const spec = await outputSpec(r, opts);
  const { bodyFromFlags } = await import('../flag-values.js');
  const body = { ...(await dataOption(opts.data, deps)), ...bodyFromFlags(r, opts, 'update', when(deps)) };
  if (Object.keys(body).length === 0)
    throw usageError(
      `nothing to update: give at least one field flag (e.g. --${kebab(inputFields(r)[0]?.name ?? 'uuid')}), --unset or --data.`,
    );
  const globals = globalsOf(cmd);
  const { withSession } = await import('../session.js');
  await withSession(globals, deps, async (s) => {
    try {
      const { fillForUpdate } = await import('../writes.js');
      await fillForUpdate(s.client, r, uuid, body);
      await precheck(r, body, 'update');
      if (opts.dryRun) return dryRun(s, 'PUT', `${r.path}/${encodeURIComponent(uuid)}`, body, opts, deps);
      const rec = await s.client.update(r, uuid, body);
      await printRecord(r, rec, spec, await display(deps, globals));
      if (deps.io.stderr.isTTY && !spec.quiet) deps.io.stderr.write(`Updated ${r.singular} ${uuid}.\n`);
    } catch (e) {
      throw describeApiError(e, r);
    }
  });
}

async function runDelete(r: ResourceDef, uuids: string[], opts: Opts, cmd: Command, deps: Deps): Promise<void> {
  const globals = globalsOf(cmd);
  const unique = [...new Set(uuids)];
  if (!opts.yes && !opts.dryRun) {
    const what = unique.length === 1 ? `${r.singular} ${unique[0]}` : `${unique.length} ${plural(r)}`;
    const ok = await confirm(deps, globals, `Delete ${what}? This cannot be undone.`);
    if (!ok) throw new CliError(EXIT.usage, 'nothing deleted.');
  }
  const { withSession } = await import('../session.js');
  await withSession(globals, deps, async (s) => {
    if (opts.dryRun) {
      for (const u of unique) dryRun(s, 'DELETE', `${r.path}/${encodeURIComponent(u)}`, undefined, opts, deps);
      return;
    }
    const results: { uuid: string; deleted: boolean; error?: string }[] = [];
    let worst: CliError | undefined;
    for (const u of unique) {
      try {
        await s.client.delete(r, u);
        results.push({ uuid: u, deleted: true });
        if (!opts.quiet && !opts.json) deps.io.stderr.write(`Deleted ${r.singular} ${u}.\n`);
      } catch (e) {
        const err = describeApiError(e, r);
        if (err.exitCode === EXIT.interrupted || err.exitCode === EXIT.network || err.exitCode === EXIT.auth) throw err;
        results.push({ uuid: u, deleted: false, error: err.message });
        if (unique.length > 1) deps.io.stderr.write(`error: ${err.message}\n`);
        worst ??= err;
      }
    }
    if (opts.json) deps.io.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    if (worst) {
      if (unique.length === 1) throw worst;
      const failed = results.filter((x) => !x.deleted).length;
      throw new CliError(worst.exitCode, `${failed} of ${unique.length} ${plural(r)} not deleted.`);
    }
  });
}
