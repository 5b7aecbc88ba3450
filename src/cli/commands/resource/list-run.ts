/** `pm <resource> list`: records a page at a time, or every page, written as they arrive. */
import type { ResourceDef } from '../../../resources/types.js';
import { isCodeValue } from '../../../core/kinds.js';
import { MAX_PER_PAGE } from '../../../core/limits.js';
import { encodeListQuery } from '../../../core/query.js';
import { mark } from '../../../core/timing.js';
import { CliError, EXIT } from '../../errors.js';
import { filterQuery } from '../../flag-values.js';
import { autoEmbeds, createListPrinter, type OutputFlags, type PageInfo } from '../../output/index.js';
import { namingFlagsChecked, resolveNamingFlags } from '../../uuids.js';
import { describeApiError } from '../../api-errors.js';
import { customColumns, embedList, embedRefused, outputSpec } from './common-run.js';
import type { Flags, OnResource } from './options.js';

export interface SortKey {
  readonly field: string;
  readonly desc: boolean;
}

export interface ListOptions extends OnResource {
  /** The filter flags (see Flags): filterQuery (flag-values.ts) reads them. */
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

export async function listRun(o: ListOptions): Promise<void> {
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
  // The filters are read (and a mistake refused) before anything is opened; a name (--property
  // 3f2a9c1e, --status "For Let") is then resolved to its records' uuids, a name that names
  // nothing refused, and the query made again with the uuids.
  let q = query(auto, namingFlagsChecked(r, o.flags));

  const s = await f.session();
  const flags = await resolveNamingFlags(s, r, o.flags, 'list');
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
function sortRecords(r: ResourceDef, records: Record<string, unknown>[], keys: readonly SortKey[]) {
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
