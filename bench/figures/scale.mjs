/**
 * Figures 7 and 8: pm serve at 10k, 100k and 1M properties of one account beside 1,000 of
 * another, on SQLite and on PostgreSQL: each request kind's p50 for the one against the other,
 * and, for the lists that count their matches, against the same count and page written by hand.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseline, DIST, NODE, PM } from '../lib/env.mjs';
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
import { interleave, median, progress, row, say } from '../lib/stats.mjs';

/** The p50 and p99 (ms) of `n` requests made one after another on one keep-alive connection. */
export async function timeRequests(n, next) {
  const ms = await timeMs(n, next);
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: median(ms), p99: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] };
}

/** The times (ms) of `n` requests made one after another on one keep-alive connection. */
export async function timeMs(n, next) {
  const ms = [];
  for (let i = 0; i < n; i++) {
    const { url, token } = next(i);
    const t = process.hrtime.bigint();
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return ms;
}

/** The seeds are a second apart from 2020-01-01 on (bench/lib/seed.mjs, postgres.mjs): a range over two fifths of them. */
const seededRange = (field) => (n, i) => {
  const at = (k) => new Date(SEEDED_FROM + Math.floor(k) * 1000).toISOString();
  const from = n * (0.1 + 0.05 * (i % 7));
  return `/properties?per_page=10&${field}=${encodeURIComponent(`${at(from)}/${at(from + n * 0.4)}`)}`;
};

/**
 * The request kinds of figures 7 and 8, each varying its values and pages between requests: its
 * row letter, its name, its path for an account of `n` records, whether its total is counted
 * over its matches, or its page by its offset (those are timed against the lists baseline too: the
 * same count and page written by hand; their cost may grow with the matches or the offset), and
 * whether pm is held to 2x of that baseline: the fuzzy filters, common and rare. The others'
 * ratios are printed, not held: on a small table they are mostly what every request costs pm
 * (its token, its checks, a reader thread) beside a bare count and page.
 */
export const SCALE_KINDS = [
  ['a', 'first page', (_n, i) => `/properties?per_page=${10 + (i % 3)}`, false],
  [
    'b',
    'a page half-way through',
    (n, i) => `/properties?per_page=10&page=${Math.floor(n / 20) + (i % 7)}`,
    true,
    false,
  ],
  ['c', '?bedrooms=N (1 in 6)', (_n, i) => `/properties?per_page=10&bedrooms=${i % 6}`, true, false],
  [
    'd',
    '?city= (fuzzy, 1 in 10)',
    (_n, i) => `/properties?per_page=10&city=${['leeds', 'york', 'hull', 'ripon'][i % 4]}`,
    true,
    true,
  ],
  [
    'e',
    '?address= (fuzzy, rare)',
    (_n, i) => `/properties?per_page=10&address=${encodeURIComponent(`${290 + (i % 9)} station`)}`,
    true,
    true,
  ],
  ['f', '?postcode= (fuzzy)', (_n, i) => `/properties?per_page=10&postcode=ls1${1 + (i % 9)}`, true, true],
  ['g', 'GET /properties/{uuid}', (_n, i, uuids) => `/properties/${uuids[i % uuids.length]}`, false],
  ['h', '?created_at= (range, 2 in 5)', seededRange('created_at'), true, false],
  ['i', '?updated_at= (range, 2 in 5)', seededRange('updated_at'), true, false],
];

/** The properties of the other account, beside the large one in the same store. */
const SMALL = 1_000;

/** The first seeded record's creation time (bench/lib/seed.mjs, postgres.mjs); the next one a second later. */
const SEEDED_FROM = Date.parse('2020-01-01T00:00:00Z');

const sizeName = (n) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);

/** What RSS moves by on its own between two readings of an idle process (MB): figure 7t's floor. */
const RSS_NOISE_MB = 5;

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
  const k = sizeName(size);
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
  const k = sizeName(size);
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
  const k = sizeName(size);
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
      // Over a first half that grew less than RSS_NOISE_MB, the ratio is of that floor: RSS moves
      // by a MB or so on its own (allocator arenas, pages touched once), and a process that grew
      // 0.4 MB and then 0.8 has levelled off, not doubled its growth.
      ratio: (after - half) / Math.max(half - before, RSS_NOISE_MB),
      target: { op: '<=', value: 0.2 },
      note,
    }),
  ];
}

