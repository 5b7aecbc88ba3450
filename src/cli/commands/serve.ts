/**
 * `pm serve`: the project's own implementation of the API on an SQLite file, and the management
 * of its accounts and tokens; the run functions are in serve-run.ts.
 */
import { parseSize } from '../../core/size.js';
import { Command, Option } from 'commander';
import { ALL_SCOPES } from '../../resources/index.js';
import { defaultDataFile } from '../../core/paths.js';
import { printableUrl } from '../../core/redact.js';
import { adopt } from '../command.js';
import { usageError } from '../errors.js';
import type { Factory } from '../factory.js';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from '../../server/access-log.js';
import type { PostgresServerOptions, RateLimit, ServerOptions } from '../../server/index.js';
import { numberFlag } from './shared.js';

/**
 * What every command on a store is given: the factory, and the store: a PostgreSQL database
 * (`database`, its URL) or else the SQLite data file.
 */
export interface OnDataFile {
  readonly f: Factory;
  readonly dataFile: string;
  readonly database?: string | undefined;
}

/** What `pm serve` passes on to the server, as the server declares it. */
export type ServeOptions = OnDataFile &
  Pick<
    ServerOptions,
    | 'host'
    | 'port'
    | 'rateLimit'
    | 'publicUrl'
    | 'maxConnections'
    | 'maxConnectionsPerAddress'
    | 'headersTimeoutMs'
    | 'requestTimeoutMs'
    | 'readers'
    | 'queryBudgetMs'
    | 'maxAttachmentBytes'
    | 'metrics'
  > &
  Pick<PostgresServerOptions, 'poolSize'> & {
    readonly logFormat: LogFormat;
    readonly logLevel: LogLevel;
    /** How long requests in flight have to finish after SIGTERM (ms). */
    readonly shutdownGraceMs: number;
  };

export interface AccountsCreateOptions extends OnDataFile {
  readonly name: string;
  readonly scopes: readonly string[];
}

export interface TokensCreateOptions extends AccountsCreateOptions {
  readonly account?: number | undefined;
}

export interface TokensListOptions extends OnDataFile {
  readonly json: boolean;
}

export interface TokensRevokeOptions extends OnDataFile {
  readonly id: number;
}

/** The flags of `pm serve` as commander gives them (those with defaults, then the others). */
type ServeFlags = {
  host: string;
  port: string;
  logFormat: LogFormat;
  logLevel: LogLevel;
  shutdownGrace: string;
} & Partial<
  Record<
    | 'poolSize'
    | 'rateLimit'
    | 'publicUrl'
    | 'maxConnections'
    | 'maxConnectionsPerAddress'
    | 'headerTimeout'
    | 'requestTimeout'
    | 'readers'
    | 'queryBudget'
    | 'maxAttachmentSize'
    | 'metricsPort'
    | 'metricsHost',
    string
  >
>;

const run = () => import('./serve-run.js');
const RUNS = {
  serve: async (o: ServeOptions) => (await run()).serveRun(o),
  tokensCreate: async (o: TokensCreateOptions) => (await run()).tokensCreateRun(o),
  tokensList: async (o: TokensListOptions) => (await run()).tokensListRun(o),
  tokensRevoke: async (o: TokensRevokeOptions) => (await run()).tokensRevokeRun(o),
  accountsCreate: async (o: AccountsCreateOptions) => (await run()).accountsCreateRun(o),
};
export type ServeRuns = typeof RUNS;

/**
 * The store a command works on: --database (or PM_DATABASE_URL), else --data (or the default data
 * file); each given before or after the subcommand (`pm serve --data F tokens list` or
 * `pm serve tokens list --data F`). --data with --database is a usage error; --data given wins
 * over PM_DATABASE_URL.
 */
