/** `pm serve`: the API on a data file or a PostgreSQL database, until SIGTERM or Ctrl-C. */
import { availableParallelism } from 'node:os';
import type { LogFormat, LogLevel } from '../../../server/access-log.js';
import {
  type PostgresServerOptions,
  type RunningServer,
  type ServerOptions,
  type Store,
  startServer,
} from '../../../server/index.js';
import { failed, NEW_DATABASE, NEW_FILE, redacted } from './store-run.js';
import type { OnDataFile } from './store.js';

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
    | 'quotaBytes'
    | 'uploadDir'
    | 'metrics'
  > &
  Pick<PostgresServerOptions, 'poolSize'> & {
    readonly logFormat: LogFormat;
    readonly logLevel: LogLevel;
    /** How long requests in flight have to finish after SIGTERM (ms). */
    readonly shutdownGraceMs: number;
  };

export async function serveRun(o: ServeOptions): Promise<void> {
  const { f, dataFile, database, poolSize, readers, logFormat, logLevel, shutdownGraceMs, ...options } = o;
  const { io } = f;
  const { rateLimit } = options;
  const common = {
    ...options,
    // Requests, and server errors with their stacks, on stdout; a database's password never.
    log: {
      format: logFormat,
      level: logLevel,
      out: io.stdout,
      redact: (text: string) => redacted(text, database),
      broken: (message: string) => io.stderr.write(`pm serve: ${message}\n`),
    },
  };
  let server: RunningServer<Store>;
  if (database !== undefined) {
    server = await startServer({ ...common, database, poolSize }).catch((e) => {
      throw failed(e, database);
    });
    if (server.createdAccount) io.stderr.write(NEW_DATABASE(database));
  } else {
    server = await startServer({ ...common, dataFile, readers: readers ?? Math.min(4, availableParallelism()) });
    if (server.createdToken) io.stderr.write(NEW_FILE(dataFile));
  }
  const where = database !== undefined ? `database: ${redacted(database, database)}` : `data: ${dataFile}`;
  io.stderr.write(
    `pm serve: listening on ${server.url} (${where}${rateLimit ? `, rate limit ${rateLimit.limit} per ${rateLimit.windowMs / 1000}s` : ''})\n`,
  );
  if (server.metricsUrl) io.stderr.write(`pm serve: metrics on ${server.metricsUrl}\n`);
  await new Promise<void>((resolve) => {
    let stopping = false;
    // Ctrl-C comes as the run's abort signal (main.ts; a second one ends the process there);
    // a service manager stops pm serve with SIGTERM. Either is a clean stop: exit 0.
    f.interruptIsStop?.();
    const stop = () => {
      if (stopping) {
        // A second signal: no more waiting. With no listener left, SIGTERM ends the process.
        io.stderr.write('pm serve: stopping now\n');
        process.off('SIGTERM', stop);
        process.kill(process.pid, 'SIGTERM');
        return;
      }
      stopping = true;
      io.stderr.write(
        `pm serve: shutting down: no new connections; requests in flight have ${shutdownGraceMs / 1000} s to finish\n`,
      );
      void server.close(shutdownGraceMs).then(() => {
        process.off('SIGTERM', stop);
        resolve();
      });
    };
    process.on('SIGTERM', stop);
    f.signal?.addEventListener('abort', stop, { once: true });
  });
}