/** The id of an account of a store by its name (`pm serve accounts list`: id, name, ...). */
async function accountId(storeArgs, env, name) {
  const listed = mustSucceed(
    'pm serve accounts list',
    await runTimed(NODE, [PM, 'serve', 'accounts', 'list', ...storeArgs], { env, stdout: 'capture' }),
  );
  const line = listed.stdout.split('\n').find((l) => l.split('\t')[1] === name);
  if (!line) throw new Error(`no account "${name}" in:\n${listed.stdout}`);
  return Number(line.split('\t')[0]);
}

/** Another account in a store, and its token (`pm serve accounts create`). */
async function smallAccount(storeArgs, env) {
  const made = mustSucceed(
    'pm serve accounts create',
    await runTimed(NODE, [PM, 'serve', 'accounts', 'create', '--name', 'small', ...storeArgs], {
      env,
      stdout: 'capture',
    }),
  );
  return { token: made.stdout.trim(), id: await accountId(storeArgs, env, 'small') };
}

/** Figure 7: the store a data file, the baseline bench/baselines/sqlite-lists.mjs. */
export async function figure7() {
  return scaleFigure('7', async (size) => {
    const dir = tmpDir('scale');
    const home = tmpDir('home');
    const data = join(dir, 'pm.db');
    const env = cleanEnv(home);
    await seedProperties(data, size);
    const small = await smallAccount(['--data', data], env);
    await seedProperties(data, SMALL, { accountId: small.id });
    const large = await accountId(['--data', data], env, 'default');
    return {
      small,
      start: async () => {
        const server = await startPmServe(data, home);
        const base = await startListening(
          'the lists baseline',
          NODE,
          [baseline('sqlite-lists.mjs'), data, String(large), DIST],
          env,
        );
        return { server, base, stop: () => Promise.all([server.stop(), base.stop()]) };
      },
      done: () => {
        removeDir(dir);
        removeDir(home);
      },
    };
  });
}

/**
 * The p50s of a request kind for the large account, the small one and (for a counting kind) the
 * baseline, in turns: SIZES.scaleRounds rounds, the order rotating, each side's requests one
 * after another on one keep-alive connection. The large account's first total must be the
 * baseline's: both sides are seen to count the same matches.
 */
async function timeKind(kind, sides) {
  const [, name, path, counting] = kind;
  const active = counting ? sides : sides.slice(0, 2);
  const request = (side) => (i) => ({ url: side.url + path(side.n, i, side.uuids), token: side.token });
  const totals = [];
  for (const side of active) {
    totals.push((await getJson(request(side)(0).url, side.token)).meta?.pagination?.total);
    await timeRequests(3, request(side));
  }
  if (counting && totals[0] !== totals[2])
    throw new Error(`${name}: pm counted ${totals[0]}, the baseline ${totals[2]}`);
  const per = Math.ceil(SIZES.scaleRequests / SIZES.scaleRounds);
  // Each side asks the same values in the same order.
  const ms = active.map(() => []);
  await interleave(
    SIZES.scaleRounds,
    active.map((side, j) => async () => {
      const from = ms[j].length;
      ms[j].push(...(await timeMs(per, (i) => request(side)(from + i))));
      return 0;
    }),
    { warmup: 0 },
  );
  const p50 = ms.map(median);
  return { large: p50[0], small: p50[1], base: p50[2], total: totals[0], smallTotal: totals[1] };
}

/**
 * Figures 7 and 8: for each size, `open(size)` seeds that many properties of one account and
 * SMALL of another into a fresh store; then, SIZES.repeat times, `start()` starts pm serve and the
 * lists baseline on it, each request kind is timed for both accounts (and the baseline), and at
 * 100,000 the memory rows, at the largest size the head-of-line, page-walk and 422 rows.
 */
