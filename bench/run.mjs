#!/usr/bin/env node
// `npm run bench`: pm's speed as ratios against baselines timed in the same run (issue 6).
//
//   npm run bench                     every figure (a few minutes on 2 cores)
//   npm run bench -- --quick          fewer rounds and smaller sizes: a smoke check
//   npm run bench -- --only 1,4       selected figures (1-6)
//   npm run bench -- --check          exit 1 when a target is missed
//
// Each figure times pm and its baseline in turns (A B, B A, A B, ...: the order alternates each
// round so that neither side always runs first), and compares medians. It uses the BUILT CLI
// (bin/pm -> dist/): run `npm run build` first. See bench/README.md for what each figure measures.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import {
  chownSync,
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BENCH = join(ROOT, 'bench');
const PM = join(ROOT, 'bin', 'pm');
const DIST = join(ROOT, 'dist');
const NODE = process.execPath;
const TIME = '/usr/bin/time';
const baseline = (name) => join(BENCH, 'baselines', name);

// ------------------------------------------------------------------------------------ options

const USAGE = `usage: npm run bench -- [--quick] [--only N[,M...]] [--check]

  --quick      fewer rounds and smaller sizes (a smoke check, not figures to quote)
  --only LIST  run only these figures (1-9, or scale for 7, pg-scale for 8, feed for 9), e.g. --only 1,4
  --check      exit 1 when a figure misses its target
  --help       this text

Figures: 1 start-up (--version, --help), 2 list against pm serve, 3 list, get and create on the
embedded default, 4 bulk create, 5 list --all (time and peak RSS), 6 server requests/second (autocannon),
7 scale (not in the default run: --only scale): requests at 1k, 100k and 1M properties,
8 the same on PostgreSQL (--only pg-scale; needs initdb, pg_ctl and postgres on PATH),
9 calendar feed polls/second: 304s and a full feed of 1,000 reminders vs GET /reminders?per_page=100,
10 search isolation (not in the default run: --only isolation): a search's cost while another
  account holds 200,000 matches, against one nobody matches.
11 files (not in the default run: --only files; PostgreSQL's half needs initdb on PATH): a 256 MiB
  attachment uploaded and downloaded by pm through pm serve on SQLite and on PostgreSQL, against
  curl and a plain node:http server writing to a file; the peak RSS of pm and of pm serve.`;

