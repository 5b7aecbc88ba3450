/** The run functions of `pm <resource> list|get|create|update|delete` (resource.ts declares them). */
import type { ResourceDef } from '../../resources/types.js';
import {
  CUSTOM_FIELD_KEYS,
  customFields,
  CUSTOM_VALUES_KEY,
  childrenOf,
  embedsOf,
  inputFields,
  resourceByPath,
} from '../../resources/index.js';
import { isObject } from '../../core/json.js';
import { isCodeValue, isWholeUuid } from '../../core/kinds.js';
import { printableUrl, visible } from '../../core/redact.js';
import { MAX_PER_PAGE } from '../../core/limits.js';
import { encodeListQuery } from '../../core/query.js';
import { mark } from '../../core/timing.js';
import { CliError, EXIT, oneKind, usageError } from '../errors.js';
import type { Factory } from '../factory.js';
import { bodyFromFlags, filterQuery, setChanges, withClientDefaults } from '../flag-values.js';
import { kebab, setChangeFlags, splitList } from '../flags.js';
import { readFileOrStdin, readInline, readStdin } from '../input.js';
import {
  autoEmbeds,
  createListPrinter,
  customColumnsWanted,
  embedsFor,
  type OutputFlags,
  type OutputSpec,
  type PageInfo,
  outputSpecFrom,
  prepareOutput,
  printRecord,
} from '../output/index.js';
import { HttpStatusError } from '../../client/errors.js';
import type { Session } from '../session.js';
import { resolveUuid, resolveUuidFlags, uuidFlagsChecked } from '../uuids.js';
import { fieldErrors, fillForUpdate } from '../writes.js';
import type * as Cmd from './resource.js';
import { confirmDelete, countOf, describeApiError, describeRecord, everyRecord, when } from './shared.js';

/** The output flags, checked (a bad --jq is a usage error before any request). */
async function outputSpec(r: ResourceDef, flags: OutputFlags): Promise<OutputSpec> {
  const spec = outputSpecFrom(r, flags);
  await prepareOutput(spec);
  return spec;
}

/**
 * --embed, plus what the selected fields need (--json custom_fields embeds them) and, with `auto`,
 * what a table shows of the records it links to: of a list (a note's parent, a status), or of
 * `one` record (its links and sets too).
 */
function embedList(r: ResourceDef, embed: string | undefined, spec: OutputSpec, auto: boolean, one = false): string[] {
  const given = splitList(embed ?? '');
  return [...new Set([...given, ...embedsFor(r, spec), ...(auto ? autoEmbeds(r, spec, one) : [])])];
}

/**
 * An answer refusing what a table embeds of itself: a server that does not know the embed (a 400
 * naming it), a token without the embed's read scope (403). Any other 400 is the request's own.
 */
const embedRefused = (e: unknown): boolean =>
  e instanceof HttpStatusError && (e.status === 403 || (e.status === 400 && /\bembed\b/i.test(e.message)));

/**
 * CSV and TSV with custom values embedded: the names of every custom field of `r`, a column each
 * (custom_fields.NAME), read before the first record is written. Where they cannot be read, the
 * columns of the first record's values.
 */
async function customColumns(s: Session, r: ResourceDef, spec: OutputSpec, embed: readonly string[]) {
  if (!r.customValues || !customColumnsWanted(spec) || !embed.includes(CUSTOM_VALUES_KEY)) return;
  const entity = { [CUSTOM_FIELD_KEYS.entity]: [String(r.customValues.entity)] };
  const names: string[] = [];
  try {
    for await (const cf of everyRecord(s, customFields, encodeListQuery(customFields, { fields: entity })))
      names.push(String(cf[CUSTOM_FIELD_KEYS.name]));
  } catch {
    return;
  }
  spec.customFields = names;
}

