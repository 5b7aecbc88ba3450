/**
 * One generic client for every resource, driven by its description. It accepts what servers
 * really send (docs/faults.md, "What pm accepts from any server"): a single record without its data wrapper, a list
 * without pagination, a create or update answered with an empty body.
 */
import { resourceByPath } from '../resources/index.js';
import type { ResourceDef } from '../resources/types.js';
import { isObject as isObj } from '../core/json.js';
import { ProtocolError } from './errors.js';
import type { HttpClient, HttpResponse } from './http.js';

type ApiRecord = Record<string, unknown>;

interface Pagination {
  total: number;
  count: number;
  per_page: number;
  current_page: number;
  total_pages: number;
}

interface Page {
  records: ApiRecord[];
  pagination: Pagination;
}

/** The record in a single-record response, with or without the data wrapper. */
function unwrap(r: ResourceDef, res: HttpResponse): ApiRecord | undefined {
  const b = res.body;
  if (!isObj(b)) return undefined;
  if (isObj(b.data)) return b.data;
  if (typeof b.uuid === 'string') return b;
  throw new ProtocolError(`the server's answer for a ${r.singular} has no record in it`);
}

function preview(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function num(v: unknown, fallback: number): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  return typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : fallback;
}

export class ResourceClient {
  constructor(readonly http: HttpClient) {}

  async list(r: ResourceDef, query: URLSearchParams): Promise<Page> {
    const res = await this.http.request('GET', r.path, { query });
    const b = res.body;
    const data = isObj(b) ? b.data : Array.isArray(b) ? b : undefined;
    if (!Array.isArray(data)) throw new ProtocolError(`the server's answer for a list of ${r.path} has no data array`);
    const bad = data.findIndex((x) => !isObj(x));
    if (bad >= 0)
      throw new ProtocolError(
        `item ${bad + 1} of the server's list of ${r.path} is not a record: ${preview(data[bad])}`,
      );
    const records = data as ApiRecord[];
    const meta = isObj(b) && isObj(b.meta) && isObj(b.meta.pagination) ? b.meta.pagination : undefined;
    const perPage = num(query.get('per_page'), records.length || 10);
    const pagination: Pagination = meta
      ? {
          total: num(meta.total, records.length),
          count: num(meta.count, records.length),
          per_page: num(meta.per_page, perPage),
          current_page: num(meta.current_page, num(query.get('page'), 1)),
          total_pages: num(meta.total_pages, 1),
        }
      : // No pagination block: the only page.
        { total: records.length, count: records.length, per_page: records.length, current_page: 1, total_pages: 1 };
    return { records, pagination };
  }

  /**
   * Every page from `query`'s page on, one at a time, until `limit` records or the last page.
   * Only one page is held at a time.
   */
  async *pages(r: ResourceDef, query: URLSearchParams, limit = Number.POSITIVE_INFINITY): AsyncGenerator<Page> {
    let page = num(query.get('page'), 1);
    let seen = 0;
    for (;;) {
      const q = new URLSearchParams(query);
      q.set('page', String(page));
      const p = await this.list(r, q);
      // A server that ignores `page` would otherwise be asked for the same page for ever.
      if (p.pagination.current_page < page && p.pagination.total_pages > 1)
        throw new ProtocolError(
          `the server answered page ${p.pagination.current_page} of ${r.path} when asked for page ${page}`,
        );
      const room = limit - seen;
      if (p.records.length > room) p.records = p.records.slice(0, room);
      seen += p.records.length;
      yield p;
      const last = p.pagination.current_page >= p.pagination.total_pages || p.pagination.count === 0;
      if (last || seen >= limit || p.records.length === 0) return;
      page = p.pagination.current_page + 1;
    }
  }

  async get(r: ResourceDef, uuid: string, embed?: string): Promise<ApiRecord> {
    const q = embed ? new URLSearchParams({ embed }) : undefined;
    const res = await this.http.request('GET', this.recordPath(r, uuid), { query: q });
    const rec = unwrap(r, res);
    if (!rec) throw new ProtocolError(`the server answered ${res.status} with no ${r.singular}`);
    return rec;
  }

  /**
   * The record a write answered with. An empty body, or one that could not be used (cut off, not
   * JSON), falls back to the Location header, then to the uuid: the write was done, and what came
   * of it is read back rather than reported lost.
   */
  private async written(r: ResourceDef, res: HttpResponse, uuid?: string): Promise<ApiRecord> {
    const rec = res.problem ? undefined : unwrap(r, res);
    if (rec) return rec;
    const location = res.headers.location;
    const target = location && URL.canParse(location, res.url) ? new URL(location, res.url) : undefined;
    // Never follow a Location to another server: it would get the token.
    if (target?.origin === this.http.baseUrl.origin) {
      const got = unwrap(r, await this.http.request('GET', target.toString()));
      if (got) return got;
    }
    if (uuid) return this.get(r, uuid);
    if (res.problem)
      throw new ProtocolError(
        `the server answered ${res.status}, so the ${r.singular} was created, but ${res.problem} and it gave no Location to read it back from; find it with \`pm ${r.path} list\``,
      );
    return {};
  }

  /** The path of one record: get, update and delete are sent to it. */
  recordPath(r: ResourceDef, uuid: string): string {
    return `${r.path}/${encodeURIComponent(uuid)}`;
  }

  /** The path a create is sent to: notes go under their parent. */
  createPath(r: ResourceDef, parent?: { resource: string; uuid: string }): string {
    if (!parent) return r.path;
    return `${this.recordPath(resourceByPath(parent.resource), parent.uuid)}/${r.path}`;
  }

  /** `key`: an Idempotency-Key (ours), so that the same create sent twice makes one record. */
  async create(
    r: ResourceDef,
    body: ApiRecord,
    parent?: { resource: string; uuid: string },
    key?: string,
  ): Promise<ApiRecord> {
    const headers = key === undefined ? undefined : { 'idempotency-key': key };
    const res = await this.http.request('POST', this.createPath(r, parent), { body, tolerateBody: true, headers });
    return this.written(r, res);
  }

  async update(r: ResourceDef, uuid: string, body: ApiRecord): Promise<ApiRecord> {
    const res = await this.http.request('PUT', this.recordPath(r, uuid), { body, tolerateBody: true });
    return this.written(r, res, uuid);
  }

  async delete(r: ResourceDef, uuid: string): Promise<void> {
    await this.http.request('DELETE', this.recordPath(r, uuid));
  }
}
