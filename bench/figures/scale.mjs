/**
 * Figures 7 and 8: pm serve at 1k, 100k and 1M properties, on SQLite and on PostgreSQL: how p50
 * grows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE, PM } from '../lib/env.mjs';
import { SIZES } from '../lib/options.mjs';
import { seedPostgres, startCluster } from '../lib/postgres.mjs';
import {
  cleanEnv,
  getJson,
  mustSucceed,
  removeDir,
  runTimed,
  startListening,
  startPmServe,
  tmpDir,
} from '../lib/processes.mjs';
import { fmt } from '../lib/report.mjs';
import { seedProperties } from '../lib/seed.mjs';
import { median, progress, row, say } from '../lib/stats.mjs';

/** The p50 and p99 (ms) of `n` requests made one after another on one keep-alive connection. */
export async function timeRequests(n, next) {
  const ms = [];
  for (let i = 0; i < n; i++) {
    const { url, token } = next(i);
    const t = process.hrtime.bigint();
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: median(ms), p99: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] };
}

/** The request kinds of figure 7, each varying its values and pages between requests. */
const SCALE_KINDS = [
  ['first page', (_n, i) => `/properties?per_page=${10 + (i % 3)}`],
  ['a page half-way through', (n, i) => `/properties?per_page=10&page=${Math.floor(n / 20) + (i % 7)}`],
  ['?bedrooms=N', (_n, i) => `/properties?per_page=10&bedrooms=${i % 6}`],
  ['?city= (fuzzy, 1 in 10)', (_n, i) => `/properties?per_page=10&city=${['leeds', 'york', 'hull', 'ripon'][i % 4]}`],
  [
    '?address= (fuzzy, few)',
    (_n, i) => `/properties?per_page=10&address=${encodeURIComponent(`${290 + (i % 9)} station`)}`,
  ],
  ['?postcode= (fuzzy)', (_n, i) => `/properties?per_page=10&postcode=ls1${1 + (i % 9)}`],
  ['GET /properties/{uuid}', (_n, i, uuids) => `/properties/${uuids[i % uuids.length]}`],
  [
    '?created_at= (range, 2 in 5)',
    (n, i) => {
      // The seeds are a second apart from 2020-01-01 on: a range over two fifths of them.
      const at = (k) => new Date(SEEDED_FROM + Math.floor(k) * 1000).toISOString();
      const from = n * (0.1 + 0.05 * (i % 7));
      return `/properties?per_page=10&created_at=${encodeURIComponent(`${at(from)}/${at(from + n * 0.4)}`)}`;
    },
  ],
];

/** The letters of the kinds' rows (o to t are the rows of the largest size). */
const KIND_ROWS = 'abcdefghijklmnuvwxyz';

/** The first seeded record's creation time (bench/lib/seed.mjs, postgres.mjs); the next one a second later. */
const SEEDED_FROM = Date.parse('2020-01-01T00:00:00Z');