export async function listRun(o: Cmd.ListOptions): Promise<void> {
  const { f, resource: r } = o;
  const spec = await outputSpec(r, o.output);
  const size =
    o.perPage ?? (o.all ? MAX_PER_PAGE : o.limit !== undefined ? Math.min(o.limit, MAX_PER_PAGE) : undefined);
  const query = (auto: boolean, flags = o.flags) => {
    const q = filterQuery(r, flags, f.now(), f.timeZone);
    for (const [k, v] of encodeListQuery(r, { embed: embedList(r, o.embed, spec, auto), page: o.page, perPage: size }))
      q.set(k, v);
    return q;
  };
  const auto = autoEmbeds(r, spec).length > 0;
  // The filters are read (and a mistake refused) before anything is opened; a uuid's beginning
  // (--property 3f2a9c1e) is then resolved, and the query made again with the whole uuid.
  let q = query(auto, uuidFlagsChecked(r, o.flags));

  const s = await f.session();
  const flags = await resolveUuidFlags(s, r, o.flags);
  if (flags !== o.flags) q = query(auto, flags);
  await customColumns(s, r, spec, embedList(r, o.embed, spec, false));
  const printer = createListPrinter(r, spec, await f.display({ paged: true }));
  let first: PageInfo | undefined;
  let fetched = 0;
  const held: Record<string, unknown>[] = [];
  const limit = o.all ? Number.POSITIVE_INFINITY : (o.limit ?? Number.POSITIVE_INFINITY);
  const pagesOf = async function* () {
    try {
      yield* s.client.pages(r, q, limit);
    } catch (e) {
      // A server that does not embed a note's parent (the hosted one), a token that may not read
      // statuses: the list without them.
      if (!(auto && fetched === 0 && embedRefused(e))) throw e;
      yield* s.client.pages(r, query(false, flags), limit);
    }
  };
  let arrived = 0;
  try {
    for await (const pg of pagesOf()) {
      fetched++;
      arrived += pg.records.length;
      first ??= {
        total: pg.pagination.total,
        page: pg.pagination.current_page,
        perPage: pg.pagination.per_page,
        totalPages: pg.pagination.total_pages,
      };
      // Sorted output waits for every record; otherwise each page is written as it arrives.
      if (o.sort) held.push(...pg.records);
      else printer.add(pg.records);
      if (!o.all && o.limit === undefined) break;
    }
  } catch (e) {
    const err = describeApiError(e, r);
    if (err.exitCode !== EXIT.interrupted || !first) throw err;
    // Ctrl-C: what has arrived is written out whole (sorted, a JSON array closed, the footer
    // saying how far it got), and the exit code says the list was cut short.
    if (o.sort) printer.add(sortRecords(r, held, o.sort));
    await printer.end({ ...first, fetchedPages: fetched, interrupted: true });
    throw new CliError(EXIT.interrupted, `interrupted: ${arrived} of ${first.total} ${r.plural} listed.`);
  }
  mark('answered');
  if (o.sort) printer.add(sortRecords(r, held, o.sort));
  await printer.end(first ? { ...first, fetchedPages: fetched } : undefined);
  mark('printed');
}

/** Records sorted by the keys: numbers as numbers, times as instants, text ignoring case; empty last. */
function sortRecords(r: ResourceDef, records: Record<string, unknown>[], keys: readonly Cmd.SortKey[]) {
  const value = (v: unknown, kind: string | undefined): number | string | undefined => {
    if (v === null || v === undefined || v === '') return undefined;
    if (isCodeValue(v)) return Number(v.code);
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (typeof v === 'number') return v;
    if (kind === 'datetime' || kind === 'date_or_datetime') return Date.parse(String(v));
    return String(v).toLowerCase();
  };
  const kinds = new Map(r.fields.map((x) => [x.name, x.kind]));
  return [...records].sort((a, b) => {
    for (const k of keys) {
      const x = value(a[k.field], kinds.get(k.field));
      const y = value(b[k.field], kinds.get(k.field));
      if (x === y) continue;
      if (x === undefined) return 1;
      if (y === undefined) return -1;
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      if (c !== 0) return k.desc ? -c : c;
    }
    return 0;
  });
}

export async function getRun(o: Cmd.GetOptions): Promise<void> {
  const { f, resource: r } = o;
  const spec = await outputSpec(r, o.output);
  const s = await f.session();
  const uuid = await resolveUuid(s, r, o.uuid, '<uuid>');
  await customColumns(s, r, spec, embedList(r, o.embed, spec, false, true));
  const get = async (auto: boolean) => {
    const embed = embedList(r, o.embed, spec, auto, true);
    return s.client.get(r, uuid, embed.length ? embed.join(',') : undefined);
  };
  const rec = await get(true)
    .catch((e) => {
      // As a list's: the record without what it cannot embed.
      if (!(autoEmbeds(r, spec, true).length && embedRefused(e))) throw e;
      return get(false);
    })
    .catch((e) => {
      throw describeApiError(e, r);
    });
  mark('answered');
  await printRecord(r, rec, spec, await f.display());
  mark('printed');
}

/** --data: inline JSON, @file, or - for stdin; a JSON object. */
async function dataOption(value: string | undefined, f: Factory): Promise<Record<string, unknown>> {
  if (value === undefined) return {};
  const { text, where } = await readInline(value, f, '--data');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw usageError(`${where} is not valid JSON: ${(e as Error).message}.`);
  }
  if (!isObject(parsed)) throw usageError(`${where} must be a JSON object.`);
  return parsed;
}

