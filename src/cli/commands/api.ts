/**
 * `pm api METHOD PATH`: the raw escape hatch, with the base URL and token applied (like `gh api`),
 * for endpoints pm has no command for.
 */
import type { Command } from 'commander';
import type { Deps } from '../context.js';
import { usageError } from '../errors.js';
import { collect } from '../flags.js';
import { globalsOf } from '../globals.js';
import { readInline } from '../input.js';
import { describeApiError, display } from './shared.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];

export function registerApi(program: Command, deps: Deps): void {
  program
    .command('api <method> <path>')
    .description('Send a request to any API path, with the base URL and token applied; print the JSON answer')
    .option('--data <json>', 'the request body as JSON, @file.json, or - for stdin')
    .option('-F, --field <key=value>', 'add a query parameter (GET, DELETE) or a body field (repeatable)', collect)
    .option('-i, --include', 'print the status line and response headers before the body (on stderr)')
    .option('--jq <expr>', 'filter the JSON answer with a jq expression')
    .addHelpText(
      'after',
      `
<method> is GET, POST, PUT, PATCH, DELETE or HEAD; <path> is a path of the API such as
/properties or /properties/UUID/notes (pm help filters, docs/api.md).

Examples:
  pm api GET /properties -F per_page=5 -F city=leeds
  pm api GET '/notes?property[city]=leeds'
  pm api POST /properties/3f2a9c1e-…/notes --data '{"content":"Boiler serviced"}'
  pm api GET /reminders --jq '.data[].title'`,
    )
    .action(async (methodArg: string, path: string, opts: Record<string, unknown>, cmd: Command) => {
      const method = methodArg.toUpperCase();
      if (!METHODS.includes(method))
        throw usageError(`<method> must be one of ${METHODS.join(', ')}, not "${methodArg}".`);
      if (/^[a-z]+:\/\//i.test(path))
        throw usageError('<path> is a path such as /properties, not a full URL; set the server with --base-url.');
      const query = new URLSearchParams();
      let body: Record<string, unknown> | undefined;
      if (opts.data !== undefined) {
        const { text: json } = await readInline(String(opts.data), deps, '--data');
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
        if (method === 'GET' || method === 'DELETE' || method === 'HEAD') query.append(k, v);
        else {
          body ??= {};
          body[k] = /^(true|false|null|-?\d+(\.\d+)?)$/.test(v) ? JSON.parse(v) : v;
        }
      }
      const globals = globalsOf(cmd);
      const { withSession } = await import('../session.js');
      const { printJson, prepareOutput } = await import('../output/index.js');
      if (opts.jq !== undefined) await prepareOutput({ format: 'json', quiet: false, jq: String(opts.jq) });
      await withSession(globals, deps, async (s) => {
        let res: Awaited<ReturnType<typeof s.http.request>>;
        try {
          res = await s.http.request(method, path, { query, ...(body !== undefined ? { body } : {}) });
        } catch (e) {
          const err = describeApiError(e);
          const r = (e as { response?: { text?: string } }).response;
          if (r?.text) deps.io.stdout.write(`${r.text}${r.text.endsWith('\n') ? '' : '\n'}`);
          throw err;
        }
        if (opts.include) {
          deps.io.stderr.write(`HTTP ${res.status}\n`);
          for (const [k, v] of Object.entries(res.headers)) deps.io.stderr.write(`${k}: ${v}\n`);
          deps.io.stderr.write('\n');
        }
        if (res.body !== undefined)
          printJson(res.body, { ...(opts.jq ? { jq: String(opts.jq) } : {}) }, await display(deps, globals));
      });
    });
}
