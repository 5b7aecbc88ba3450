/**
 * `pm api METHOD PATH`, declared: the raw escape hatch, with the base URL and token applied (like
 * `gh api`), for endpoints pm has no command for. The run is api-run.ts, loaded when it runs.
 */
import type { Command } from 'commander';
import { adopt, commandOf, type Run } from '../../command.js';
import { usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { collect } from '../../flags.js';
import type { ApiOptions } from './api-run.js';
import { MAX_PAGES, METHODS } from './methods.js';

interface ApiFlags {
  data?: string;
  field?: string[];
  include?: boolean;
  jq?: string;
  paginate?: boolean;
}

const RUN = async (o: ApiOptions) => (await import('./api-run.js')).apiRun(o);

export const API_COMMANDS = {
  api: 'Send a request to any API path, with the base URL and token applied; print the JSON answer',
};

function newCmdApi(f: Factory, run: Run<ApiOptions> = RUN): Command {
  return commandOf('api <method> <path>')
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
    .action((methodArg: string, path: string, opts: ApiFlags) => {
      const method = methodArg.toUpperCase();
      if (!METHODS.includes(method))
        throw usageError(`<method> must be one of ${METHODS.join(', ')}, not "${methodArg}".`);
      if (/^[a-z]+:\/\//i.test(path))
        throw usageError('<path> is a path such as /properties, not a full URL; set the server with --base-url.');
      if (opts.paginate && method !== 'GET')
        throw usageError('--paginate goes with GET: it follows the pages of a list.');
      const fields = (opts.field ?? []).map((pair): [string, string] => {
        const i = pair.indexOf('=');
        if (i <= 0) throw usageError(`--field takes KEY=VALUE, not "${pair}".`);
        return [pair.slice(0, i), pair.slice(i + 1)];
      });
      return run({
        f,
        method,
        path,
        data: opts.data,
        fields,
        include: opts.include === true,
        jq: opts.jq,
        paginate: opts.paginate === true,
      });
    });
}

export function registerApi(program: Command, f: Factory): void {
  adopt(program, newCmdApi(f));
}