/** Client-side check of a body, so mistakes fail before any request; unknown keys go to the server. */
function precheck(r: ResourceDef, body: Record<string, unknown>, mode: 'create' | 'update'): void {
  const errors = fieldErrors(r, body, mode);
  if (!errors) return;
  const fields: Record<string, string[]> = {};
  for (const [k, msgs] of Object.entries(errors)) fields[`--${kebab(k.split('.')[0] as string)}`] = msgs;
  throw new CliError(EXIT.usage, `the ${r.singular} is not valid.`, {
    fields,
    hint: `Run 'pm ${r.path} ${mode} --help' for the flags.`,
  });
}

/** --dry-run: the request that would be sent, token redacted. */
function dryRun(s: Session, f: Factory, method: string, path: string, body: unknown, output: OutputFlags): void {
  const url = printableUrl(s.http.url(path).toString());
  const headers = s.http.headers(body !== undefined, true);
  if (output.json !== undefined || output.output === 'json') {
    // JSON leaves out an undefined body.
    f.io.stdout.write(`${JSON.stringify({ method, url, headers, body }, null, 2)}\n`);
    return;
  }
  let text = `${method} ${url}\n`;
  for (const [k, v] of Object.entries(headers)) text += `${k}: ${v}\n`;
  if (body !== undefined) text += `\n${JSON.stringify(body, null, 2)}\n`;
  f.io.stdout.write(text);
}

/**
 * The record a write answered, with the links and sets the write set (a status, competencies)
 * embedded, so that what was set is seen: a write's answer has no embeds, so they are read once
 * more, and only when the body gave one. Where they cannot be read, the answer as it came.
 */
async function withWritten(
  s: Session,
  r: ResourceDef,
  rec: Record<string, unknown>,
  body: Record<string, unknown>,
  spec: OutputSpec,
): Promise<Record<string, unknown>> {
  const names = embedsOf(r)
    .filter((e) => e.kind !== 'custom_values' && body[e.name] !== undefined)
    .map((e) => e.name);
  if (!names.length || spec.quiet || typeof rec.uuid !== 'string') return rec;
  return s.client.get(r, rec.uuid, names.join(',')).catch(() => rec);
}

export async function createRun(o: Cmd.CreateOptions): Promise<void> {
  const { f, resource: r } = o;
  const spec = await outputSpec(r, o.output);
  const body = { ...(await dataOption(o.data, f)), ...bodyFromFlags(r, o.flags, 'create', when(f)) };
  withClientDefaults(r, body, when(f));
  const text = r.textInput;
  if (text && body[text] === undefined) {
    if (o.textFile !== undefined) body[text] = await readFileOrStdin(o.textFile, f, `--${kebab(text)}-file`);
    else if (!f.io.stdin.isTTY && o.data !== '-') body[text] = (await readStdin(f)).replace(/\n$/, '');
  }
  precheck(r, body, 'create');
  const s = await f.session();
  const flag = `--${r.parents?.find((p) => p.target === o.parent?.resource)?.name}`;
  const parent = o.parent && {
    ...o.parent,
    uuid: await resolveUuid(s, resourceByPath(o.parent.resource), o.parent.uuid, flag),
  };
  if (o.dryRun) return dryRun(s, f, 'POST', s.client.createPath(r, parent), body, o.output);
  const rec = await s.client.create(r, body, parent).catch((e) => {
    // A parent that is not there is the parent's 404: its list is what to look at.
    throw describeApiError(e, parent ? resourceByPath(parent.resource) : r);
  });
  mark('answered');
  await printRecord(r, await withWritten(s, r, rec, body, spec), spec, await f.display());
  mark('printed');
  if (f.io.stderr.isTTY && !spec.quiet) f.io.stderr.write(`Created ${r.singular} ${String(rec.uuid ?? '')}.\n`);
}

export async function updateRun(o: Cmd.UpdateOptions): Promise<void> {
  const { f, resource: r } = o;
  const spec = await outputSpec(r, o.output);
  const body = { ...(await dataOption(o.data, f)), ...bodyFromFlags(r, o.flags, 'update', when(f)) };
  const changes = setChanges(r, o.flags);
  if (Object.keys(body).length === 0 && !changes.length)
    throw usageError(
      `nothing to update: give at least one field flag (e.g. --${kebab(inputFields(r)[0]?.name ?? 'uuid')}), --unset or --data.`,
    );
  const twice = changes.find((c) => body[c.set.name] !== undefined);
  if (twice) {
    const { add, remove } = setChangeFlags(twice.set);
    throw usageError(
      `--${kebab(add)} and --${kebab(remove)} change the ${twice.set.name} the ${r.singular} has: leave ${twice.set.name} out of --data.`,
    );
  }
  const s = await f.session();
  const uuid = await resolveUuid(s, r, o.uuid, '<uuid>');
  try {
    await fillForUpdate(s.client, r, uuid, body, changes);
    precheck(r, body, 'update');
    if (o.dryRun) return dryRun(s, f, 'PUT', s.client.recordPath(r, uuid), body, o.output);
    const rec = await s.client.update(r, uuid, body);
    await printRecord(r, await withWritten(s, r, rec, body, spec), spec, await f.display());
    if (f.io.stderr.isTTY && !spec.quiet) f.io.stderr.write(`Updated ${r.singular} ${uuid}.\n`);
  } catch (e) {
    throw describeApiError(e, r);
  }
}