function parseArgs(argv) {
  const o = { quick: false, check: false, only: [1, 2, 3, 4, 5, 6, 9] };
  const NAMES = { scale: 7, 'pg-scale': 8, feed: 9, isolation: 10, files: 11 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--check') o.check = true;
    else if (a === '--help' || a === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else if (a === '--only' || a.startsWith('--only=')) {
      const v = a === '--only' ? argv[++i] : a.slice('--only='.length);
      const nums = String(v ?? '')
        .split(',')
        .map((s) => String(NAMES[s.trim()] ?? s.trim()))
        .filter(Boolean);
      if (!nums.length || nums.some((n) => !/^([1-9]|1[01])$/.test(n)))
        usage(`--only takes figure numbers 1-11 (or scale, pg-scale, feed, isolation, files), not "${v ?? ''}"`);
      o.only = [...new Set(nums.map(Number))].sort((a, b) => a - b);
    } else usage(`unknown argument "${a}"`);
  }
  return o;
}

function usage(msg) {
  process.stderr.write(`bench: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

const opts = parseArgs(process.argv.slice(2));
const Q = opts.quick;
const SIZES = {
  startupRounds: Q ? 8 : 30,
  listRounds: Q ? 6 : 20,
  smallProperties: 50,
  bulkRecords: Q ? 1_000 : 10_000,
  bulkRounds: Q ? 2 : 5,
  bulkConcurrency: 8,
  pageRecords: Q ? 10_000 : 100_000,
  pageRounds: Q ? 2 : 5,
  perPage: 100,
  serverProperties: 3_000,
  cannonSeconds: Q ? 2 : 5,
  cannonWarmupSeconds: Q ? 0.5 : 1,
  cannonRounds: Q ? 1 : 3,
  cannonConnections: 10,
  logSeconds: Q ? 1 : 2,
  logRounds: Q ? 1 : 8,
  scaleSizes: Q ? [1_000, 10_000, 100_000] : [1_000, 100_000, 1_000_000],
  scaleRequests: Q ? 15 : 40,
  isolationMatches: Q ? 20_000 : 200_000,
  isolationRounds: Q ? 5 : 15,
  isolationRequests: 10,
  fileMiB: Q ? 32 : 256,
  fileRounds: Q ? 1 : 3,
  quick: Q,
};

// ------------------------------------------------------------------ children and temp dirs

/** Every child still running and every temp dir: removed on any exit, even on failure. */
const children = new Set();
const tmpDirs = new Set();

function killGroup(child, signal) {
  try {
    // Each child leads a process group of its own (detached), so that a wrapper such as
    // /usr/bin/time takes its child with it.
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** How to stop each PostgreSQL cluster still running (figure 8). */
const clusters = new Set();

function cleanupSync() {
  for (const c of children) killGroup(c, 'SIGKILL');
  children.clear();
  for (const stop of clusters)
    try {
      stop();
    } catch {
      // already stopped
    }
  clusters.clear();
  children.clear();
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
  tmpDirs.clear();
}

process.on('exit', cleanupSync);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    process.stderr.write(`\nbench: ${sig}: stopping every child and removing temp files\n`);
    cleanupSync();
    process.exit(130);
  });
}

function tmpDir(label) {
  const d = mkdtempSync(join(os.tmpdir(), `pm-bench-${label}-`));
  tmpDirs.add(d);
  return d;
}

function removeDir(d) {
  rmSync(d, { recursive: true, force: true });
  tmpDirs.delete(d);
}

function spawnTracked(cmd, args, options) {
  const child = spawn(cmd, args, { ...options, detached: true });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/**
 * The environment of every child: only PATH and HOME (an empty temp dir), plus what the figure
 * adds. No NODE_OPTIONS, PM_* or XDG_* from the caller, so a run measures the same thing anywhere.
 */
function cleanEnv(home, extra = {}) {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ...extra };
}

/**
 * Runs a command to its end and times it from spawn to exit (ms). stdout: 'ignore' (/dev/null),
 * 'capture' (kept, for checks), or 'count' (only its newlines counted). With `rss` (a temp dir
 * for its report), /usr/bin/time wraps the command and its peak RSS (MB) is returned.
 */
async function runTimed(cmd, args, { env, stdout = 'ignore', rss, cwd = ROOT } = {}) {
  let rssFile;
  if (rss) {
    rssFile = join(rss, `rss-${randomUUID()}`);
    args = ['-f', '%M', '-o', rssFile, cmd, ...args];
    cmd = TIME;
  }
  const started = process.hrtime.bigint();
  const child = spawnTracked(cmd, args, {
    cwd,
    env,
    stdio: ['ignore', stdout === 'ignore' ? 'ignore' : 'pipe', 'pipe'],
  });
  let ended;
  child.once('exit', () => {
    ended = process.hrtime.bigint();
  });
  const out = [];
  let lines = 0;
  if (stdout === 'capture') child.stdout.on('data', (c) => out.push(c));
  if (stdout === 'count')
    child.stdout.on('data', (c) => {
      for (let i = c.indexOf(10); i !== -1; i = c.indexOf(10, i + 1)) lines++;
    });
  const err = [];
  child.stderr.on('data', (c) => err.push(c));
  const [code, signal] = await once(child, 'close');
  const ms = Number((ended ?? process.hrtime.bigint()) - started) / 1e6;
  let rssMb;
  if (rssFile) {
    try {
      const text = readFileSync(rssFile, 'utf8').trim().split('\n').pop();
      rssMb = Number(text) / 1024;
    } catch {
      rssMb = undefined;
    }
    rmSync(rssFile, { force: true });
  }
  return {
    ms,
    code,
    signal,
    rssMb,
    lines,
    stdout: Buffer.concat(out).toString('utf8'),
    stderr: Buffer.concat(err).toString('utf8'),
  };
}

/** Fails with the command's own words when it did not succeed. */
function mustSucceed(what, r) {
  if (r.code === 0) return r;
  const tail = r.stderr.trim().split('\n').slice(-8).join('\n  ');
  throw new Error(`${what} exited ${r.code ?? r.signal}${tail ? `:\n  ${tail}` : ''}`);
}

/**
 * Starts a server process and waits for its "listening on URL" line on stderr. Returns its URL
 * and a stop() that ends it (SIGTERM, then SIGKILL after 5 s). Its stdout goes to /dev/null, or
 * to `stdout` (a file descriptor).
 */
async function startListening(what, cmd, args, env, stdout = 'ignore') {
  const child = spawnTracked(cmd, args, { cwd: ROOT, env, stdio: ['ignore', stdout, 'pipe'] });
  let log = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start in 20 s:\n${log}`)), 20_000);
    child.stderr.on('data', (c) => {
      log = (log + c.toString('utf8')).slice(-4000);
      const m = /listening on (https?:\/\/\S+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited ${code ?? signal} before listening:\n${log}`));
    });
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    killGroup(child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  return { url, stop, log: () => log, pid: child.pid };
}

/** A process's CPU time so far (user and system, seconds), from /proc. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, the 14th and 15th fields, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * `pm serve --port 0 --data FILE` and `args`, with the token written beside the data file; its log
 * (stdout) to /dev/null, or to the file `log`.
 */
async function startPmServe(dataFile, home, { args = [], log } = {}) {
  const fd = log === undefined ? undefined : openSync(log, 'a');
  const argv = [PM, 'serve', '--port', '0', '--data', dataFile, ...args];
  const s = await startListening('pm serve', NODE, argv, cleanEnv(home), fd).finally(() => {
    if (fd !== undefined) closeSync(fd);
  });
  const token = readFileSync(`${dataFile}.token`, 'utf8').trim();
  return { ...s, token };
}

async function getJson(url, token) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

// ---------------------------------------------------------------------------------- seeding

let storeApi;
/** openStore and friends from the built server, to write test data straight into a data file. */
async function loadStoreApi() {
  if (storeApi) return storeApi;
  const load = (p) => import(pathToFileURL(join(DIST, p)).href);
  const [server, validate, resources] = await Promise.all([
    load('server/index.js'),
    load('core/validate.js'),
    load('resources/index.js'),
  ]);
  storeApi = {
    openStore: server.openStore,
    bootstrap: server.bootstrap,
    validateBody: validate.validateBody,
    resourceByPath: resources.resourceByPath,
  };
  return storeApi;
}

/** A small deterministic random source, so that every run seeds the same records. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CITIES = [
  'Leeds',
  'York',
  'Manchester',
  'Sheffield',
  'Bradford',
  'Hull',
  'Wakefield',
  'Harrogate',
  'Halifax',
  'Ripon',
];
const TYPES = ['house', 'apartment', 'bungalow', 'commercial'];

function propertyBody(i, rnd) {
  return {
    address: `${1 + Math.floor(rnd() * 300)} ${['High', 'Church', 'Station', 'Park', 'Mill'][i % 5]} Street`,
    postcode: `LS${1 + (i % 28)} ${1 + Math.floor(rnd() * 9)}AA`,
    city: CITIES[Math.floor(rnd() * CITIES.length)],
    type: TYPES[Math.floor(rnd() * TYPES.length)],
    bedrooms: Math.floor(rnd() * 6),
    bathrooms: 1 + Math.floor(rnd() * 3),
    has_garage: rnd() < 0.3,
    has_garden: rnd() < 0.6,
  };
}

function reminderBody(i) {
  const day = String(1 + (i % 28)).padStart(2, '0');
  return {
    title: `Renew gas safety certificate ${i + 1}`,
    description: i % 4 ? null : 'Book the engineer and send the certificate to the tenant.',
    due_at: i % 3 ? `2027-01-${day}T09:30:00Z` : `2027-02-${day}`,
  };
}

/**
 * Creates a data file (and its token, as pm serve would) holding `properties` properties and
 * `reminders` reminders. Properties and the first reminders go through the repository; past
 * 1,000 reminders, those are copied in SQL with new uuids and later creation times (fast).
 */
async function seed(file, { properties = 0, reminders = 0 } = {}) {
  const { openStore, bootstrap, validateBody, resourceByPath } = await loadStoreApi();
  let tick = 0;
  const start = Date.parse('2026-01-01T00:00:00Z');
  const store = openStore(file, () => start + tick);
  try {
    bootstrap(store);
    const accountId = store.firstUser().accountId;
    const db = store.db;
    db.transaction(() => {
      const rp = resourceByPath('properties');
      const rnd = prng(42);
      for (let i = 0; i < properties; i++) {
        tick = i * 1000;
        store.create(accountId, rp, validateBody(rp, propertyBody(i, rnd), 'create'));
      }
      const rr = resourceByPath('reminders');
      const TEMPLATE = 1000;
      const made = Math.min(reminders, TEMPLATE);
      for (let i = 0; i < made; i++) {
        tick = i;
        store.create(accountId, rr, validateBody(rr, reminderBody(i), 'create'));
      }
      if (reminders > made) {
        // Copies of the first TEMPLATE reminders, block after block, each with a new uuid and
        // created_at TEMPLATE ms after its original's, so that the list order is the copy order.
        db.function('bench_uuid', () => randomUUID());
        const skip = new Set(['id', 'uuid', 'created_at', 'updated_at']);
        const cols = db
          .pragma(`table_info(${rr.table})`)
          .map((c) => c.name)
          .filter((c) => !skip.has(c));
        const blocks = Math.ceil(reminders / TEMPLATE) - 1;
        db.prepare(
          `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ?)
           INSERT INTO ${rr.table} (uuid, created_at, updated_at, ${cols.map((c) => `"${c}"`).join(', ')})
           SELECT bench_uuid(), t.created_at + seq.n * ?, t.updated_at + seq.n * ?, ${cols.map((c) => `t."${c}"`).join(', ')}
           FROM seq CROSS JOIN (SELECT * FROM ${rr.table} WHERE account_id = ? ORDER BY id LIMIT ?) t
           ORDER BY seq.n, t.id LIMIT ?`,
        ).run(blocks, TEMPLATE, TEMPLATE, accountId, TEMPLATE, reminders - made);
      }
    })();
  } finally {
    store.close();
  }
  return readFileSync(`${file}.token`, 'utf8').trim();
}

// ------------------------------------------------------------------------------- statistics

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Runs each side once per round, the order rotating every round (A B, B A, ... for two sides),
 * after `warmup` untimed rounds. Each side returns a number; returns the samples of each.
 */
async function interleave(rounds, sides, { warmup = 1, label = '' } = {}) {
  const samples = sides.map(() => []);
  for (let r = 0; r < warmup + rounds; r++) {
    const order = sides.map((_, i) => i);
    if (r % 2) order.reverse();
    for (const i of order) {
      const v = await sides[i]();
      if (r >= warmup) samples[i].push(v);
    }
    if (label && r >= warmup) progress(`${label}: round ${r - warmup + 1}/${rounds}`);
  }
  return samples;
}

let progressShown = false;
function progress(text) {
  if (!process.stderr.isTTY) return;
  process.stderr.write(`\r\x1b[K  ${text}`);
  progressShown = true;
}
function say(text) {
  if (progressShown) process.stderr.write('\r\x1b[K');
  progressShown = false;
  process.stderr.write(`${text}\n`);
}

// ---------------------------------------------------------------------------------- figures

/** A row of the table: pm's value beside its baseline's, and the ratio against the target. */
function row(id, figure, { pm, base, unit, ratio, target, samples, note }) {
  let pass;
  if (target) {
    const v = target.of === 'pm' ? pm : ratio;
    pass = target.op === '<=' ? v <= target.value : v >= target.value;
  }
  return { id, figure, unit, pm, baseline: base, ratio, target: target ?? null, pass: pass ?? null, samples, note };
}

const timeRatio = (pmMs, baseMs) => pmMs / baseMs;

async function figure1() {
  const home = tmpDir('home');
  const env = cleanEnv(home);
  const version = mustSucceed('pm --version', await runTimed(NODE, [PM, '--version'], { env, stdout: 'capture' }));
  if (!/\d+\.\d+\.\d+/.test(version.stdout)) throw new Error(`pm --version printed ${JSON.stringify(version.stdout)}`);
  mustSucceed('pm --help', await runTimed(NODE, [PM, '--help'], { env }));
  const run = (args) => async () => (await runTimed(NODE, args, { env })).ms;
  const [node, ver, help] = await interleave(
    SIZES.startupRounds,
    [run(['-e', '0']), run([PM, '--version']), run([PM, '--help'])],
    { label: 'start-up' },
  );
  const n = median(node);
  const target = { op: '<=', value: 1.2 };
  return [
    row('1a', 'pm --version vs node -e 0', {
      pm: median(ver),
      base: n,
      unit: 'ms',
      ratio: timeRatio(median(ver), n),
      target,
      samples: { pm: ver, baseline: node },
    }),
    row('1b', 'pm --help vs node -e 0', {
      pm: median(help),
      base: n,
      unit: 'ms',
      ratio: timeRatio(median(help), n),
      target,
      samples: { pm: help, baseline: node },
    }),
  ];
}

async function figure2() {
  const dir = tmpDir('serve');
  const home = tmpDir('home');
  const data = join(dir, 'pm.db');
  await seed(data, { properties: SIZES.smallProperties });
  const server = await startPmServe(data, home);
  try {
    const env = cleanEnv(home, { PM_BASE_URL: server.url, PM_TOKEN: server.token });
    const pmArgs = [PM, 'properties', 'list', '--json'];
    const rawArgs = [baseline('http-get.mjs')];
    const a = mustSucceed('pm properties list --json', await runTimed(NODE, pmArgs, { env, stdout: 'capture' }));
    const b = mustSucceed('http-get.mjs', await runTimed(NODE, rawArgs, { env, stdout: 'capture' }));
    const listed = JSON.parse(a.stdout);
    const raw = JSON.parse(b.stdout);
    if (!Array.isArray(listed) || listed.length !== raw.data.length || listed.length === 0)
      throw new Error(`pm listed ${listed.length} properties, the raw GET got ${raw.data?.length}`);
    const run = (args) => async () => mustSucceed(args[0], await runTimed(NODE, args, { env })).ms;
    const [pm, base] = await interleave(SIZES.listRounds, [run(pmArgs), run(rawArgs)], { label: 'list vs serve' });
    return [
      row('2', 'pm properties list --json (pm serve) vs node:http GET', {
        pm: median(pm),
        base: median(base),
        unit: 'ms',
        ratio: timeRatio(median(pm), median(base)),
        target: { op: '<=', value: 1.6 },
        samples: { pm, baseline: base },
        note: `${listed.length} records printed (server default page), ${SIZES.smallProperties} in the file`,
      }),
    ];
  } finally {
    await server.stop();
  }
}

/** A home whose embedded default's data file ($XDG_DATA_HOME/pm/pm.db) is seeded, with its token beside it. */
async function embeddedEnv() {
  const home = tmpDir('home');
  const xdg = tmpDir('xdg-data');
  mkdirSync(join(xdg, 'pm'), { recursive: true });
  await seed(join(xdg, 'pm', 'pm.db'), { properties: SIZES.smallProperties });
  return cleanEnv(home, { XDG_DATA_HOME: xdg });
}

/** A row of figure 3: a pm command on the embedded default, timed in turns with `node -e 0`. */
async function embeddedRow(id, what, pmArgs, env, note) {
  const run = (args, name) => async () => mustSucceed(name, await runTimed(NODE, args, { env })).ms;
  const [pm, node] = await interleave(SIZES.listRounds, [run(pmArgs, what), run(['-e', '0'], 'node -e 0')], {
    label: what,
  });
  return row(id, `${what} (embedded default) vs node -e 0`, {
    pm: median(pm),
    base: median(node),
    unit: 'ms',
    ratio: timeRatio(median(pm), median(node)),
    target: { op: '<=', value: 2 },
    samples: { pm, baseline: node },
    note,
  });
}

async function figure3() {
  const env = await embeddedEnv();
  const pmArgs = [PM, 'properties', 'list', '--json'];
  const first = mustSucceed(
    'pm properties list --json (embedded)',
    await runTimed(NODE, pmArgs, { env, stdout: 'capture' }),
  );
  const listed = JSON.parse(first.stdout);
  if (!Array.isArray(listed) || listed.length === 0)
    throw new Error(
      `the embedded default listed ${JSON.stringify(first.stdout.slice(0, 200))}, not the seeded properties`,
    );
  return [
    await embeddedRow(
      '3',
      'pm properties list --json',
      pmArgs,
      env,
      `${listed.length} records printed; data file pre-seeded, so no first-run bootstrap`,
    ),
  ];
}

/** Figure 3b: one record by uuid on the embedded default. */
async function figure3Get() {
  const env = await embeddedEnv();
  const uuid = mustSucceed(
    'pm properties list -q (embedded)',
    await runTimed(NODE, [PM, 'properties', 'list', '-q'], { env, stdout: 'capture' }),
  ).stdout.split('\n')[0];
  const pmArgs = [PM, 'properties', 'get', uuid, '--json'];
  const got = JSON.parse(
    mustSucceed('pm properties get', await runTimed(NODE, pmArgs, { env, stdout: 'capture' })).stdout,
  );
  if (got?.uuid !== uuid) throw new Error(`pm properties get ${uuid} printed another record: ${JSON.stringify(got)}`);
  return [await embeddedRow('3b', 'pm properties get UUID --json', pmArgs, env, 'a property of the seeded file')];
}

/** Figure 3c: a write on the embedded default (a reminder with an ISO due date; each run adds one). */
async function figure3Create() {
  const env = await embeddedEnv();
  const pmArgs = [PM, 'reminders', 'create', '--title', 'Check the smoke alarms', '--due-at', '2027-03-01', '--json'];
  const made = JSON.parse(
    mustSucceed('pm reminders create', await runTimed(NODE, pmArgs, { env, stdout: 'capture' })).stdout,
  );
  if (made?.title !== 'Check the smoke alarms') throw new Error(`pm reminders create printed ${JSON.stringify(made)}`);
  return [await embeddedRow('3c', 'pm reminders create --json', pmArgs, env, 'a reminder written on each run')];
}

async function figure4() {
  const dir = tmpDir('bulk');
  const home = tmpDir('home');
  const n = SIZES.bulkRecords;
  const c = String(SIZES.bulkConcurrency);
  const file = join(dir, 'reminders.ndjson');
  let text = '';
  for (let i = 0; i < n; i++) text += `${JSON.stringify(reminderBody(i))}\n`;
  writeFileSync(file, text);
  let run = 0;
  /** One side: a fresh data file and server, the client timed, the records counted after. */
  const side = (name, argsOf) => async () => {
    const db = `${name}-${++run}.db`;
    const data = join(dir, db);
    const server = await startPmServe(data, home);
    try {
      const env = cleanEnv(home, { PM_BASE_URL: server.url, PM_TOKEN: server.token });
      const r = mustSucceed(`${name} bulk create`, await runTimed(NODE, argsOf(), { env }));
      const got = await getJson(`${server.url}/reminders?per_page=1`, server.token);
      if (got.meta.pagination.total !== n)
        throw new Error(`${name} bulk create left ${got.meta.pagination.total} reminders, not ${n}`);
      return n / (r.ms / 1000);
    } finally {
      await server.stop();
      for (const f of readdirSync(dir)) if (f.startsWith(db)) rmSync(join(dir, f), { force: true });
    }
  };
  const [pm, raw] = await interleave(
    SIZES.bulkRounds,
    [
      side('pm', () => [PM, 'reminders', 'create', '--from-file', file, '--concurrency', c]),
      side('raw', () => [baseline('bulk-undici.mjs'), file, c]),
    ],
    { warmup: 0, label: 'bulk create' },
  );
  return [
    row('4', `bulk create ${n.toLocaleString('en')} reminders, concurrency ${c}: pm vs undici`, {
      pm: median(pm),
      base: median(raw),
      unit: 'rec/s',
      ratio: median(pm) / median(raw),
      target: { op: '>=', value: 0.9 },
      samples: { pm, baseline: raw },
      note: 'throughput, each side on a fresh data file and server; process start-up included',
    }),
  ];
}

async function figure5() {
  const dir = tmpDir('page');
  const home = tmpDir('home');
  const n = SIZES.pageRecords;
  const data = join(dir, 'pm.db');
  await seed(data, { reminders: n });
  const server = await startPmServe(data, home);
  try {
    const env = cleanEnv(home, { PM_BASE_URL: server.url, PM_TOKEN: server.token });
    const perPage = String(SIZES.perPage);
    const pmArgs = [PM, 'reminders', 'list', '--all', '-o', 'ndjson', '--per-page', perPage];
    const rawArgs = [baseline('page-undici.mjs'), perPage];
    const hasTime = existsSync(TIME);
    // The warm-up round checks that both sides write one line for each record.
    let warm = true;
    const side = (what, args) => async () => {
      const r = mustSucceed(
        what,
        await runTimed(NODE, args, { env, rss: hasTime ? dir : undefined, stdout: warm ? 'count' : 'ignore' }),
      );
      if (warm && r.lines !== n) throw new Error(`${what} wrote ${r.lines} lines, not ${n}`);
      return r;
    };
    const sides = [side('pm reminders list --all', pmArgs), side('page-undici.mjs', rawArgs)];
    await interleave(0, sides, { warmup: 1 });
    warm = false;
    const [pm, raw] = await interleave(SIZES.pageRounds, sides, { warmup: 0, label: 'list --all' });
    const pmMs = pm.map((r) => r.ms);
    const rawMs = raw.map((r) => r.ms);
    const rows = [
      row('5a', `pm reminders list --all -o ndjson, ${n.toLocaleString('en')} records vs undici paging`, {
        pm: median(pmMs),
        base: median(rawMs),
        unit: 'ms',
        ratio: timeRatio(median(pmMs), median(rawMs)),
        target: { op: '<=', value: 1.2 },
        samples: { pm: pmMs, baseline: rawMs },
        note: `--per-page ${perPage} on both sides; stdout to /dev/null`,
      }),
    ];
    if (hasTime) {
      const pmRss = Math.max(...pm.map((r) => r.rssMb));
      const rawRss = Math.max(...raw.map((r) => r.rssMb));
      rows.push(
        row('5b', 'peak RSS of that pm process (the undici pager beside it)', {
          pm: pmRss,
          base: rawRss,
          unit: 'MB',
          ratio: pmRss / rawRss,
          target: { op: '<=', value: 120, of: 'pm' },
          samples: { pm: pm.map((r) => r.rssMb), baseline: raw.map((r) => r.rssMb) },
          note: 'highest of the timed runs, from /usr/bin/time -f %M',
        }),
      );
    } else say(`  ${TIME} not found: peak RSS (5b) not measured`);
    return rows;
  } finally {
    await server.stop();
  }
}

async function figure6() {
  const { default: autocannon } = await import('autocannon');
  const dir = tmpDir('cannon');
  const home = tmpDir('home');
  const data = join(dir, 'pm.db');
  await seed(data, { properties: SIZES.serverProperties });
  // Each server on a copy of its own; each log to a file, as a service manager's would be kept.
  const copy = (name) => {
    copyFileSync(data, join(dir, name));
    copyFileSync(`${data}.token`, join(dir, `${name}.token`));
    return join(dir, name);
  };
  const quietData = copy('quiet.db');
  const jsonData = copy('json.db');
  // The default: a text line per request.
  const server = await startPmServe(data, home, { log: join(dir, 'text.log') });
  let bare;
  let peer;
  let quiet;
  let logged;
  try {
    // The log off (server errors only), and JSON lines.
    quiet = await startPmServe(quietData, home, { args: ['--log-level', 'error'], log: join(dir, 'quiet.log') });
    logged = await startPmServe(jsonData, home, { args: ['--log-format', 'json'], log: join(dir, 'json.log') });
    bare = await startListening(
      'node:http + better-sqlite3 server',
      NODE,
      [baseline('sqlite-http.mjs'), data],
      cleanEnv(home),
    );
    const auth = { authorization: `Bearer ${server.token}`, accept: 'application/json' };
    const listPath = '/properties?per_page=10&city=leeds&bedrooms=3';
    const page = await getJson(`${server.url}${listPath}`, server.token);
    if (page.meta.pagination.total <= 10)
      throw new Error(`the filtered list matched ${page.meta.pagination.total} properties; expected more than a page`);
    const post = (s) => ({
      url: `${s.url}/reminders`,
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Check the smoke alarms', due_at: '2027-03-01T10:00:00Z' }),
    });
    const targets = {
      bare: { url: `${bare.url}${listPath}`, method: 'GET' },
      list: { url: `${server.url}${listPath}`, method: 'GET', headers: auth },
      post: post(server),
      listQuiet: { url: `${quiet.url}${listPath}`, method: 'GET', headers: auth },
      postQuiet: post(quiet),
      listJson: { url: `${logged.url}${listPath}`, method: 'GET', headers: auth },
    };
    const cannon = (name, duration, cpu) => async () => {
      const t = targets[name];
      const before = cpu && cpuSeconds(cpu);
      const result = await autocannon({ ...t, connections: SIZES.cannonConnections, duration });
      const bad = result.non2xx + result.errors + result.timeouts;
      if (bad)
        throw new Error(
          `autocannon ${name}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
        );
      if (!cpu) return result.requests.average;
      // The server's CPU time a request (µs): what other work on the machine changes least.
      return { rps: result.requests.average, cpuUs: ((cpuSeconds(cpu) - before) / result.requests.total) * 1e6 };
    };
    // The peer: json-server over the same properties as a JSON file (city_like is its substring match).
    const db = join(dir, 'db.json');
    const every = [];
    for (let p = 1; ; p++) {
      const got = await getJson(`${server.url}/properties?per_page=100&page=${p}`, server.token);
      every.push(...got.data);
      if (p >= got.meta.pagination.total_pages) break;
    }
    writeFileSync(db, JSON.stringify({ properties: every.map((r, i) => ({ id: i + 1, ...r })) }));
    peer = await startListening('json-server', NODE, [baseline('json-server.mjs'), db], cleanEnv(home));
    targets.peer = { url: `${peer.url}/properties?city_like=leeds&bedrooms=3&_page=1&_limit=10`, method: 'GET' };
    const names = ['bare', 'list', 'post', 'peer'];
    const logSides = ['list', 'listQuiet', 'listJson', 'post', 'postQuiet'];
    for (const name of [...names, ...logSides.slice(1)]) await cannon(name, SIZES.cannonWarmupSeconds)();
    const [b, l, p, j] = await interleave(
      SIZES.cannonRounds,
      names.map((name) => cannon(name, SIZES.cannonSeconds)),
      { warmup: 0, label: 'autocannon' },
    );
    // The log's cost is a few per cent, less than the drift of a loaded machine over a minute:
    // short runs, the servers with and without a log one after the other, many rounds.
    const pids = {
      list: server.pid,
      listQuiet: quiet.pid,
      listJson: logged.pid,
      post: server.pid,
      postQuiet: quiet.pid,
    };
    const [ll, lq, lj, pl, pq] = await interleave(
      SIZES.logRounds,
      logSides.map((name) => cannon(name, SIZES.logSeconds, pids[name])),
      // Two rounds first, not counted: the servers compared have had the same warm-up.
      { warmup: 2, label: 'autocannon, log on and off' },
    );
    const note = `${SIZES.cannonConnections} connections, ${SIZES.cannonSeconds} s a run, median of ${SIZES.cannonRounds}`;
    /**
     * A log's cost: requests/second with it beside those without, and the difference in per
     * cent, from the median of the ratios of runs side by side.
     */
    const logCost = (id, figure, on, off) => {
      const rps = (xs) => xs.map((x) => x.rps);
      const ratio = median(on.map((x, i) => x.rps / off[i].rps));
      const cpuOn = median(on.map((x) => x.cpuUs));
      const cpuOff = median(off.map((x) => x.cpuUs));
      return row(id, figure, {
        pm: median(rps(on)),
        base: median(rps(off)),
        unit: 'req/s',
        ratio,
        target: { op: '>=', value: 0.95 },
        samples: {
          pm: rps(on),
          baseline: rps(off),
          cpuUsOn: on.map((x) => x.cpuUs),
          cpuUsOff: off.map((x) => x.cpuUs),
        },
        note: `${SIZES.cannonConnections} connections, ${SIZES.logSeconds} s a run, ${SIZES.logRounds} rounds, the median of each round's ratio: the log (written to a file) costs ${((1 - ratio) * 100).toFixed(1)}% of requests/second; the server's CPU a request ${cpuOn.toFixed(0)} µs with it, ${cpuOff.toFixed(0)} µs without (${(((cpuOn - cpuOff) / cpuOff) * 100).toFixed(1)}%)`,
      });
    };
    return [
      row('6a', `server GET ${listPath} vs the same page on node:http + better-sqlite3`, {
        pm: median(l),
        base: median(b),
        unit: 'req/s',
        ratio: median(l) / median(b),
        target: { op: '>=', value: 0.9 },
        samples: { pm: l, baseline: b },
        note: `${note}; ${SIZES.serverProperties.toLocaleString('en')} properties, ${page.meta.pagination.total} match`,
      }),
      row('6c', `server GET ${listPath} vs json-server 0.17 (city_like, _page, _limit)`, {
        pm: median(l),
        base: median(j),
        unit: 'req/s',
        ratio: median(l) / median(j),
        target: { op: '>=', value: 1 },
        samples: { pm: l, baseline: j },
        note: `${note}; the same ${every.length.toLocaleString('en')} properties as a JSON file`,
      }),
      row('6b', 'server POST /reminders vs the same baseline (a read)', {
        pm: median(p),
        base: median(b),
        unit: 'req/s',
        ratio: median(p) / median(b),
        samples: { pm: p, baseline: b },
        note,
      }),
      logCost('6d', `server GET ${listPath}, access log on (text, the default) vs off (--log-level error)`, ll, lq),
      logCost('6e', `server GET ${listPath}, access log as JSON lines vs off`, lj, lq),
      logCost('6f', 'server POST /reminders, access log on (text) vs off', pl, pq),
    ];
  } finally {
    await Promise.all([server.stop(), bare?.stop(), peer?.stop(), quiet?.stop(), logged?.stop()]);
  }
}

