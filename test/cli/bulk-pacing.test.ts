/**
 * A bulk create against a rate-limited server paces itself: every record is created, in close to
 * the minimum time the limit allows, with at most a handful of 429s.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runPm } from '../helpers/cli.js';
import { Clock, startTestServer, type TestServer } from '../helpers/server.js';

const LIMIT = 20;
const WINDOW_MS = 2000;
const RECORDS = 60;
let server: TestServer;

beforeAll(async () => {
  // The limiter's windows must pass in real time here.
  const clock = Object.assign(new Clock(), { now: () => Date.now() });
  server = await startTestServer({ clock, rateLimit: { limit: LIMIT, windowMs: WINDOW_MS } });
});
afterAll(async () => {
  await server.close();
});

it('creates every record within the limit, close to the minimum time', async () => {
  const acct = await server.newAccount();
  const dir = mkdtempSync(join(tmpdir(), 'pm-pace-'));
  const file = join(dir, 'r.ndjson');
  writeFileSync(file, Array.from({ length: RECORDS }, (_, i) => `{"title":"t${i}"}\n`).join(''));
  const started = Date.now();
  const r = await runPm(['--debug', 'reminders', 'create', '--from-file', file, '--concurrency', '8', '-q'], {
    env: { PM_BASE_URL: server.url, PM_TOKEN: acct.token },
    now: Date.now(),
  });
  const took = Date.now() - started;
  expect(r.code).toBe(0);
  expect(r.stdout.trim().split('\n')).toHaveLength(RECORDS);
  const count = server.sqlite.db
    .prepare('SELECT COUNT(*) AS n FROM reminders WHERE account_id = ?')
    .get(acct.accountId) as {
    n: number;
  };
  expect(count.n).toBe(RECORDS);
  const refused = r.stderr.split('\n').filter((l) => /^< 429\b/.test(l)).length;
  expect(refused).toBeLessThanOrEqual(3);
  // 60 requests at 20 per fixed 2 s window need the start of a third window: more than one
  // window from the start, at most two and a bit; pacing should add little to that.
  expect(took).toBeGreaterThanOrEqual(WINDOW_MS);
  expect(took).toBeLessThan(5 * WINDOW_MS);
}, 30_000);
