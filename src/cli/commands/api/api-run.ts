/** `pm api METHOD PATH`: the request sent with the base URL and token applied, the answer printed. */
import type { HttpResponse } from '../../../client/http.js';
import { printableUrl, terminalText, visible } from '../../../core/redact.js';
import type { Deps } from '../../context.js';
import { CliError, EXIT, usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { readInline } from '../../input.js';
import type { Session } from '../../session.js';
import { BODY_METHODS, MAX_PAGES } from './methods.js';

export interface ApiOptions {
  readonly f: Factory;
  /** Upper case, one of METHODS. */
  readonly method: string;
  readonly path: string;
  /** --data: inline JSON, @file or - for stdin. */
  readonly data?: string | undefined;
  /** -F KEY=VALUE, in order: query parameters, or body fields for POST, PUT and PATCH. */
  readonly fields: readonly (readonly [string, string])[];
  /** -i: the status line and headers on stderr. */
  readonly include: boolean;
  readonly jq?: string | undefined;
  readonly paginate: boolean;
}

type Page = {
  data?: unknown;
  meta?: { pagination?: { links?: { next?: unknown }; total?: unknown; current_page?: unknown } };
};

/** The page number a list answer says it is, else the one its URL asked for. */
function pageNumber(page: Page, url: URL): number | undefined {
  const said = page.meta?.pagination?.current_page;
  if (typeof said === 'number' && Number.isInteger(said)) return said;
  const asked = url.searchParams.get('page');
  return asked !== null && /^\d{1,9}$/.test(asked) ? Number(asked) : undefined;
}

/**
 * The records of every page of a list, from the first page's answer on: links.next is followed
 * until there is none. One JSON document: {"data": [...every record]}. A next link must move on:
 * one already read, or one to a page number not after the current one, is an error (a server
 * that links a page to itself would otherwise be read for ever), and so is a list of more than
 * MAX_PAGES pages.
 */
async function everyPage(http: Session['http'], first: HttpResponse, deps: Deps): Promise<unknown> {
  let page = first.body as Page;
  if (!page || !Array.isArray(page.data)) return first.body;
  const data: unknown[] = [...page.data];
  let url = new URL(first.url);
  const read = new Set([url.href]);
  const stop = (why: string) =>
    new CliError(EXIT.api, `--paginate stopped after ${read.size} ${read.size === 1 ? 'page' : 'pages'}: ${why}.`, {
      hint: 'Nothing was printed. Read the pages one at a time with -F page=N to see what the server answers.',
    });
  for (;;) {
    const next = page.meta?.pagination?.links?.next;
    if (typeof next !== 'string') return { data };
    if (deps.signal?.aborted) throw new CliError(EXIT.interrupted, 'interrupted');
    const to = /^https?:\/\//i.test(next) ? new URL(next) : http.url(next);
    const shown = printableUrl(to.href);
    if (read.has(to.href)) throw stop(`the server's links.next is ${shown}, a page already read`);
    const [from, ahead] = [pageNumber(page, url), to.searchParams.get('page')];
    if (from !== undefined && ahead !== null && /^\d{1,9}$/.test(ahead) && Number(ahead) <= from)
      throw stop(`the server's links.next goes from page ${from} back to page ${ahead} (${shown})`);
    if (read.size >= MAX_PAGES)
      throw stop(`a list of more than ${MAX_PAGES} pages is more than pm reads into one document`);
    const res = await http.request('GET', to.href);
    page = res.body as Page;
    url = to;
    read.add(to.href);
    if (!Array.isArray(page?.data)) throw stop(`the answer of ${shown} has no data list`);
    data.push(...page.data);
  }
}

export async function apiRun(o: ApiOptions): Promise<void> {
  const { f, method, path } = o;
  const query = new URLSearchParams();
  let body: Record<string, unknown> | undefined;
  if (o.data !== undefined) {
    const { text: json } = await readInline(o.data, f, '--data');
    try {
      body = JSON.parse(json) as Record<string, unknown>;
    } catch (e) {
      throw usageError(`--data is not valid JSON: ${(e as Error).message}.`);
    }
  }
  for (const [k, v] of o.fields) {
    if (BODY_METHODS.includes(method)) {
      body ??= {};
      body[k] = /^(true|false|null|-?\d+(\.\d+)?)$/.test(v) ? JSON.parse(v) : v;
    } else query.append(k, v);
  }
  const { withSession } = await import('../../session.js');
  const { printJson, prepareOutput } = await import('../../output/index.js');
  if (o.jq !== undefined) await prepareOutput({ format: 'json', quiet: false, jq: o.jq });
  await withSession(f.globals(), f, async (s) => {
    let res: Awaited<ReturnType<typeof s.http.request>>;
    try {
      res = await s.http.request(method, path, { query, ...(body !== undefined ? { body } : {}) });
      if (o.paginate) res = { ...res, body: await everyPage(s.http, res, f) };
    } catch (e) {
      const r = (e as { response?: { text?: string } }).response;
      // As the server sent it, piped; on a terminal, with nothing in it that acts on the terminal.
      const text = r?.text && ((await f.display()).tty ? terminalText(r.text) : r.text);
      if (text) f.io.stdout.write(`${text}${text.endsWith('\n') ? '' : '\n'}`);
      throw e;
    }
    if (o.include) {
      f.io.stderr.write(`HTTP ${res.status}\n`);
      for (const [k, v] of Object.entries(res.headers)) f.io.stderr.write(`${visible(k)}: ${visible(v)}\n`);
      f.io.stderr.write('\n');
    }
    if (res.body !== undefined) printJson(res.body, o.jq ? { jq: o.jq } : {}, await f.display());
  });
}