/**
 * Properties written straight into a data file's table with one prepared statement in one
 * transaction (the store's own columns, fold columns included, and whatever its triggers keep):
 * a million in seconds. Deterministic: the same records every run.
 */
async function seedProperties(file, count) {
  const { openStore, bootstrap } = await loadStoreApi();
  const store = openStore(file);
  try {
    bootstrap(store);
    const accountId = store.firstUser().accountId;
    const db = store.db;
    const cols = db
      .pragma('table_info(properties)')
      .map((c) => c.name)
      .filter((c) => c !== 'id');
    const insert = db.prepare(
      `INSERT INTO properties (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`,
    );
    const rnd = prng(7);
    const start = Date.parse('2020-01-01T00:00:00Z');
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const b = propertyBody(i, rnd);
        const row = Object.fromEntries(cols.map((c) => [c, null]));
        Object.assign(row, {
          account_id: accountId,
          uuid: randomUUID(),
          created_at: start + i * 1000,
          updated_at: start + i * 1000,
          address: b.address,
          city: b.city,
          postcode: b.postcode,
          type: b.type,
          bedrooms: b.bedrooms,
          bathrooms: b.bathrooms,
          has_garage: b.has_garage ? 1 : 0,
          has_garden: b.has_garden ? 1 : 0,
          has_parking: 0,
        });
        for (const c of cols)
          if (c.endsWith('_fold')) {
            const v = row[c.slice(0, -'_fold'.length)];
            row[c] =
              typeof v === 'string'
                ? c === 'postcode_fold'
                  ? v.toLowerCase().replace(/\s+/g, '')
                  : v.toLowerCase()
                : null;
          }
        insert.run(row);
      }
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    store.close();
  }
}