/** Records named one by one in a delete's question, at most; more are counted. */
const NAMED = 5;

/**
 * What a delete would take away, in words: the records by their first columns, and what goes with
 * them (their notes, their custom values), read from the server. A record that is not there is
 * the same "not found" the delete would be (unless --ignore-not-found).
 */
async function describeForDelete(s: Session, r: ResourceDef, uuids: readonly string[], ignoreMissing: boolean) {
  const found: Record<string, unknown>[] = [];
  for (const u of uuids.slice(0, 20)) {
    try {
      found.push(await s.client.get(r, u, r.customValues ? CUSTOM_VALUES_KEY : undefined));
    } catch (e) {
      const err = describeApiError(e, r);
      if (err.exitCode === EXIT.notFound && ignoreMissing) continue;
      // Without the custom fields' read scope, the record alone.
      if (err.exitCode === EXIT.auth && r.customValues) found.push(await s.client.get(r, u).catch(() => ({ uuid: u })));
      else throw err;
    }
  }
  const goes: string[] = [];
  for (const { child } of childrenOf(r)) {
    const count = countOf(r, child);
    const n = count ? found.reduce((sum, x) => sum + (Number(x[count.name]) || 0), 0) : 0;
    if (n) goes.push(`${n} ${n === 1 ? child.singular : child.plural}`);
  }
  if (r.customValues) {
    const n = found.reduce((sum, x) => sum + ((x[CUSTOM_VALUES_KEY] as { data?: unknown[] })?.data?.length ?? 0), 0);
    if (n) goes.push(`${n} custom value${n === 1 ? '' : 's'}`);
  }
  const name = (x: Record<string, unknown>) => describeRecord(r, x) || String(x.uuid);
  const which =
    uuids.length === 1
      ? `${r.singular} ${found[0] ? name(found[0]) : uuids[0]}`
      : `${uuids.length} ${r.plural}${uuids.length <= NAMED ? ` (${found.map(name).join('; ')})` : ''}`;
  return `${which}${goes.length ? ` and ${uuids.length === 1 ? 'its' : 'their'} ${goes.join(' and ')}` : ''}`;
}

export async function deleteRun(o: Cmd.DeleteOptions): Promise<void> {
  const { f, resource: r } = o;
  // Beginnings of uuids resolved first: an ambiguous one is refused before anything is deleted.
  const resolved: string[] = [];
  if (o.uuids.some((u) => !isWholeUuid(u))) {
    const s = await f.session();
    for (const u of o.uuids) resolved.push(await resolveUuid(s, r, u, '<uuid>'));
  }
  const unique = [...new Set(resolved.length ? resolved : o.uuids)];
  if (!o.yes && !o.dryRun)
    await confirmDelete(f, async () => {
      const what = await describeForDelete(await f.session(), r, unique, o.ignoreNotFound === true);
      return `Delete ${what}? This cannot be undone.`;
    });
  const s = await f.session();
  if (o.dryRun) {
    for (const u of unique) dryRun(s, f, 'DELETE', s.client.recordPath(r, u), undefined, {});
    return;
  }
  const results: { uuid: string; deleted: boolean; error?: string }[] = [];
  const failed: CliError[] = [];
  for (const u of unique) {
    try {
      await s.client.delete(r, u);
      results.push({ uuid: u, deleted: true });
      if (!o.quiet && !o.json) f.io.stderr.write(`Deleted ${r.singular} ${u}.\n`);
    } catch (e) {
      const err = describeApiError(e, r);
      if (err.exitCode === EXIT.notFound && o.ignoreNotFound) {
        results.push({ uuid: u, deleted: true });
        if (!o.quiet && !o.json) f.io.stderr.write(`No ${r.singular} ${u}: already gone.\n`);
        continue;
      }
      if (err.exitCode === EXIT.interrupted || err.exitCode === EXIT.network || err.exitCode === EXIT.auth) throw err;
      results.push({ uuid: u, deleted: false, error: err.message });
      failed.push(err);
      if (unique.length > 1) f.io.stderr.write(`error: ${visible(err.message)}\n`);
    }
  }
  if (o.json) f.io.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  if (failed.length) {
    if (unique.length === 1) throw failed[0];
    const codes = failed.map((e) => e.exitCode);
    throw new CliError(oneKind(codes), `${codes.length} of ${unique.length} ${r.plural} not deleted.`);
  }
}