/** The resident memory of a process (MB), from /proc. */
function rssOf(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/**
 * Head-of-line blocking: the p99 of GET /properties/{uuid} alone, and while 8 clients run the
 * heaviest filter (a fuzzy one with few matches) over and over.
 */
async function headOfLine(server, size, id) {
  const sample = await getJson(`${server.url}/properties?per_page=100`, server.token);
  const uuids = sample.data.map((r) => r.uuid);
  const cheap = {
    'GET /properties/{uuid}': (i) => ({
      url: `${server.url}/properties/${uuids[i % uuids.length]}`,
      token: server.token,
    }),
    'GET /properties?per_page=5 (a small list)': (i) => ({
      url: `${server.url}/properties?per_page=${5 + (i % 2)}`,
      token: server.token,
    }),
  };
  const n = SIZES.scaleRequests * 5;
  const idle = {};
  for (const [name, next] of Object.entries(cheap)) idle[name] = await timeRequests(n, next);
  let running = true;
  const heavy = async (k) => {
    for (let i = 0; running; i++) {
      const res = await fetch(
        `${server.url}/properties?per_page=10&address=${encodeURIComponent(`${290 + ((i + k) % 9)} station`)}`,
        {
          headers: { authorization: `Bearer ${server.token}` },
        },
      );
      await res.arrayBuffer();
    }
  };
  const clients = Array.from({ length: 8 }, (_, k) => heavy(k));
  await new Promise((r) => setTimeout(r, 200));
  const loaded = {};
  for (const [name, next] of Object.entries(cheap)) loaded[name] = await timeRequests(n, next);
  running = false;
  await Promise.all(clients);
  const k = size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`;
  return Object.keys(cheap).map((name, j) =>
    row(`${id}${'op'[j]}`, `${name} p99 while 8 clients run ?address= at ${k} vs idle`, {
      pm: loaded[name].p99,
      base: idle[name].p99,
      unit: 'ms',
      ratio: loaded[name].p99 / idle[name].p99,
      target: { op: '<=', value: 3 },
      note: `p99 of ${n} requests; p50 ${loaded[name].p50.toFixed(2)} ms loaded, ${idle[name].p50.toFixed(2)} ms idle`,
    }),
  );
}

/**
 * The cost of a 422 to a body of 50,000 unknown keys (the answer names at most 100 and counts the
 * rest) beside a 422 to a body with one: p50 of each, and the size of the big one's answer.
 */
async function unknownKeys(server, id) {
  const big = { address: 'x', postcode: 'y' };
  for (let i = 0; i < 50_000; i++) big[`k${i}`] = 1;
  const bodies = { big: JSON.stringify(big), one: JSON.stringify({ address: 'x', postcode: 'y', k0: 1 }) };
  let bytes = 0;
  const time = async (body) => {
    const ms = [];
    for (let i = 0; i < SIZES.scaleRequests; i++) {
      const t = process.hrtime.bigint();
      const res = await fetch(`${server.url}/properties`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        body,
      });
      const answer = await res.arrayBuffer();
      if (res.status !== 422) throw new Error(`unknown keys: ${res.status}, expected 422`);
      ms.push(Number(process.hrtime.bigint() - t) / 1e6);
      if (body === bodies.big) bytes = answer.byteLength;
    }
    return median(ms);
  };
  const one = await time(bodies.one);
  const many = await time(bodies.big);
  return row(`${id}r`, 'POST a body of 50,000 unknown keys (422) vs one unknown key', {
    pm: many,
    base: one,
    unit: 'ms',
    ratio: many / one,
    note: `p50 of ${SIZES.scaleRequests}; the body is ${(bodies.big.length / 1024).toFixed(0)} KiB, its 422 ${(bytes / 1024).toFixed(1)} KiB`,
  });
}

/**
 * Walking a long list page after page (as --all and pm export do) from half-way through: the
 * first page there starts from its order block; each next one where the one before ended.
 */
async function pageWalk(server, size, id) {
  const start = Math.floor(size / 200);
  const first = [];
  const next = [];
  for (let round = 0; round < 5; round++) {
    const from = start + round * 50;
    for (let p = from; p < from + 10; p++) {
      const t = process.hrtime.bigint();
      await getJson(`${server.url}/properties?per_page=100&page=${p}`, server.token);
      (p === from ? first : next).push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  const k = size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`;
  return row(`${id}q`, `the next page of 100 after one half-way through ${k} vs that page`, {
    pm: median(next),
    base: median(first),
    unit: 'ms',
    ratio: median(next) / median(first),
    note: 'p50 of 45 next pages against the first of each of 5 walks',
  });
}

/**
 * RSS of pm serve over 20,000 list queries, each a filter shape, value or page not seen before
 * (filters in other orders, IN lists of other lengths, text values that match and that do not,
 * creation-time ranges, pages and page sizes): before, after the first half and after the second.
 * Memory that a new shape costs and keeps for good grows as much in the second half as in the first.
 */
async function memoryAfterQueries(server, size, id) {
  const fields = ['city', 'address', 'postcode', 'type', 'county', 'address2'];
  const words = ['leeds', 'york', 'hull', 'station', 'church', 'park', 'street', 'ls1', 'ls12', 'house', 'ford'];
  const total = SIZES.quick ? 4_000 : 20_000;
  const query = (i) => {
    const q = new URLSearchParams();
    if (i % 2) {
      // A different order of filters, and IN lists of different lengths, each time.
      const a = fields[i % fields.length];
      const b = fields[(i + 1 + (i % 5)) % fields.length];
      q.set(a, `x${i}`);
      if (b !== a) q.set(b, `y${i % 97}`);
      for (let j = 0; j <= i % 12; j++) q.append('bedrooms[]', String(j));
    } else {
      // Values that match, ranges and pages.
      const w = words[(i >> 1) % words.length];
      if (i % 5 === 0) {
        const from = SEEDED_FROM + (i % size) * 1000;
        q.set('created_at', `${new Date(from).toISOString()}/PT${1 + (i % 50)}H`);
      } else q.set(fields[(i >> 1) % 3], i % 3 ? w : `${1 + (i % 300)} ${w}`);
      q.set('page', String(1 + (i % 23)));
    }
    q.set('per_page', String(1 + (i % 100)));
    return q;
  };
  const before = rssOf(server.pid);
  let half = before;
  for (let i = 0; i < total; i++) {
    const q = query(i);
    const res = await fetch(`${server.url}/properties?${q}`, { headers: { authorization: `Bearer ${server.token}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`memory figure: ${res.status} for ?${q}`);
    if (i % 1000 === 0) progress(`memory: ${i}/${total} queries`);
    if (i === total / 2 - 1) half = rssOf(server.pid);
  }
  const after = rssOf(server.pid);
  const k = size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`;
  const note = `${before.toFixed(0)} MB, after ${(total / 2).toLocaleString('en')} ${half.toFixed(0)} MB, after ${total.toLocaleString('en')} ${after.toFixed(0)} MB`;
  return [
    row(`${id}s`, `pm serve RSS after ${total.toLocaleString('en')} distinct list queries (${k})`, {
      pm: after - before,
      base: before,
      unit: 'MB',
      ratio: after / before,
      target: { of: 'pm', op: '<=', value: 100 },
      note,
    }),
    row(`${id}t`, `pm serve RSS growth over the second ${(total / 2).toLocaleString('en')} vs the first (${k})`, {
      pm: after - half,
      base: half - before,
      unit: 'MB',
      ratio: (after - half) / Math.max(half - before, 1),
      target: { op: '<=', value: 0.2 },
      note,
    }),
  ];
}

export async function figure7() {
  return scaleFigure('7', async (size) => {
    const dir = tmpDir('scale');
    const home = tmpDir('home');
    const data = join(dir, 'pm.db');
    await seedProperties(data, size);
    const server = await startPmServe(data, home);
    return {
      server,
      done: async () => {
        await server.stop();
        removeDir(dir);
        removeDir(home);
      },
    };
  });
}

/**
 * Figures 7 and 8: for each size, `open(size)` seeds that many properties into a fresh store and
 * starts pm serve on it; then each request kind of issue 12 is timed, and at the largest size the
 * head-of-line, page-walk, memory and 422 rows.
 */
async function scaleFigure(id, open) {
  const sizes = SIZES.scaleSizes;
  const results = [];
  const extra = [];
  for (const size of sizes) {
    const t0 = Date.now();
    progress(`seeding ${size.toLocaleString('en')} properties`);
    const { server, done } = await open(size);
    const seedMs = Date.now() - t0;
    try {
      const sample = await getJson(
        `${server.url}/properties?per_page=100&page=${Math.max(1, Math.floor(size / 200))}`,
        server.token,
      );
      const uuids = sample.data.map((r) => r.uuid);
      const p50 = {};
      const matches = {};
      for (const [name, path] of SCALE_KINDS) {
        progress(`${size.toLocaleString('en')}: ${name}`);
        const first = await getJson(server.url + path(size, 0, uuids), server.token);
        matches[name] = first.meta?.pagination?.total;
        await timeRequests(3, (i) => ({ url: server.url + path(size, i, uuids), token: server.token }));
        p50[name] = (
          await timeRequests(SIZES.scaleRequests, (i) => ({
            url: server.url + path(size, i, uuids),
            token: server.token,
          }))
        ).p50;
      }
      results.push({ size, p50, matches, seedMs });
      // The memory rows at 100,000 records (at the largest size when smaller).
      if (size === Math.min(100_000, sizes[sizes.length - 1]))
        extra.push(...(await memoryAfterQueries(server, size, id)));
      if (size === sizes[sizes.length - 1]) {
        extra.push(await pageWalk(server, size, id));
        extra.push(...(await headOfLine(server, size, id)));
        extra.push(await unknownKeys(server, id));
      }
    } finally {
      await done();
    }
  }
  const rows = [];
  const k = (n) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
  const seeded = results.map((r) => `${k(r.size)} in ${(r.seedMs / 1000).toFixed(1)} s`).join(', ');
  for (const [name] of SCALE_KINDS)
    for (let i = 1; i < results.length; i++) {
      const big = results[i];
      const small = results[i - 1];
      const m = (r) => (r.matches[name] === undefined ? '' : r.matches[name].toLocaleString('en'));
      rows.push(
        row(`${id}${KIND_ROWS[rows.length]}`, `${name}: p50 at ${k(big.size)} vs ${k(small.size)}`, {
          pm: big.p50[name],
          base: small.p50[name],
          unit: 'ms',
          ratio: big.p50[name] / small.p50[name],
          target: { op: '<=', value: 3 },
          note: `p50 of ${SIZES.scaleRequests} requests, one keep-alive connection${
            big.matches[name] === undefined ? '' : `; the first request's total ${m(small)} -> ${m(big)}`
          }; seeded ${seeded}`,
        }),
      );
    }
  // The p50s side by side, as issue 12 tabulates them, with each list's total at each size.
  const head = ['request', ...results.map((r) => `p50 ${k(r.size)}`), 'totals'];
  const lines = SCALE_KINDS.map(([name]) => [
    name,
    ...results.map((r) => fmt(r.p50[name], 'ms')),
    results[0].matches[name] === undefined ? '' : results.map((r) => r.matches[name].toLocaleString('en')).join(' / '),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const text = [head, widths.map((w) => '-'.repeat(w)), ...lines]
    .map((cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '))
    .join('\n');
  say(`\n${text}\n(seeded ${seeded})\n`);
  return [...rows, ...extra];
}

/** Figure 8: figure 7 on PostgreSQL (`pm serve --database`), a database per size on one private cluster. */
export async function figure8() {
  const cluster = await startCluster();
  try {
    return await scaleFigure('8', async (size) => {
      const home = tmpDir('home');
      const url = cluster.url(`pm_scale_${size}`);
      const { default: pg } = await import('pg');
      const admin = new pg.Client({ connectionString: cluster.url('postgres') });
      await admin.connect();
      await admin.query(`CREATE DATABASE pm_scale_${size}`);
      await admin.end();
      const env = cleanEnv(home, { PM_DATABASE_URL: url });
      // The first start migrates the database and creates its account; then its token and records.
      const first = await startListening('pm serve --database', NODE, [PM, 'serve', '--port', '0'], env);
      await first.stop();
      const made = mustSucceed(
        'pm serve tokens create',
        await runTimed(NODE, [PM, 'serve', 'tokens', 'create', '--name', 'bench'], { env, stdout: 'capture' }),
      );
      const token = made.stdout.trim();
      await seedPostgres(url, size);
      const server = {
        ...(await startListening('pm serve --database', NODE, [PM, 'serve', '--port', '0'], env)),
        token,
      };
      return {
        server,
        done: async () => {
          await server.stop();
          removeDir(home);
        },
      };
    });
  } finally {
    cluster.destroy();
  }
}
