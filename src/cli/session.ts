/**
 * A command's connection to an API: the configured server, or the embedded default (the bundled
 * server's app answering in-process, on the default data file, with the token it created).
 */
import type { HttpClient, HttpOptions } from '../client/http.js';
import { MAX_RETRIES } from '../client/retry.js';
import { printableUrl, visible } from '../core/redact.js';
import { mark } from '../core/timing.js';
import type { ResourceClient } from '../client/resources.js';
import { parseTimeout, type Target, resolveTarget } from './config.js';
import type { Deps } from './context.js';
import { MissingDriverError } from '../core/errors.js';
import { CliError, EXIT, missingDriver, usageError } from './errors.js';
import type { GlobalOptions } from './globals.js';
import { version } from './version.js';

export interface Session {
  readonly target: Target;
  readonly http: HttpClient;
  readonly client: ResourceClient;
  /** The embedded server's data file, when running on the embedded default. */
  readonly dataFile: string | undefined;
  close(): Promise<void>;
}

/** The global flags that say where pm points (an empty one is no flag). */
export function targetFlags(globals: GlobalOptions): { baseUrl: string | undefined; profile: string | undefined } {
  return { baseUrl: globals.baseUrl || undefined, profile: globals.profile || undefined };
}

export async function openSession(globals: GlobalOptions, deps: Deps): Promise<Session> {
  const target = await resolveTarget(targetFlags(globals), deps);
  mark('config read');
  // Why PM_TOKEN was withheld is the error below, not a warning before it.
  for (const w of target.warnings) if (w !== target.withheld?.message) deps.io.stderr.write(`warning: ${visible(w)}\n`);
  const transport = httpOptions(globals, deps, target);
  const [{ HttpClient }, { ResourceClient }, { insecureHost }] = await Promise.all([
    import('../client/http.js'),
    import('../client/resources.js'),
    import('../client/transport.js'),
  ]);
  mark('client loaded');
  let baseUrl = target.baseUrl;
  let token = target.token;
  let stopServer: (() => Promise<void>) | undefined;
  let dataFile: string | undefined;
  let dispatcher: HttpOptions['dispatcher'];

  if (baseUrl === undefined) {
    if (!target.embedded) throw new CliError(EXIT.usage, 'no server is configured');
    dataFile = target.embedded.dataFile;
    const { openEmbedded } = await import('../server/embedded.js');
    let embedded: ReturnType<typeof openEmbedded>;
    try {
      embedded = openEmbedded(dataFile);
    } catch (e) {
      if (e instanceof MissingDriverError)
        throw missingDriver(e, 'the embedded default', 'name a server with --base-url or PM_BASE_URL');
      throw new CliError(
        EXIT.api,
        `could not open the embedded default's data file ${dataFile}: ${(e as Error).message}`,
      );
    }
    stopServer = () => embedded.close();
    baseUrl = embedded.url;
    // No token: in-process, the requests are the data file's owner's (server/embedded.ts).
    token = undefined;
    // The same app answers in-process: no port, no connection pool, no round trip.
    dispatcher = embedded.dispatcher as unknown as HttpOptions['dispatcher'];
  } else if (!token && target.withheld) {
    throw new CliError(EXIT.auth, target.withheld.message, { hint: target.withheld.hint });
  } else if (!token) {
    throw new CliError(EXIT.auth, `no token for ${printableUrl(baseUrl)} (profile "${target.profile}")`, {
      hint: 'Log in with `pm auth login`, or set PM_TOKEN.',
    });
  }

  const insecure = globals.allowInsecureHttp ? undefined : insecureHost(baseUrl, token);
  if (insecure !== undefined) {
    await stopServer?.();
    throw new CliError(
      EXIT.usage,
      `refusing to send the token over plain http to ${insecure}: use an https base URL, or pass --allow-insecure-http.`,
      { hint: 'Anyone on the network between could read the token; --allow-insecure-http is for networks you trust.' },
    );
  }

  const http = new HttpClient({ baseUrl, token, ...transport, ...(dispatcher ? { dispatcher, deadline: false } : {}) });
  mark('session opened');
  return {
    target,
    http,
    client: new ResourceClient(http),
    dataFile,
    close: async () => {
      await http.close();
      await stopServer?.();
    },
  };
}

/** Opens a session, runs `fn`, and always closes it. */
export async function withSession<T>(globals: GlobalOptions, deps: Deps, fn: (s: Session) => Promise<T>): Promise<T> {
  const s = await openSession(globals, deps);
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}

/**
 * What every HTTP client of a command is given besides its base URL and token: the global flags
 * --timeout (else the config's timeout), --retries, --debug and --allow-insecure-http, the
 * environment (proxy variables, NODE_EXTRA_CA_CERTS), the abort signal, and PM_RETRY_BASE_MS (the
 * first retry's backoff ceiling in ms, default 500: for tests and impatient scripts). For a
 * command that makes its own HttpClient (as `pm auth login` does) rather than open a session.
 */
export function httpOptions(
  globals: GlobalOptions,
  deps: Deps,
  target: Pick<Target, 'timeout'>,
): Omit<HttpOptions, 'baseUrl' | 'token'> {
  const out: { -readonly [K in keyof HttpOptions]?: HttpOptions[K] } = {
    userAgent: `pm/${version()}`,
    env: deps.env,
    signal: deps.signal,
    allowInsecureHttp: globals.allowInsecureHttp === true,
  };
  if (globals.debug) out.debug = (line: string) => deps.io.stderr.write(`${line}\n`);
  // --debug says every wait already; a terminal is told of the long ones. Whether stderr is one
  // is asked only then: asking makes its stream, which a run that never waits need not pay for.
  else
    out.notice = (line: string) => {
      if (deps.io.stderr.isTTY) deps.io.stderr.write(`${line}\n`);
    };
  const timeout = globals.timeout !== undefined ? parseTimeout(String(globals.timeout), '--timeout') : target.timeout;
  if (timeout !== undefined) out.timeout = timeout;
  if (globals.retries !== undefined) {
    const text = String(globals.retries).trim();
    if (!/^\d{1,2}$/.test(text) || Number(text) > MAX_RETRIES)
      throw usageError(`--retries must be a whole number from 0 to ${MAX_RETRIES}, not "${globals.retries}".`);
    out.retries = Number(text);
  }
  const base = deps.env.PM_RETRY_BASE_MS;
  if (base !== undefined && base.trim() !== '') {
    if (!/^\d{1,6}$/.test(base.trim()))
      throw usageError(`PM_RETRY_BASE_MS must be a whole number of milliseconds, not "${base}".`);
    out.retryBaseMs = Number(base.trim());
  }
  return out;
}
