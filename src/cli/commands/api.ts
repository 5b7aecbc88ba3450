/**
 * `pm api METHOD PATH`: the raw escape hatch, with the base URL and token applied (like `gh api`),
 * for endpoints pm has no command for.
 */
import type { Command } from 'commander';
import type { Deps } from '../context.js';
import type { Factory } from '../factory.js';
import { CliError, EXIT, usageError } from '../errors.js';
import { collect } from '../flags.js';
import { readInline } from '../input.js';
import type { HttpResponse } from '../../client/http.js';
import { printableUrl, terminalText, visible } from '../../core/redact.js';
import type { Session } from '../session.js';
import { describeApiError } from './shared.js';

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];
/** The methods -F gives body fields to; the others, query parameters. */
export const BODY_METHODS = ['POST', 'PUT', 'PATCH'];

type Page = {
  data?: unknown;
  meta?: { pagination?: { links?: { next?: unknown }; total?: unknown; current_page?: unknown } };
};

/** The most pages --paginate reads. */
const MAX_PAGES = 10_000;

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

export const API_COMMANDS = {
  api: 'Send a request to any API path, with the base URL and token applied; print the JSON answer',
};

export function registerApi(program: Command, f: Factory): void {
  program
    .command('api <method> <path>')
    .description(API_COMMANDS.api)
    .option('--data <json>', 'the request body as JSON, @file.json, or - for stdin')
    .option('-F, --field <key=value>', 'add a query parameter (GET, DELETE) or a body field (repeatable)', collect)
    .option('-i, --include', 'print the status line and response headers before the body (on stderr)')
    .option('--jq <expr>', 'filter the JSON answer with a jq expression')
    .option(
      '--paginate',
      `GET every page of a list, following links.next (a page read before, a page number not after the last, or more than ${MAX_PAGES.toLocaleString('en')} pages is an error); print one JSON document with every record`,
    )
    .addHelpText(
      'after',
      `
<method> is GET, POST, PUT, PATCH, DELETE or HEAD; <path> is a path of the API such as
/properties or /properties/UUID/notes (pm help filters, docs/api.md).

Examples:
  pm api GET /properties -F per_page=5 -F city=leeds
  pm api GET '/notes?property[city]=leeds'
  pm api POST /properties/3f2a9c1e-5b7d-4c1a-9e0f-2b6d8a4c7e15/notes --data '{"content":"Boiler serviced"}'
  pm api GET /reminders --jq '.data[].title'
  pm api GET /properties --paginate -F per_page=100 --jq '.data | length'`,
    )
    .action(async (methodArg: string, path: string, opts: Record<string, unknown>) => {
      const method = methodArg.toUpperCase();
      if (!METHODS.includes(method))
        throw usageError(`<method> must be one of ${METHODS.join(', ')}, not "${methodArg}".`);
      if (/^[a-z]+:\/\//i.test(path))
        throw usageError('<path> is a path such as /properties, not a full URL; set the server with --base-url.');
      const query = new URLSearchParams();
      let body: Record<string, unknown> | undefined;
      if (opts.data !== undefined) {
        const { text: json } = await readInline(String(opts.data), f, '--data');
        try {
          body = JSON.parse(json) as Record<string, unknown>;
        } catch (e) {
          throw usageError(`--data is not valid JSON: ${(e as Error).message}.`);
        }
      }
      for (const pair of (opts.field as string[] | undefined) ?? []) {
        const i = pair.indexOf('=');
        if (i <= 0) throw usageError(`--field takes KEY=VALUE, not "${pair}".`);
        const [k, v] = [pair.slice(0, i), pair.slice(i + 1)];
        if (BODY_METHODS.includes(method)) {
          body ??= {};
          body[k] = /^(true|false|null|-?\d+(\.\d+)?)$/.test(v) ? JSON.parse(v) : v;
        } else query.append(k, v);
      }
      const { withSession } = await import('../session.js');
      const { printJson, prepareOutput } = await import('../output/index.js');
      if (opts.jq !== undefined) await prepareOutput({ format: 'json', quiet: false, jq: String(opts.jq) });
      if (opts.paginate && method !== 'GET')
        throw usageError('--paginate goes with GET: it follows the pages of a list.');
      await withSession(f.globals(), f, async (s) => {
        let res: Awaited<ReturnType<typeof s.http.request>>;
        try {
          res = await s.http.request(method, path, { query, ...(body !== undefined ? { body } : {}) });
          if (opts.paginate) res = { ...res, body: await everyPage(s.http, res, f) };
        } catch (e) {
          const err = describeApiError(e);
          const r = (e as { response?: { text?: string } }).response;
          // As the server sent it, piped; on a terminal, with nothing in it that acts on the terminal.
          const text = r?.text && ((await f.display()).tty ? terminalText(r.text) : r.text);
          if (text) f.io.stdout.write(`${text}${text.endsWith('\n') ? '' : '\n'}`);
          throw err;
        }
        if (opts.include) {
          f.io.stderr.write(`HTTP ${res.status}\n`);
          for (const [k, v] of Object.entries(res.headers)) f.io.stderr.write(`${visible(k)}: ${visible(v)}\n`);
          f.io.stderr.write('\n');
        }
        if (res.body !== undefined) printJson(res.body, opts.jq ? { jq: String(opts.jq) } : {}, await f.display());
      });
    });
}
