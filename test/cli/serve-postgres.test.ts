/**
 * `pm serve` and its token and account commands on a PostgreSQL database (--database, or
 * PM_DATABASE_URL): what they print, --data with --database refused, and the password never
 * shown. Runs in the `postgres` project; skips with one line where there is no PostgreSQL.
 */
import { spawn } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/resources/index.js';
import { EXIT } from '../../src/cli/errors.js';
import { BIN, runPm, tempHome } from '../helpers/cli.js';
import { type Cluster, createTestDatabase, pgMissing, startCluster, type TestDatabase } from '../helpers/postgres.js';

if (pgMissing) console.warn(pgMissing);

/**
 * `pm serve --port 0 ... --database URL` (the URL last in `args`) as a process, once its stderr
 * says `ready`.
 */
async function servePg(args: string[], ready: string) {
  const database = args.at(-1) as string;
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args.slice(0, -1), '--database', database], {
    env: { PATH: process.env.PATH ?? '', HOME: tempHome() },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`pm serve did not start: ${stderr}`)), 15_000);
    child.on('close', (code) => reject(new Error(`pm serve ended (${code}): ${stderr}`)));
    child.stderr.on('data', (d) => {
      stderr += d;
      if (stderr.includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return { child, stdout: () => stdout, stderr: () => stderr };
}

describe.skipIf(pgMissing !== undefined)('pm serve --database', () => {
  let cluster: Cluster | undefined;
  let db: TestDatabase;
  beforeAll(async () => {
    cluster = process.env.PM_TEST_DATABASE_URL ? undefined : await startCluster();
    db = await createTestDatabase(cluster);
  });
  afterAll(async () => {
    await db?.drop();
    cluster?.destroy();
  });

  it('tokens and accounts: the first use makes the account and says how to make a token; then as with --data', async () => {
    const printable = db.url.replace(/:([^:@/]*)@/, ':***@');
    const list0 = await runPm(['serve', 'tokens', 'list', '--database', db.url]);
    expect(list0).toEqual({
      code: 0,
      stdout: '',
      stderr: `pm serve: new database: created an account; make its token with \`pm serve tokens create --database ${printable}\`\n`,
    });
    const made = await runPm([
      'serve',
      'tokens',
      'create',
      '--name',
      'ci',
      '--scopes',
      'reminders.read',
      '--database',
      db.url,
    ]);
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^pm_[A-Za-z0-9_-]{43}\n$/);
    expect(made.stderr).toBe('Created token 1 "ci" with scopes reminders.read. Store it now: it is not shown again.\n');
    const hint = made.stdout.trim().slice(-4);
    const list = await runPm(['serve', 'tokens', 'list', '--database', db.url]);
    expect(list).toEqual({ code: 0, stdout: `1\tci\taccount 1\t…${hint}\tactive\treminders.read\n`, stderr: '' });
    const json = await runPm(['serve', '--database', db.url, 'tokens', 'list', '--json']);
    expect(JSON.parse(json.stdout)).toEqual([
      {
        id: 1,
        name: 'ci',
        hint,
        scopes: ['reminders.read'],
        account_id: 1,
        user_id: 1,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
        last_used_at: null,
        revoked_at: null,
      },
    ]);
    const account = await runPm(['serve', 'accounts', 'create', '--name', 'Team', '--database', db.url]);
    expect(account.code).toBe(0);
    expect(account.stderr).toBe(
      'Created account 2 "Team" and a full-scope token. Store it now: it is not shown again.\n',
    );
    // The same through PM_DATABASE_URL.
    const env = { PM_DATABASE_URL: db.url };
    expect((await runPm(['serve', 'tokens', 'revoke', '1'], { env })).stderr).toBe('Revoked token 1.\n');
    const again = await runPm(['serve', 'tokens', 'revoke', '1'], { env });
    expect(again.code).toBe(EXIT.notFound);
    expect(again.stderr).toContain('No active token 1 in this database.');
    const after = await runPm(['serve', 'tokens', 'list'], { env });
    expect(after.stdout.split('\n')[0]).toMatch(/^1\tci\taccount 1\t…\S{4}\trevoked \S+\treminders\.read$/);
    expect(after.stdout.split('\n')[1]).toBe(
      `2\towner\taccount 2\t…${account.stdout.trim().slice(-4)}\tactive\t${ALL_SCOPES.join(' ')}`,
    );
  });

  it('--data given wins over PM_DATABASE_URL; --data with --database is a usage error', async () => {
    const home = tempHome();
    const viaData = await runPm(['serve', 'tokens', 'list', '--data', `${home}/team.db`], {
      env: { PM_DATABASE_URL: db.url },
      home,
    });
    expect(viaData.code).toBe(0);
    expect(viaData.stderr).toContain('new data file');
    const both = await runPm(['serve', 'tokens', 'list', '--data', `${home}/team.db`, '--database', db.url]);
    expect(both.code).toBe(EXIT.usage);
    expect(both.stderr).toContain('--data and --database name two stores: give one of them.');
    const notPg = await runPm(['serve', 'tokens', 'list', '--database', 'mysql://u:topsecret@h/db']);
    expect(notPg.code).toBe(EXIT.usage);
    expect(notPg.stderr).not.toContain('topsecret');
    const pool = await runPm(['serve', '--database', db.url, '--pool-size', '0']);
    expect(pool.code).toBe(EXIT.usage);
    expect(pool.stderr).toContain('--pool-size must be a whole number from 1 to 1000, not "0".');
    const poolAlone = await runPm(['serve', '--pool-size', '5']);
    expect(poolAlone.code).toBe(EXIT.usage);
    expect(poolAlone.stderr).toContain('--pool-size is the number of connections to a PostgreSQL database');
    const readers = await runPm(['serve', '--database', db.url, '--readers', '2']);
    expect(readers.code).toBe(EXIT.usage);
  });

  it('the password is never printed: not when the database cannot be reached, not when serving', async () => {
    const unreachable = await runPm(['serve', 'tokens', 'list', '--database', 'postgres://pm:pa55word@127.0.0.1:1/pm']);
    expect(unreachable.code).not.toBe(0);
    expect(unreachable.stderr).toContain('postgres://pm:***@127.0.0.1:1/pm');
    expect(unreachable.stderr).not.toContain('pa55word');
    const inQuery = await runPm([
      'serve',
      'tokens',
      'list',
      '--database',
      'postgres://pm@127.0.0.1:1/pm?password=qu3ry-secret',
    ]);
    expect(inQuery.code).not.toBe(0);
    expect(inQuery.stderr).toContain('cannot connect to the database');
    expect(inQuery.stderr).not.toContain('qu3ry-secret');
    // A password with unencoded / # ? @ in it, and libpq's key=value form (refused as not a URL).
    for (const database of ['postgres://pm:p@ss/w#r?d@127.0.0.1:1/pm', 'host=127.0.0.1 port=1 password=k3y-val'])
      for (const secret of ['p@ss/w#r?d', 'ss/w#r', 'k3y-val']) {
        const shown = await runPm(['serve', 'tokens', 'list', '--database', database]);
        expect(shown.code, database).not.toBe(0);
        expect(shown.stderr, database).not.toContain(secret);
      }

    const u = new URL(db.url);
    u.password = 'pa55word';
    const s = await servePg([u.toString()], 'listening on');
    const url = /listening on (\S+)/.exec(s.stderr())?.[1];
    expect((await fetch(`${url}/health`)).status).toBe(200);
    const closed = new Promise((r) => s.child.on('close', r));
    s.child.kill('SIGTERM');
    await closed;
    expect(s.stderr()).toContain(`(database: postgres://${u.username}:***@${u.host}${u.pathname})`);
    expect(s.stderr()).not.toContain('pa55word');
  });

  it('its log and metrics: a line per request, a server error logged once, no password nor token anywhere', async () => {
    const made = await runPm(['serve', 'tokens', 'create', '--name', 'log', '--database', db.url]);
    const token = made.stdout.trim();
    const u = new URL(db.url);
    u.password = 'l0g-pa55word';
    const {
      child,
      stdout: out,
      stderr: err,
    } = await servePg(['--metrics-port', '0', '--log-format', 'json', u.toString()], 'metrics on');
    const url = /listening on (\S+)/.exec(err())?.[1];
    const metricsUrl = /metrics on (\S+)/.exec(err())?.[1] as string;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    expect((await fetch(`${url}/reminders`, { headers })).status).toBe(200);
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    await admin.query('ALTER TABLE reminders RENAME TO reminders_gone');
    let id: string | null;
    try {
      const failed = await fetch(`${url}/reminders`, { method: 'POST', headers, body: '{"title":"x"}' });
      expect(failed.status).toBe(500);
      id = failed.headers.get('x-request-id');
      expect(((await failed.json()) as { request_id: string }).request_id).toBe(id);
      const scrape = await (await fetch(metricsUrl)).text();
      expect(scrape).toMatch(/^pm_postgres_pool_connections\{state="in_use"\} \d+$/m);
      expect(scrape).toMatch(/^pm_postgres_pool_connections\{state="idle"\} [1-9]\d*$/m);
      expect(scrape).toMatch(/^pm_postgres_pool_waiting 0$/m);
      expect(scrape).toMatch(/^pm_http_requests_total\{method="POST",route="\/reminders",status="500"\} 1$/m);
    } finally {
      await admin.query('ALTER TABLE reminders_gone RENAME TO reminders');
      await admin.end();
    }
    // The database lost (where these tests run their own): a 503, its cause logged with its id.
    const cluster = db.cluster;
    let lost: string | null = null;
    if (cluster) {
      cluster.stop();
      try {
        const unavailable = await fetch(`${url}/reminders`, { headers });
        expect(unavailable.status).toBe(503);
        lost = unavailable.headers.get('x-request-id');
      } finally {
        cluster.start();
      }
    }
    const closed = new Promise((r) => child.on('close', r));
    child.kill('SIGTERM');
    expect(await closed).toBe(0);
    const stdout = out();
    const stderr = err();
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l.level === 'error')).toEqual([
      expect.objectContaining({ request_id: id, msg: expect.stringContaining('reminders') }),
      ...(lost === null
        ? []
        : [
            {
              level: 'error',
              time: expect.any(String),
              request_id: lost,
              status: 503,
              msg: expect.stringMatching(
                /^The server cannot reach its database at the moment; try again shortly\. \(.+\)$/,
              ),
            },
          ]),
    ]);
    expect(lines.filter((l) => l.msg === 'request').map((l) => [l.method, l.status, l.account_id])).toEqual([
      ['GET', 200, 1],
      ['POST', 500, 1],
      ...(lost === null ? [] : [['GET', 503, undefined]]),
    ]);
    for (const secret of ['l0g-pa55word', token]) expect(stdout + stderr).not.toContain(secret);
  });
});
