/**
 * `pm serve`: the project's own implementation of the API on an SQLite file or a PostgreSQL
 * database (this command's own flags and run), and the management of its accounts and tokens
 * (tokens.ts, accounts.ts: a module pair per leaf command).
 */
import { Command, Option } from 'commander';
import { adopt } from '../../command.js';
import { usageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from '../../../server/access-log.js';
import type { RateLimit } from '../../../server/index.js';
import { numberFlag, sizeFlag } from '../shared.js';
import { newCmdServeAccounts } from './accounts.js';
import type { ServeRuns } from './runs.js';
import type { ServeOptions } from './serve-run.js';
import { DATABASE_OPTION, storeOf } from './store.js';
import { newCmdServeTokens } from './tokens.js';

const RUN = async (o: ServeOptions) => (await import('./serve-run.js')).serveRun(o);

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
    | 'quota'
    | 'uploadDir'
    | 'metricsPort'
    | 'metricsHost',
    string
  >
>;

/** --header-timeout, --request-timeout, --query-budget: seconds, from 1 to a day (or `max`), in milliseconds. */
function parseSeconds(flag: string, text: string | undefined, max = 86_400): number | undefined {
  const seconds = numberFlag(flag, text, 1, max, `a whole number of seconds from 1 to ${max}`);
  return seconds === undefined ? undefined : seconds * 1000;
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
  const { parseRateLimit } = await import('../../../server/ratelimit.js');
  try {
    return parseRateLimit(text);
  } catch (e) {
    throw usageError(`--rate-limit: ${(e as Error).message}.`);
  }
}

export const SERVE_COMMANDS = {
  serve:
    'Run the Property Management Service API on an SQLite file (the embedded default, for a team) or a PostgreSQL database',
};

export function newCmdServe(f: Factory, runs: Partial<ServeRuns> = {}): Command {
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
      '--quota <size>',
      "the most bytes of files one account may keep, its uploads under way included: bytes, or with a unit (512MiB, 10GiB); an upload past it is refused (413 or 507, naming it); default: none; `pm serve accounts list` shows each account's use",
    )
    .option(
      '--upload-dir <dir>',
      "PostgreSQL: where an upload past the connections spared for streamed uploads waits until it is whole, in a file removed as it is opened (default: the system's temporary folder, $TMPDIR); SQLite writes uploads into its data file as they come",
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

GET /openapi.json (no token needed) describes the API as an OpenAPI 3.1 document whose servers
name the origin it was asked at (--public-url's, behind a proxy): generate a client from it.

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
    .action(async (opts: ServeFlags, cmd: Command) => (runs.serve ?? RUN)(await serveOptionsOf(f, opts, cmd)));

  adopt(serve, newCmdServeTokens(f, runs));
  adopt(serve, newCmdServeAccounts(f, runs));
  return serve;
}

export function registerServe(program: Command, f: Factory): void {
  adopt(program, newCmdServe(f));
}

/** The flags of `pm serve`, checked and read into its options: how they combine, and each value. */
async function serveOptionsOf(f: Factory, opts: ServeFlags, cmd: Command): Promise<ServeOptions> {
  const store = storeOf(f, cmd);
  if (store.database === undefined && opts.poolSize !== undefined)
    throw usageError('--pool-size is the number of connections to a PostgreSQL database: give --database too.');
  if (store.database !== undefined && opts.readers !== undefined)
    throw usageError('--readers is for a data file: on PostgreSQL, --pool-size sets the connections.');
  if (opts.metricsHost !== undefined && opts.metricsPort === undefined)
    throw usageError('--metrics-host is where the metrics port listens: give --metrics-port too.');
  const metricsPort = numberFlag('--metrics-port', opts.metricsPort, 0, 65_535, 'a number from 0 to 65535');
  return {
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
    quotaBytes: sizeFlag('--quota', opts.quota),
    uploadDir: opts.uploadDir,
    logFormat: opts.logFormat,
    logLevel: opts.logLevel,
    metrics: metricsPort === undefined ? undefined : { host: opts.metricsHost ?? '127.0.0.1', port: metricsPort },
    shutdownGraceMs:
      (numberFlag('--shutdown-grace', opts.shutdownGrace, 0, 3600, 'a whole number of seconds from 0 to 3600') ?? 10) *
      1000,
  };
}