async function scaleFigure(id, open) {
  const sizes = SIZES.scaleSizes;
  const rows = [];
  for (const size of sizes) {
    const k = sizeName(size);
    const t0 = Date.now();
    progress(`seeding ${size.toLocaleString('en')} properties`);
    const store = await open(size);
    const seeded = `seeded ${k} and ${SMALL.toLocaleString('en')} in ${((Date.now() - t0) / 1000).toFixed(1)} s`;
    try {
      for (let run = 1; run <= SIZES.repeat; run++) {
        const tag = SIZES.repeat > 1 ? `#${run}` : '';
        const { server, base, stop } = await store.start();
        try {
          const sample = async (token, n) =>
            (
              await getJson(`${server.url}/properties?per_page=100&page=${Math.max(1, Math.floor(n / 200))}`, token)
            ).data.map((r) => r.uuid);
          const sides = [
            { url: server.url, token: server.token, n: size, uuids: await sample(server.token, size) },
            { url: server.url, token: store.small.token, n: SMALL, uuids: await sample(store.small.token, SMALL) },
            { url: base.url, token: '', n: size, uuids: [] },
          ];
          const lines = [];
          for (const kind of SCALE_KINDS) {
            const [letter, name, , counting, held] = kind;
            progress(`${k}${tag}: ${name}`);
            const t = await timeKind(kind, sides);
            const totals =
              t.total === undefined
                ? ''
                : `; totals ${t.total.toLocaleString('en')} and ${t.smallTotal.toLocaleString('en')}`;
            const note = `p50 of ${SIZES.scaleRequests} requests a side, ${SIZES.scaleRounds} rounds in turns${totals}; ${seeded}`;
            rows.push(
              row(`${id}${letter}@${k}${tag}`, `${name}: ${k} vs ${SMALL.toLocaleString('en')} (another account)`, {
                pm: t.large,
                base: t.small,
                unit: 'ms',
                ratio: t.large / t.small,
                // A counting kind's cost grows with its matches (or its offset): its target is the baseline's row.
                target: counting ? undefined : { op: '<=', value: 3 },
                note,
              }),
            );
            if (counting)
              rows.push(
                row(`${id}${letter}@${k}/base${tag}`, `${name} at ${k}: pm vs the count and page by hand`, {
                  pm: t.large,
                  base: t.base,
                  unit: 'ms',
                  ratio: t.large / t.base,
                  target: held ? { op: '<=', value: 2 } : undefined,
                  note,
                }),
              );
            lines.push([
              name,
              fmt(t.large, 'ms'),
              fmt(t.small, 'ms'),
              counting ? fmt(t.base, 'ms') : '',
              t.total === undefined ? '' : t.total.toLocaleString('en'),
            ]);
          }
          const head = ['request', `p50 ${k}`, `p50 ${sizeName(SMALL)}`, 'by hand', `total ${k}`];
          const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
          const text = [head, widths.map((w) => '-'.repeat(w)), ...lines]
            .map((cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '))
            .join('\n');
          say(`\n${id}${tag} at ${k} (${seeded}):\n${text}\n`);
          const more = [];
          // The memory rows at 100,000 records (at the largest size when smaller).
          if (size === Math.min(100_000, sizes[sizes.length - 1]))
            more.push(...(await memoryAfterQueries(server, size, id)));
          if (size === sizes[sizes.length - 1]) {
            more.push(await pageWalk(server, size, id));
            more.push(...(await headOfLine(server, size, id)));
            more.push(await unknownKeys(server, id));
          }
          rows.push(...more.map((r) => ({ ...r, id: `${r.id}${tag}` })));
        } finally {
          await stop();
        }
      }
    } finally {
      await store.done();
    }
  }
  return rows;
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
      const large = await accountId([], env, 'default');
      await seedPostgres(url, size, large);
      const small = await smallAccount([], env);
      await seedPostgres(url, SMALL, small.id);
      return {
        small,
        start: async () => {
          const server = {
            ...(await startListening('pm serve --database', NODE, [PM, 'serve', '--port', '0'], env)),
            token,
          };
          const base = await startListening(
            'the lists baseline',
            NODE,
            [baseline('pg-lists.mjs'), url, String(large), DIST],
            env,
          );
          return { server, base, stop: () => Promise.all([server.stop(), base.stop()]) };
        },
        done: () => removeDir(home),
      };
    });
  } finally {
    cluster.destroy();
  }
}
