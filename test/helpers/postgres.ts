/**
 * A private PostgreSQL for tests: `initdb` into a temporary directory, the server on a free
 * loopback port with its socket in that directory, stopped and removed afterwards. PostgreSQL
 * refuses to run as root, so as root the binaries run as the `postgres` system user (runuser),
 * owning the directory. PM_TEST_DATABASE_URL, when set, names a server to use instead (its user
 * may create databases). Each test file gets a database of its own (CREATE DATABASE), so files
 * run in parallel. Where no PostgreSQL binaries exist, `pgMissing` says so and the tests skip.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const BINARIES = ['initdb', 'pg_ctl', 'postgres'] as const;

function which(name: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export const pgMissing: string | undefined = process.env.PM_TEST_DATABASE_URL
  ? undefined
  : BINARIES.every((b) => which(b))
    ? undefined
    : `no PostgreSQL server binaries (${BINARIES.join(', ')}) on PATH and PM_TEST_DATABASE_URL not set: PostgreSQL tests skipped`;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A private cluster: its superuser URL (no password: trust on loopback), and how to stop it. */
export interface Cluster {
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  /** pg_ctl stop (fast): the database goes away under the servers using it. */
  stop(): void;
  /** pg_ctl start again, on the same port. */
  start(): void;
  /** Stops the cluster and removes its directory. */
  destroy(): void;
}

const asRoot = process.getuid?.() === 0;

function runPg(bin: string, args: string[]): void {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  execFileSync(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: tmpdir() });
}

export async function startCluster(): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'pm-pg-'));
  if (asRoot)
    chownSync(
      dir,
      Number(execFileSync('id', ['-u', 'postgres']).toString()),
      Number(execFileSync('id', ['-g', 'postgres']).toString()),
    );
  const data = join(dir, 'data');
  const port = await freePort();
  runPg('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const opts = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=off -c max_connections=200 -c shared_buffers=16MB`;
  const start = () => runPg('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  start();
  let stopped = false;
  const stop = () => {
    if (existsSync(join(data, 'postmaster.pid'))) runPg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    stop,
    start,
    destroy() {
      if (stopped) return;
      stopped = true;
      try {
        stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A fresh database on a server, and how to drop it. */
export interface TestDatabase {
  readonly url: string;
  /** The cluster, when these tests started their own (to stop and start it). */
  readonly cluster: Cluster | undefined;
  drop(): Promise<void>;
}

let n = 0;

/**
 * A new, empty database: on PM_TEST_DATABASE_URL's server, on `adminUrl`'s (the cluster the
 * global set-up started), or on a private cluster started for it (`shared` reuses one cluster
 * for several databases of a file). Dropped, or its own cluster removed, by `drop`.
 */
export async function createTestDatabase(shared?: Cluster, adminUrl?: string): Promise<TestDatabase> {
  const given = process.env.PM_TEST_DATABASE_URL || adminUrl;
  const own = given || shared ? undefined : await startCluster();
  const cluster = shared ?? own;
  const admin = given || (cluster as Cluster).url;
  const name = `pm_test_${process.pid}_${Date.now().toString(36)}_${++n}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  try {
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    cluster,
    async drop() {
      if (own) return own.destroy();
      if (cluster && !existsSync(join(cluster.dir, 'data', 'postmaster.pid'))) return;
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      try {
        await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await d.end();
      }
    },
  };
}
