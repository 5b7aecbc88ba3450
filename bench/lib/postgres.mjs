/**
 * A private PostgreSQL cluster for figure 8, and properties seeded straight into a database.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, NODE, PM } from './env.mjs';
import { cleanEnv, clusters, mustSucceed, removeDir, runTimed, startListening, tmpDir } from './processes.mjs';
import { CITIES, TYPES } from './seed.mjs';

/**
 * A private PostgreSQL cluster for figure 8, started as the tests start theirs: initdb into a temp
 * dir, the server on a free loopback port with its socket in that dir (as the postgres system user
 * when run as root, which PostgreSQL refuses), stopped and removed at the end or on Ctrl-C.
 */
export async function startCluster() {
  const dir = tmpDir('pg');
  const asRoot = process.getuid?.() === 0;
  const run = (bin, args) => {
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
    const r = spawnSync(cmd, argv, { cwd: os.tmpdir(), encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${bin} ${args[0]}: ${r.error?.message ?? r.stderr}`);
  };
  if (asRoot) {
    const id = (flag) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout);
    chownSync(dir, id('-u'), id('-g'));
  }
  const data = join(dir, 'data');
  const port = await new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port: p } = s.address();
      s.close(() => resolve(p));
    });
  });
  run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const opts = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c shared_buffers=256MB -c max_connections=100`;
  run('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  const stop = () => {
    if (existsSync(join(data, 'postmaster.pid'))) run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  };
  clusters.add(stop);
  return {
    url: (db) => `postgres://postgres@127.0.0.1:${port}/${db}`,
    destroy() {
      clusters.delete(stop);
      stop();
      removeDir(dir);
    },
  };
}

/**
 * Properties written straight into a PostgreSQL database in one INSERT ... SELECT (the same
 * addresses, postcodes, cities and numbers as seedProperties draws, from PostgreSQL's seeded
 * random()), their fold columns and search keys as pm writes them, then ANALYZE: a million in
 * about a minute with the trigram indexes kept. `accountId`: another account's (the first's by default).
 */
export async function seedPostgres(url, count, accountId) {
  const { default: pg } = await import('pg');
  const load = (p) => import(pathToFileURL(join(DIST, p)).href);
  const [{ resourceByPath }, { fold, foldColumnOf, keysColumnOf }, { PG_MIGRATION_KEYS }] = await Promise.all([
    load('resources/index.js'),
    load('server/columns.js'),
    load('server/tables.js'),
  ]);
  const r = resourceByPath('properties');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const account = accountId ?? (await c.query('SELECT account_id FROM users ORDER BY id LIMIT 1')).rows[0].account_id;
    await c.query('SELECT setseed(0.42)');
    const list = (xs) => `ARRAY[${xs.map((x) => `'${x}'`).join(', ')}]`;
    await c.query(
      `INSERT INTO ${r.table} (account_id, uuid, created_at, updated_at, address, postcode, city, type,
         bedrooms, bathrooms, has_garage, has_garden, has_parking)
       SELECT a, u, t, t, ad, pc, ci, ty, be, ba, ga, gd, 0
       FROM (
         SELECT $3::bigint AS a, gen_random_uuid()::text AS u,
           $1::bigint + i * 1000 AS t,
           (1 + floor(random() * 300))::int || ' ' || (${list(['High', 'Church', 'Station', 'Park', 'Mill'])})[1 + i % 5] || ' Street' AS ad,
           'LS' || (1 + i % 28) || ' ' || (1 + floor(random() * 9))::int || 'AA' AS pc,
           (${list(CITIES)})[1 + floor(random() * ${CITIES.length})::int] AS ci,
           (${list(TYPES)})[1 + floor(random() * ${TYPES.length})::int] AS ty,
           floor(random() * 6)::int AS be, 1 + floor(random() * 3)::int AS ba,
           (random() < 0.3)::int AS ga, (random() < 0.6)::int AS gd
         FROM generate_series(0, $2::int - 1) AS i
       ) s`,
      [Date.parse('2020-01-01T00:00:00Z'), count, account],
    );
    // Each fold column and its search keys, as pm writes them beside the text: the few distinct
    // values the seed draws, folded by the store's own fold (columns.ts), their keys by the
    // function migration 5 fills a database's keys with; then one UPDATE. A field the seed leaves
    // null keeps null folds; the others are set on every row.
    await c.query(PG_MIGRATION_KEYS);
    await c.query('CREATE TEMP TABLE seed_folds (f text, v text, fv text, k text[])');
    const drawn = [];
    for (const f of r.fields.filter((x) => foldColumnOf(x))) {
      const { rows } = await c.query(
        `SELECT DISTINCT "${f.name}" AS v FROM ${r.table} WHERE account_id = $1 AND "${f.name}" IS NOT NULL`,
        [account],
      );
      if (!rows.length) continue;
      drawn.push(f);
      const values = rows.map((x) => x.v);
      await c.query(
        `INSERT INTO seed_folds (f, v, fv, k)
         SELECT $1, v, fv, pm_migration_keys($4::bigint, fv)
         FROM unnest($2::text[], $3::text[]) AS x(v, fv)`,
        [f.name, values, values.map((v) => fold(v, f.filter)), account],
      );
    }
    const as = (f) => `s_${f.name}`;
    await c.query(
      `UPDATE ${r.table} p SET ${drawn.map((f) => `"${foldColumnOf(f)}" = ${as(f)}.fv, "${keysColumnOf(foldColumnOf(f))}" = ${as(f)}.k`).join(', ')}
       FROM ${drawn.map((f) => `seed_folds ${as(f)}`).join(', ')}
       WHERE p.account_id = $1 AND ${drawn.map((f) => `${as(f)}.f = '${f.name}' AND ${as(f)}.v = p."${f.name}"`).join(' AND ')}`,
      [account],
    );
    await c.query('DROP FUNCTION pm_migration_keys');
    // As autovacuum leaves a table after a load (PostgreSQL 13+ vacuums after inserts too): the
    // visibility map set, so that index-only scans read no rows.
    await c.query(`VACUUM ANALYZE ${r.table}`);
  } finally {
    await c.end();
  }
}

/**
 * `pm serve --database` on a database `name` of its own in a private cluster, started once to
 * migrate it, given a token of its first account, then started with `args`: its URL, pid, token
 * and environment (`PM_DATABASE_URL`); `stop()` stops it and removes the cluster.
 */
export async function startPmServeOnPostgres(home, name, args = []) {
  const cluster = await startCluster();
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: cluster.url('postgres') });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const env = cleanEnv(home, { PM_DATABASE_URL: cluster.url(name) });
  const first = await startListening('pm serve --database', NODE, [PM, 'serve', '--port', '0'], env);
  await first.stop();
  const made = await runTimed(NODE, [PM, 'serve', 'tokens', 'create', '--name', 'bench'], { env, stdout: 'capture' });
  const s = await startListening('pm serve --database', NODE, [PM, 'serve', '--port', '0', ...args], env);
  return {
    ...s,
    env,
    token: mustSucceed('tokens create', made).stdout.trim(),
    stop: async () => {
      await s.stop();
      cluster.destroy();
    },
  };
}