function storeOf(f: Factory, cmd: Command): Omit<OnDataFile, 'f'> {
  const given = cmd.optsWithGlobals() as { data?: string; database?: string };
  if (given.data !== undefined && given.database !== undefined)
    throw usageError('--data and --database name two stores: give one of them.', DATABASE_HINT);
  const database = given.database ?? (given.data === undefined ? f.env.PM_DATABASE_URL || undefined : undefined);
  if (database !== undefined && !/^postgres(ql)?:\/\//i.test(database))
    throw usageError(`--database must be a postgres:// URL, not "${printableUrl(database)}".`, DATABASE_HINT);
  return { dataFile: given.data ?? defaultDataFile(f.env, f.home), database };
}

const DATABASE_HINT = 'For example: --database postgres://pm@db.example.com:5432/pm?sslmode=require';

function parseScopes(text: string): string[] {
  if (text === 'all') return [...ALL_SCOPES];
  const scopes = text.split(/[,\s]+/).filter(Boolean);
  const bad = scopes.filter((s) => !ALL_SCOPES.includes(s));
  if (bad.length || !scopes.length)
    throw usageError(
      `--scopes: unknown scope ${bad.map((b) => `"${b}"`).join(', ') || '(none given)'}.`,
      `Valid scopes: ${ALL_SCOPES.join(', ')}, or "all".`,
    );
  return scopes;
}

/** --header-timeout, --request-timeout, --query-budget: seconds, from 1 to a day (or `max`), in milliseconds. */
function parseSeconds(flag: string, text: string | undefined, max = 86_400): number | undefined {
  const seconds = numberFlag(flag, text, 1, max, `a whole number of seconds from 1 to ${max}`);
  return seconds === undefined ? undefined : seconds * 1000;
}

/** A size flag: bytes, or with a unit (512KiB, 100MiB, 1GiB). */
function sizeFlag(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const bytes = parseSize(text);
  if (bytes === undefined)
    throw usageError(`${flag} must be a size: bytes, or with a unit (512KiB, 100MiB, 1GiB), not "${text}".`);
  return bytes;
}

/** --public-url: an http(s) origin, nothing more (no path, query or credentials). */
function parsePublicUrl(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const u = URL.canParse(text) ? new URL(text) : undefined;
  if (!u || !/^https?:$/.test(u.protocol) || u.username || u.password || u.search || u.hash || u.pathname !== '/')
    throw usageError(`--public-url must be an origin such as https://pm.example.com (no path), not "${text}".`);
  return u.origin;
}

/** The rate limit flag, read by the server's own parser (loaded only when it is given). */
async function parseRateLimitFlag(text: string | undefined): Promise<RateLimit | undefined> {
  if (text === undefined) return undefined;
  const { parseRateLimit } = await import('../../server/ratelimit.js');
  try {
    return parseRateLimit(text);
  } catch (e) {
    throw usageError(`--rate-limit: ${(e as Error).message}.`);
  }
}

const DATA_OPTION = '--data <file>';
const DATA_HELP = 'SQLite data file (default: the embedded default data file)';
const DATABASE_OPTION = '--database <url>';
const DATABASE_HELP =
  'PostgreSQL database URL, instead of a data file (default: $PM_DATABASE_URL: prefer it, as a URL on the command line shows in ps)';

export const SERVE_COMMANDS = {
  serve:
    'Run the Property Management Service API on an SQLite file (the embedded default, for a team) or a PostgreSQL database',
};

export function newCmdServe(f: Factory, runs: ServeRuns = RUNS): Command {
  const serve = new Command('serve')
    .description(SERVE_COMMANDS.serve)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '8080')
    .option('--data <file>', 'SQLite data file (default: $XDG_DATA_HOME/pm/pm.db, else ~/.local/share/pm/pm.db)')
    .option(
      DATABASE_OPTION,
      'a PostgreSQL database instead (postgres://user:password@host:port/db; TLS by ?sslmode=require): several instances may share it (default: $PM_DATABASE_URL, which keeps the password out of ps: prefer it)',
    )
    .option('--pool-size <n>', 'connections to the PostgreSQL database held at most (default 10)')
    .option(
      '--rate-limit <n/min>',
      'limit each user to N requests per minute (or N/s, N/hour), as the hosted service does',
    )
    .option(
      '--max-connections <n>',
      'connections held at once; at the cap, a new one takes the place of the one idle longest (default 256)',
    )
    .option(
      '--max-connections-per-address <n>',
      'connections one address holds at once (default 64); behind a proxy, every client has its address',
    )
    .option('--header-timeout <seconds>', "time a client has to send a request's headers (default 10)")
    .option('--request-timeout <seconds>', 'time a client has to send a whole request, body included (default 30)')
    .option(
      '--query-budget <seconds>',
      'time a list may take before it is stopped and answered 422, naming its filters (default 10)',
    )
    .option(
      '--max-attachment-size <size>',
      'the largest file an upload may carry: bytes, or with a unit (512KiB, 100MiB, 1GiB; default 100MiB); a whole upload is within --request-timeout too',
    )
    .option(
      '--readers <n>',
      'threads that answer lists beside the event loop, so a long one holds up nothing else (default: one per core, at most 4; 0: none)',
    )
    .option(
      '--public-url <url>',
      'the origin clients reach the server at (behind a proxy): links and Location use it, not the Host header',
    )
    .addOption(
      new Option('--log-format <format>', 'the log on stdout: text, or JSON lines for a log shipper')
        .choices(LOG_FORMATS)
        .default('text'),
    )
    .addOption(
      new Option(
        '--log-level <level>',
        'error: server errors only; info: and a line per request; debug: and each request as it starts',
      )
        .choices(LOG_LEVELS)
        .default('info'),
    )
    .option('--metrics-port <port>', 'serve GET /metrics (Prometheus text) on this port, apart from the API')
    .option('--metrics-host <host>', 'address the metrics port listens on (default 127.0.0.1)')
    .option(
      '--shutdown-grace <seconds>',
      'on SIGTERM, time requests in flight have to finish before their connections are closed',
      '10',
    )
    .addHelpText(
      'after',
      `
On first use of a data file, an account and a full-scope token are created; the token is written
beside the data file (FILE.token, mode 0600) and pm uses it when nothing else is configured.
On first use of a PostgreSQL database, the account is created and no token is written: make one
with \`pm serve tokens create --database URL\`.

Each answer carries an X-Request-Id header (the client's own, when it sends a sane one), which
its log line and every error body ("request_id") repeat. On SIGTERM or Ctrl-C, pm serve stops
accepting connections, answers GET /health with 503, and lets requests in flight finish for
--shutdown-grace seconds; a second signal stops it at once. Deployment: docs/deploy.md.

Examples:
  pm serve
  pm serve --port 9000 --data ./team.db --rate-limit 60/min
  pm serve --host 0.0.0.0 --database postgres://pm@db.internal:5432/pm --pool-size 20
  pm serve --log-format json --metrics-port 9464 --shutdown-grace 30
  curl -H "Authorization: Bearer $(cat ~/.local/share/pm/pm.db.token)" http://127.0.0.1:8080/properties`,
    )
    .action(async (opts: ServeFlags, cmd: Command) => {
      const store = storeOf(f, cmd);
      if (store.database === undefined && opts.poolSize !== undefined)
        throw usageError('--pool-size is the number of connections to a PostgreSQL database: give --database too.');
      if (store.database !== undefined && opts.readers !== undefined)
        throw usageError('--readers is for a data file: on PostgreSQL, --pool-size sets the connections.');
      if (opts.metricsHost !== undefined && opts.metricsPort === undefined)
        throw usageError('--metrics-host is where the metrics port listens: give --metrics-port too.');
      const metricsPort = numberFlag('--metrics-port', opts.metricsPort, 0, 65_535, 'a number from 0 to 65535');
      return runs.serve({
        f,
        host: opts.host,
        port: numberFlag('--port', opts.port, 0, 65_535, 'a number from 0 to 65535') as number,
        ...store,
        poolSize: numberFlag('--pool-size', opts.poolSize, 1, 1000),
        rateLimit: await parseRateLimitFlag(opts.rateLimit),
        publicUrl: parsePublicUrl(opts.publicUrl),
        maxConnections: numberFlag('--max-connections', opts.maxConnections, 1, 999_999, 'a whole number from 1'),
        maxConnectionsPerAddress: numberFlag(
          '--max-connections-per-address',
          opts.maxConnectionsPerAddress,
          1,
          999_999,
          'a whole number from 1',
        ),
        headersTimeoutMs: parseSeconds('--header-timeout', opts.headerTimeout),
        requestTimeoutMs: parseSeconds('--request-timeout', opts.requestTimeout),
        queryBudgetMs: parseSeconds('--query-budget', opts.queryBudget, 3600),
        readers: numberFlag('--readers', opts.readers, 0, 32),
        maxAttachmentBytes: sizeFlag('--max-attachment-size', opts.maxAttachmentSize),
        logFormat: opts.logFormat,
        logLevel: opts.logLevel,
        metrics: metricsPort === undefined ? undefined : { host: opts.metricsHost ?? '127.0.0.1', port: metricsPort },
        shutdownGraceMs:
          (numberFlag('--shutdown-grace', opts.shutdownGrace, 0, 3600, 'a whole number of seconds from 0 to 3600') ??
            10) * 1000,
      });
    });

  const tokens = serve
    .command('tokens')
    .description('Manage the API tokens of a data file')
    .addHelpText(
      'after',
      `
Examples:
  pm serve tokens create --name ci --scopes reminders.read,reminders.write
  pm serve tokens list --data /srv/pm/team.db
  pm serve tokens revoke 3`,
    );

  tokens
    .command('create')
    .description('Create a token and print it (it is shown only once)')
    .option('--scopes <list>', `comma-separated scopes, or "all" (${ALL_SCOPES.join(', ')})`, 'all')
    .option('--name <name>', 'a name to recognise the token by', 'token')
    .option('--account <id>', 'account id (default: the first account)')
    .option(DATA_OPTION, DATA_HELP)
    .option(DATABASE_OPTION, DATABASE_HELP)
    .addHelpText(
      'after',
      `
Examples:
  pm serve tokens create --name ci --scopes reminders.read,reminders.write
  pm serve tokens create --data /srv/pm/team.db --name alice > alice.token`,
    )
    .action((opts: { scopes: string; name: string; account?: string }, cmd: Command) => {
      const scopes = parseScopes(opts.scopes);
      if (opts.account !== undefined && !/^\d+$/.test(opts.account))
        throw usageError(`--account must be an account id number, not "${opts.account}".`);
      return runs.tokensCreate({
        f,
        ...storeOf(f, cmd),
        scopes,
        name: opts.name,
        account: opts.account === undefined ? undefined : Number(opts.account),
      });
    });

  tokens
    .command('list')
    .description('List the tokens of a data file (never the tokens themselves)')
    .option(DATA_OPTION, DATA_HELP)
    .option(DATABASE_OPTION, DATABASE_HELP)
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      `
One token a line: id, name, account, the last characters, active or revoked, scopes.

Examples:
  pm serve tokens list
  pm serve tokens list --data /srv/pm/team.db --json`,
    )
    .action((opts: { json?: boolean }, cmd: Command) =>
      runs.tokensList({ f, ...storeOf(f, cmd), json: opts.json === true }),
    );

  tokens
    .command('revoke <id>')
    .description('Revoke a token by its id (see pm serve tokens list)')
    .option(DATA_OPTION, DATA_HELP)
    .option(DATABASE_OPTION, DATABASE_HELP)
    .addHelpText(
      'after',
      `
Examples:
  pm serve tokens revoke 3
  pm serve tokens revoke 3 --data /srv/pm/team.db`,
    )
    .action((id: string, _opts: unknown, cmd: Command) => {
      if (!/^\d+$/.test(id)) throw usageError(`<id> must be a token id number, not "${id}".`);
      return runs.tokensRevoke({ f, ...storeOf(f, cmd), id: Number(id) });
    });

  serve
    .command('accounts')
    .description('Manage the accounts of a data file')
    .command('create')
    .description('Create an account with a user and a full-scope token; print the token')
    .requiredOption('--name <name>', 'the account name')
    .option(DATA_OPTION, DATA_HELP)
    .option(DATABASE_OPTION, DATABASE_HELP)
    .addHelpText(
      'after',
      `
Each account sees only its own records.

Examples:
  pm serve accounts create --name "Acme Lettings"
  token=$(pm serve accounts create --name team --data /srv/pm/team.db)`,
    )
    .action((opts: { name: string }, cmd: Command) =>
      runs.accountsCreate({ f, ...storeOf(f, cmd), name: opts.name, scopes: ALL_SCOPES }),
    );
  return serve;
}

export function registerServe(program: Command, f: Factory): void {
  adopt(program, newCmdServe(f));
}
