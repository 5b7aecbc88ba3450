/**
 * A command's connection to an API: the configured server, or the embedded default (the
 * bundled server started in-process on loopback, on the default data file, with its token).
 */
import type { HttpClient } from '../client/http.js';
import type { ResourceClient } from '../client/resources.js';
import { type Target, resolveTarget } from './config.js';
import type { Deps } from './context.js';
import { CliError, EXIT } from './errors.js';
import type { GlobalOptions } from './program.js';
import { version } from './program.js';

export interface Session {
  readonly target: Target;
  readonly http: HttpClient;
  readonly client: ResourceClient;
  /** The embedded server's data file, when running on the embedded default. */
  readonly dataFile: string | undefined;
  close(): Promise<void>;
}

export async function openSession(globals: GlobalOptions, deps: Deps): Promise<Session> {
  const target = await resolveTarget(
    {
      ...(globals.baseUrl ? { baseUrl: globals.baseUrl } : {}),
      ...(globals.profile ? { profile: globals.profile } : {}),
    },
    deps,
  );
  for (const w of target.warnings) deps.io.stderr.write(`warning: ${w}\n`);
  const [{ HttpClient }, { ResourceClient }] = await Promise.all([
    import('../client/http.js'),
    import('../client/resources.js'),
  ]);
  let baseUrl = target.baseUrl;
  let token = target.token;
  let stopServer: (() => Promise<void>) | undefined;
  let dataFile: string | undefined;

  if (baseUrl === undefined) {
    if (!target.embedded) throw new CliError(EXIT.usage, 'no server is configured');
    dataFile = target.embedded.dataFile;
    const { startServer, bootstrap, readLocalToken } = await import('../server/index.js');
    let server: Awaited<ReturnType<typeof startServer>>;
    try {
      server = await startServer({ dataFile, host: '127.0.0.1', port: 0 });
    } catch (e) {
      throw new CliError(
        EXIT.api,
        `could not open the embedded default's data file ${dataFile}: ${(e as Error).message}`,
      );
    }
    stopServer = () => server.close();
    baseUrl = server.url;
    token = server.createdToken ?? readLocalToken(dataFile) ?? bootstrap(server.store, { ensure: true });
  } else if (!token) {
    throw new CliError(EXIT.auth, `no token for ${baseUrl} (profile "${target.profile}")`, {
      hint: 'Log in with `pm auth login`, or set PM_TOKEN.',
    });
  }

  const debug = globals.debug ? (line: string) => deps.io.stderr.write(`${line}\n`) : undefined;
  const http = new HttpClient({
    baseUrl,
    token,
    userAgent: `pm/${version()}`,
    ...(target.timeout ? { timeout: target.timeout } : {}),
    ...(debug ? { debug } : {}),
    signal: deps.signal,
  });
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