/** The p50 and p99 (ms) of `n` requests made one after another on one keep-alive connection. */
async function timeRequests(n, next) {
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
];

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

/** RSS of pm serve after 20,000 list queries, each a filter shape or value not seen before. */
async function memoryAfterQueries(server, size, id) {
  const before = rssOf(server.pid);
  const fields = ['city', 'address', 'postcode', 'type', 'county', 'address2'];
  const total = SIZES.quick ? 4_000 : 20_000;
  for (let i = 0; i < total; i++) {
    // A different order of filters, and IN lists of different lengths, each time.
    const q = new URLSearchParams();
    const a = fields[i % fields.length];
    const b = fields[(i + 1 + (i % 5)) % fields.length];
    q.set(a, `x${i}`);
    if (b !== a) q.set(b, `y${i % 97}`);
    for (let j = 0; j <= i % 12; j++) q.append('bedrooms[]', String(j));
    q.set('per_page', String(1 + (i % 100)));
    const res = await fetch(`${server.url}/properties?${q}`, { headers: { authorization: `Bearer ${server.token}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`memory figure: ${res.status} for ?${q}`);
    if (i % 1000 === 0) progress(`memory: ${i}/${total} queries`);
  }
  const after = rssOf(server.pid);
  const k = size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`;
  return row(`${id}s`, `pm serve RSS after ${total.toLocaleString('en')} distinct list queries (${k})`, {
    pm: after - before,
    base: before,
    unit: 'MB',
    ratio: after / before,
    target: { of: 'pm', op: '<=', value: 100 },
    note: `grew from ${before.toFixed(0)} MB to ${after.toFixed(0)} MB`,
  });
}

async function figure7() {
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
      if (size === sizes[sizes.length - 1]) {
        extra.push(await pageWalk(server, size, id));
        extra.push(...(await headOfLine(server, size, id)));
        extra.push(await memoryAfterQueries(server, size, id));
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
        row(`${id}${String.fromCharCode(96 + rows.length + 1)}`, `${name}: p50 at ${k(big.size)} vs ${k(small.size)}`, {
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

/**
 * A private PostgreSQL cluster for figure 8, started as the tests start theirs: initdb into a temp
 * dir, the server on a free loopback port with its socket in that dir (as the postgres system user
 * when run as root, which PostgreSQL refuses), stopped and removed at the end or on Ctrl-C.
 */
async function startCluster() {
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
 * random()), then ANALYZE: a million in about a minute with the trigram indexes kept.
 */
async function seedPostgres(url, count) {
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('SELECT setseed(0.42)');
    const list = (xs) => `ARRAY[${xs.map((x) => `'${x}'`).join(', ')}]`;
    await c.query(
      `INSERT INTO properties (account_id, uuid, created_at, updated_at, address, postcode, city, type,
         bedrooms, bathrooms, has_garage, has_garden, has_parking, address_fold, postcode_fold, city_fold, type_fold)
       SELECT a, u, t, t, ad, pc, ci, ty, be, ba, ga, gd, 0, lower(ad), replace(lower(pc), ' ', ''), lower(ci), lower(ty)
       FROM (
         SELECT (SELECT account_id FROM users ORDER BY id LIMIT 1) AS a, gen_random_uuid()::text AS u,
           $1::bigint + i * 1000 AS t,
           (1 + floor(random() * 300))::int || ' ' || (${list(['High', 'Church', 'Station', 'Park', 'Mill'])})[1 + i % 5] || ' Street' AS ad,
           'LS' || (1 + i % 28) || ' ' || (1 + floor(random() * 9))::int || 'AA' AS pc,
           (${list(CITIES)})[1 + floor(random() * ${CITIES.length})::int] AS ci,
           (${list(TYPES)})[1 + floor(random() * ${TYPES.length})::int] AS ty,
           floor(random() * 6)::int AS be, 1 + floor(random() * 3)::int AS ba,
           (random() < 0.3)::int AS ga, (random() < 0.6)::int AS gd
         FROM generate_series(0, $2::int - 1) AS i
       ) s`,
      [Date.parse('2020-01-01T00:00:00Z'), count],
    );
    // Each fold column's search keys, as pm writes them beside it: from the few distinct values
    // the seed draws, with the function migration 5 fills a database's keys with.
    const { PG_MIGRATION_KEYS } = await import(pathToFileURL(join(DIST, 'server/tables.js')).href);
    const folds = ['address', 'postcode', 'city', 'type'];
    await c.query(PG_MIGRATION_KEYS);
    await c.query(
      `CREATE TEMP TABLE seed_keys AS SELECT v, pm_migration_keys(a, v) AS k
       FROM (${folds.map((f) => `SELECT DISTINCT account_id AS a, ${f}_fold AS v FROM properties`).join(' UNION ')}) d`,
    );
    await c.query(
      `UPDATE properties p SET ${folds.map((f) => `${f}_keys = k_${f}.k`).join(', ')}
       FROM ${folds.map((f) => `seed_keys k_${f}`).join(', ')}
       WHERE ${folds.map((f) => `k_${f}.v = p.${f}_fold`).join(' AND ')}`,
    );
    await c.query('DROP FUNCTION pm_migration_keys');
    // As autovacuum leaves a table after a load (PostgreSQL 13+ vacuums after inserts too): the
    // visibility map set, so that index-only scans read no rows.
    await c.query('VACUUM ANALYZE properties');
  } finally {
    await c.end();
  }
}

/** Figure 8: figure 7 on PostgreSQL (`pm serve --database`), a database per size on one private cluster. */
async function figure8() {
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

/**
 * Figure 10: what another account's records cost a search. Account A (the data file's own, 200
 * properties) searches for an address none of its properties has: one value (`zebra crossing`)
 * that another account holds in SIZES.isolationMatches properties, and one of the same length
 * that no account holds (`quokka crossing`), interleaved, over keep-alive HTTP, against pm serve
 * on SQLite. With search indexes led by the account, both cost the same: the ratio is ~1x.
 */
async function figure10() {
  const dir = tmpDir('isolation');
  const home = tmpDir('home');
  const data = join(dir, 'pm.db');
  await seed(data, { properties: 200 });
  const { openStore } = await loadStoreApi();
  const store = openStore(data);
  const t0 = Date.now();
  try {
    const other = store.createAccount('another account').accountId;
    const cols = [
      'account_id',
      'uuid',
      'created_at',
      'updated_at',
      'address',
      'address_fold',
      'city',
      'city_fold',
      'postcode',
      'postcode_fold',
    ];
    store.db.function('bench_uuid', () => randomUUID());
    store.db
      .prepare(
        `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ?)
         INSERT INTO properties (${cols.join(', ')})
         SELECT ?, bench_uuid(), n, n, n || ' Zebra Crossing', n || ' zebra crossing', 'York', 'york', 'YO1 7AA', 'yo17aa' FROM s`,
      )
      .run(SIZES.isolationMatches, other);
    store.db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    store.close();
  }
  const seedMs = Date.now() - t0;
  const server = await startPmServe(data, home);
  try {
    const url = (value) => `${server.url}/properties?per_page=10&address=${encodeURIComponent(value)}`;
    for (const value of ['zebra crossing', 'quokka crossing']) {
      const page = await getJson(url(value), server.token);
      if (page.meta.pagination.total !== 0) throw new Error(`account A matched ${value}: the figure needs a miss`);
    }
    const side = (value) => async () =>
      (await timeRequests(SIZES.isolationRequests, () => ({ url: url(value), token: server.token }))).p50;
    const [matched, none] = await interleave(SIZES.isolationRounds, [side('zebra crossing'), side('quokka crossing')], {
      label: 'isolation',
    });
    const pm = median(matched);
    const baseline = median(none);
    return [
      {
        id: '10',
        figure: `a miss while another account holds ${SIZES.isolationMatches.toLocaleString('en')} matches (p50), against a miss nobody matches`,
        unit: 'ms',
        pm,
        baseline,
        ratio: pm / baseline,
        target: { op: '<=', value: 1.2 },
        pass: pm / baseline <= 1.2,
        note: `another account's properties written in ${(seedMs / 1000).toFixed(1)} s`,
      },
    ];
  } finally {
    await server.stop();
  }
}

/**
 * Figure 9: a calendar feed as calendar apps poll it. With nothing new, a poll sends its ETag
 * and gets a 304 (one indexed statement: no reminder is read); when something changed, it gets
 * the whole calendar of the account's 1,000 reminders. Both against the same server's
 * GET /reminders?per_page=100 with a token, the API's everyday read.
 */
async function figure9() {
  const { default: autocannon } = await import('autocannon');
  const dir = tmpDir('feed');
  const home = tmpDir('home');
  const data = join(dir, 'pm.db');
  const reminders = 1000;
  await seed(data, { reminders });
  const server = await startPmServe(data, home);
  try {
    const auth = { authorization: `Bearer ${server.token}`, accept: 'application/json' };
    const made = await fetch(`${server.url}/calendar-feeds`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    });
    if (made.status !== 201) throw new Error(`POST /calendar-feeds: ${made.status} ${await made.text()}`);
    const feedUrl = (await made.json()).data.url;
    const first = await fetch(feedUrl);
    const text = await first.text();
    const events = text.split('BEGIN:VEVENT').length - 1;
    if (first.status !== 200 || events !== reminders)
      throw new Error(`the feed answered ${first.status} with ${events} events; expected 200 with ${reminders}`);
    const etag = first.headers.get('etag');
    const targets = {
      list: { url: `${server.url}/reminders?per_page=100`, method: 'GET', headers: auth },
      poll: { url: feedUrl, method: 'GET', headers: { 'if-none-match': etag } },
      full: { url: feedUrl, method: 'GET' },
    };
    const expected = { list: 200, poll: 304, full: 200 };
    const cannon = (name, duration) => async () => {
      let wrong = 0;
      const result = await autocannon({
        ...targets[name],
        connections: SIZES.cannonConnections,
        duration,
        setupClient: (client) =>
          client.on('response', (status) => {
            if (status !== expected[name]) wrong++;
          }),
      });
      if (wrong || result.errors || result.timeouts)
        throw new Error(
          `autocannon ${name}: ${wrong} answers other than ${expected[name]}, ${result.errors} errors, ${result.timeouts} timeouts`,
        );
      return result.requests.average;
    };
    const names = ['list', 'poll', 'full'];
    for (const name of names) await cannon(name, SIZES.cannonWarmupSeconds)();
    const [l, p, f] = await interleave(
      SIZES.cannonRounds,
      names.map((name) => cannon(name, SIZES.cannonSeconds)),
      { warmup: 0, label: 'autocannon' },
    );
    const note = `${SIZES.cannonConnections} connections, ${SIZES.cannonSeconds} s a run, median of ${SIZES.cannonRounds}; ${reminders.toLocaleString('en')} reminders`;
    return [
      row('9a', 'feed poll with nothing new (If-None-Match: 304) vs GET /reminders?per_page=100', {
        pm: median(p),
        base: median(l),
        unit: 'req/s',
        ratio: median(p) / median(l),
        samples: { pm: p, baseline: l },
        note,
      }),
      row('9b', 'full feed (200, 1,000 events) vs GET /reminders?per_page=100', {
        pm: median(f),
        base: median(l),
        unit: 'req/s',
        ratio: median(f) / median(l),
        samples: { pm: f, baseline: l },
        note: `${note}; ${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB of iCalendar`,
      }),
    ];
  } finally {
    await server.stop();
  }
}

/** A process's resident memory now and its peak so far (MB), from /proc. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/**
 * Figure 11: a file of SIZES.fileMiB through pm against pm serve (on SQLite, then PostgreSQL
 * when its binaries are here): `pm attachments upload` and `download`, timed in turns with curl
 * against a plain node:http server that writes the body to a file and sends it back. Throughput
 * is MB/s of the file; memory is pm's peak RSS above a small run's (`pm attachments get`), and
 * pm serve's peak above its RSS once started, each against a 100 MB target.
 */
async function figure11() {
  const dir = tmpDir('files');
  const size = SIZES.fileMiB * 1024 * 1024;
  const file = join(dir, 'big.bin');
  // Random bytes, 1 MiB repeated with a counter: incompressible enough, made quickly.
  {
    const fd = openSync(file, 'w');
    const block = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < block.length; i += 4) block.writeUInt32LE((Math.random() * 2 ** 32) >>> 0, i);
    for (let i = 0; i < SIZES.fileMiB; i++) {
      block.writeUInt32LE(i, 0);
      writeSync(fd, block);
    }
    closeSync(fd);
  }
  const mbps = (ms) => size / 1e6 / (ms / 1000);
  const home = tmpDir('home');
  const rawDir = tmpDir('raw');
  const raw = await startListening('file-http.mjs', NODE, [baseline('file-http.mjs'), rawDir], cleanEnv(home));
  const rows = [];
  const hasTime = existsSync(TIME);
  try {
    const curl = (args) => async () =>
      mustSucceed('curl', await runTimed('curl', ['-sS', '-f', ...args], { env: cleanEnv(home) }));
    const stores = [
      [
        'SQLite',
        async () => {
          const data = join(dir, 'pm.db');
          return startPmServe(data, home, { args: ['--max-attachment-size', '1GiB', '--request-timeout', '3600'] });
        },
      ],
    ];
    if (spawnSync('initdb', ['--version']).status === 0)
      stores.push([
        'PostgreSQL',
        async () => {
          const cluster = await startCluster();
          const url = cluster.url('pm_files');
          const { default: pg } = await import('pg');
          const admin = new pg.Client({ connectionString: cluster.url('postgres') });
          await admin.connect();
          await admin.query('CREATE DATABASE pm_files');
          await admin.end();
          const env = cleanEnv(home, { PM_DATABASE_URL: url });
          const first = await startListening('pm serve --database', NODE, [PM, 'serve', '--port', '0'], env);
          await first.stop();
          const made = await runTimed(NODE, [PM, 'serve', 'tokens', 'create', '--name', 'bench'], {
            env,
            stdout: 'capture',
          });
          const args = [PM, 'serve', '--port', '0', '--max-attachment-size', '1GiB', '--request-timeout', '3600'];
          const s = await startListening('pm serve --database', NODE, args, env);
          return {
            ...s,
            token: mustSucceed('tokens create', made).stdout.trim(),
            stop: async () => {
              await s.stop();
              cluster.destroy();
            },
          };
        },
      ]);
    else say('  initdb not on PATH: figure 11 on SQLite only');
    for (const [name, start] of stores) {
      const server = await start();
      try {
        const env = cleanEnv(home, { PM_BASE_URL: server.url, PM_TOKEN: server.token });
        const pm = (args, opts = {}) =>
          runTimed(NODE, [PM, ...args], { env, cwd: dir, rss: hasTime ? dir : undefined, ...opts });
        const property = mustSucceed(
          'pm properties create',
          await pm(['properties', 'create', '--address', '1 Bench St', '--postcode', 'LS1 1AA', '-q'], {
            stdout: 'capture',
          }),
        ).stdout.trim();
        const idleServer = memoryOf(server.pid).rss;
        let uploaded = '';
        const up = async () => {
          const r = mustSucceed(
            'pm attachments upload',
            await pm(['attachments', 'upload', 'big.bin', '--property', property], { stdout: 'capture' }),
          );
          uploaded = r.stdout.trim();
          return r;
        };
        const down = async () =>
          mustSucceed(
            'pm attachments download',
            await pm(['attachments', 'download', uploaded, '--to', 'copy.bin', '--clobber']),
          );
        const [pmUp, curlUp] = await interleave(
          SIZES.fileRounds,
          [up, curl(['-T', file, '-X', 'POST', `${raw.url}/up.bin`])],
          { warmup: 0, label: `${name} upload` },
        );
        const [pmDown, curlDown] = await interleave(
          SIZES.fileRounds,
          [down, curl(['-o', join(dir, 'curl.bin'), `${raw.url}/up.bin`])],
          { warmup: 0, label: `${name} download` },
        );
        if (statSync(join(dir, 'copy.bin')).size !== size)
          throw new Error('pm attachments download wrote the wrong size');
        const idle = mustSucceed('pm attachments get', await pm(['attachments', 'get', uploaded]));
        const served = memoryOf(server.pid);
        const speed = (side) => side.map((r) => mbps(r.ms));
        for (const [id, what, p, c] of [
          ['a', 'upload', pmUp, curlUp],
          ['b', 'download', pmDown, curlDown],
        ]) {
          const pmSpeed = median(speed(p));
          const base = median(speed(c));
          rows.push(
            row(
              `11${name === 'SQLite' ? id : id === 'a' ? 'c' : 'd'}`,
              `${name}: pm attachments ${what}, ${SIZES.fileMiB} MiB, vs curl and a plain node:http server`,
              {
                pm: pmSpeed,
                base,
                unit: 'MB/s',
                ratio: pmSpeed / base,
                target: { op: '>=', value: 0.5 },
                samples: { pm: speed(p), baseline: speed(c) },
                note: 'MB/s of the file, median of the rounds; over loopback on this machine',
              },
            ),
          );
        }
        if (hasTime) {
          const peak = Math.max(...[...pmUp, ...pmDown].map((r) => r.rssMb));
          rows.push(
            row(
              `11${name === 'SQLite' ? 'e' : 'f'}`,
              `${name}: peak RSS of pm uploading and downloading, above a small run's (pm attachments get)`,
              {
                pm: peak - idle.rssMb,
                base: idle.rssMb,
                unit: 'MB',
                ratio: peak / idle.rssMb,
                target: { op: '<=', value: 100, of: 'pm' },
                samples: { pm: [...pmUp, ...pmDown].map((r) => r.rssMb), baseline: [idle.rssMb] },
                note: 'pm: the growth above the baseline column (the small run), from /usr/bin/time -f %M',
              },
            ),
          );
        }
        rows.push(
          row(
            `11${name === 'SQLite' ? 'g' : 'h'}`,
            `${name}: peak RSS of pm serve over the transfers, above its RSS once started`,
            {
              pm: served.peak - idleServer,
              base: idleServer,
              unit: 'MB',
              ratio: served.peak / idleServer,
              target: { op: '<=', value: 100, of: 'pm' },
              samples: { pm: [served.peak], baseline: [idleServer] },
              note: 'VmHWM and VmRSS of /proc/PID/status',
            },
          ),
        );
      } finally {
        await server.stop();
      }
    }
  } finally {
    await raw.stop();
  }
  return rows;
}

const FIGURES = {
  1: ['start-up: pm --version, pm --help', figure1],
  2: ['pm properties list --json against pm serve', figure2],
  3: [
    'pm properties list, get and reminders create on the embedded default',
    async () => [...(await figure3()), ...(await figure3Get()), ...(await figure3Create())],
  ],
  4: ['bulk create', figure4],
  5: ['pm reminders list --all', figure5],
  6: ['server requests/second', figure6],
  7: ['pm serve at scale: p50 growth from 1k to 100k to 1M properties', figure7],
  8: ['pm serve at scale on PostgreSQL: the same growth', figure8],
  9: ['calendar feed polls/second', figure9],
  10: ["search isolation: another account's matches do not change a search's cost", figure10],
  11: ['files: a big attachment through pm and pm serve, vs curl and node:http', figure11],
};

// ----------------------------------------------------------------------------------- output

function fmt(v, unit) {
  if (v === undefined || v === null || Number.isNaN(v)) return '-';
  if (unit === 'ms') return `${v.toFixed(v < 10 ? 2 : 1)} ms`;
  if (unit === 'MB') return `${v.toFixed(1)} MB`;
  return `${Math.round(v).toLocaleString('en')} ${unit}`;
}

function targetText(t) {
  if (!t) return '(none)';
  const op = t.op === '<=' ? '≤' : '≥';
  return t.of === 'pm' ? `pm ${op} ${t.value} MB` : `${op} ${t.value}x`;
}

function table(rows) {
  const head = ['figure', 'pm', 'baseline', 'ratio', 'target', 'result'];
  const body = rows.map((r) =>
    r.error
      ? [`${r.id} ${r.figure}`, '-', '-', '-', '-', 'ERROR']
      : [
          `${r.id} ${r.figure}`,
          fmt(r.pm, r.unit),
          fmt(r.baseline, r.unit),
          `${r.ratio.toFixed(2)}x`,
          targetText(r.target),
          r.pass === null ? 'info' : r.pass ? 'pass' : 'FAIL',
        ],
  );
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

function git(args) {
  return new Promise((resolve) => {
    const c = spawn('git', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
    const out = [];
    c.stdout.on('data', (d) => out.push(d));
    c.on('error', () => resolve(''));
    c.on('close', () => resolve(Buffer.concat(out).toString('utf8').trim()));
  });
}

function newestMtime(dir, ext) {
  let newest = { ms: 0, file: '' };
  if (!existsSync(dir)) return newest;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || !e.name.endsWith(ext)) continue;
    const f = join(e.parentPath ?? e.path, e.name);
    const ms = statSync(f).mtimeMs;
    if (ms > newest.ms) newest = { ms, file: f };
  }
  return newest;
}

// ------------------------------------------------------------------------------------- main

async function preflight() {
  const needed = ['server/index.js', 'core/validate.js', 'resources/index.js'];
  const missing = needed.filter((p) => !existsSync(join(DIST, p)));
  if (missing.length) {
    process.stderr.write(
      `bench: the built CLI is missing (${missing.map((m) => `dist/${m}`).join(', ')}).\n` +
        'bench: run `npm run build` first; the benchmark times what is in dist/.\n',
    );
    process.exit(2);
  }
  const src = newestMtime(join(ROOT, 'src'), '.ts');
  const dist = newestMtime(DIST, '.js');
  if (src.ms > dist.ms + 1000)
    say(`bench: warning: ${relative(ROOT, src.file)} changed after the last build: run \`npm run build\` to time it`);
  // --version alone may take a short cut; --help loads the CLI proper.
  const home = tmpDir('home');
  let version = '';
  for (const arg of ['--version', '--help']) {
    const r = await runTimed(NODE, [PM, arg], { env: cleanEnv(home), stdout: 'capture' });
    if (r.code !== 0) {
      process.stderr.write(
        `bench: bin/pm ${arg} failed (${r.code ?? r.signal}):\n${r.stderr}\nbench: run \`npm run build\`.\n`,
      );
      process.exit(2);
    }
    if (arg === '--version') version = r.stdout.trim();
  }
  removeDir(home);
  return version;
}

async function main() {
  const started = Date.now();
  const version = await preflight();
  const cpus = os.cpus();
  const machine = {
    cpus: cpus.length,
    cpu: cpus[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
  const [commit, dirty] = await Promise.all([git(['rev-parse', '--short', 'HEAD']), git(['status', '--porcelain'])]);
  const loadBefore = os.loadavg()[0];
  say(
    `pm ${version} (${commit || 'no git'}${dirty ? ', working tree has changes' : ''}) on ${machine.cpus} cores, Node ${machine.node}` +
      `${Q ? ' -- QUICK: smoke check, not figures to quote' : ''}`,
  );
  if (loadBefore > machine.cpus * 0.75)
    say(`bench: warning: load average ${loadBefore.toFixed(1)} on ${machine.cpus} cores: other work will add noise`);

  const rows = [];
  const loads = [loadBefore];
  for (const n of opts.only) {
    const [title, fn] = FIGURES[n];
    say(`[${n}] ${title}`);
    const t0 = Date.now();
    try {
      const got = await fn();
      // The 1-minute load average as the figure ends: a busy machine explains a noisy figure.
      const load = Number(os.loadavg()[0].toFixed(2));
      loads.push(load);
      rows.push(...got.map((r) => ({ ...r, loadAverage: load })));
      for (const r of got)
        say(
          `  ${r.id}: pm ${fmt(r.pm, r.unit)}, baseline ${fmt(r.baseline, r.unit)}, ${r.ratio.toFixed(2)}x` +
            `${r.pass === null ? '' : r.pass ? ' (pass)' : ' (FAIL)'}`,
        );
    } catch (e) {
      say(`  error: ${e?.stack ?? e}`);
      rows.push({ id: String(n), figure: title, error: String(e?.message ?? e), pass: false });
    } finally {
      // Each figure's temp files go as soon as it is done (the exit handler catches the rest).
      for (const d of [...tmpDirs]) removeDir(d);
    }
    say(`  (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  }

  const seconds = (Date.now() - started) / 1000;
  const date = new Date(started);
  const result = {
    date: date.toISOString(),
    quick: Q,
    only: opts.only,
    pm: version,
    commit,
    dirty: dirty !== '',
    machine,
    loadAverage: { before: loadBefore, after: os.loadavg()[0] },
    sizes: SIZES,
    seconds,
    rows,
  };
  mkdirSync(join(BENCH, 'results'), { recursive: true });
  const out = join(BENCH, 'results', `${date.toISOString().replace(/[:.]/g, '-')}${Q ? '-quick' : ''}.json`);
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);

  process.stdout.write(`\n${table(rows)}\n\n`);
  const failed = rows.filter((r) => r.pass === false && !r.error);
  const errors = rows.filter((r) => r.error);
  say(
    `${rows.length} rows: ${rows.filter((r) => r.pass === true).length} pass, ${failed.length} miss their target` +
      `${errors.length ? `, ${errors.length} could not be measured` : ''}; ${seconds.toFixed(0)} s. Written to ${relative(ROOT, out)}`,
  );
  const busiest = Math.max(...loads);
  if (busiest > machine.cpus * 0.75)
    say(
      `bench: warning: the load average reached ${busiest.toFixed(1)} on ${machine.cpus} cores during the run: ` +
        'other work competed with it; run again on a quieter machine before quoting these figures',
    );
  // A figure that could not be measured is a broken benchmark, not a result: always an error.
  if (errors.length) process.exitCode = 1;
  else if (opts.check && failed.length) process.exitCode = 1;
}

await main();
