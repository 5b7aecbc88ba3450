/**
 * Figure 12: large calendar feeds do not hold up other accounts. One account has 5,000 reminders
 * of 64 KB each (some 330 MB of iCalendar a feed); eight clients read its feed at once, while
 * another account's GET is timed, and pm serve's memory watched.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Q } from '../lib/options.mjs';
import { startPmServe, tmpDir } from '../lib/processes.mjs';
import { loadStoreApi } from '../lib/seed.mjs';
import { progress, row } from '../lib/stats.mjs';

const REMINDERS = Q ? 1_000 : 5_000;
const FEEDS = 8;
/** The text of each reminder's description (characters: the most a description takes is 65,535). */
const DETAILS = 64_000;
const QUIET_SECONDS = Q ? 3 : 10;
/** The grace pm serve is given to stop in (seconds). */
const GRACE = 2;

/**
 * The feed's account: the first of a new data file, its reminders made through the repository
 * (TEMPLATE of them) and copied in SQL up to `count`, each copy with a new uuid and a later time.
 * The other account: 20 small reminders and a token. Returns both tokens.
 */
async function seedFeedAccount(file, count) {
  const { openStore, bootstrap, validateBody, resourceByPath } = await loadStoreApi();
  const { ALL_SCOPES } = await import(new URL('../../dist/resources/index.js', import.meta.url).href);
  const { randomUUID } = await import('node:crypto');
  let tick = 0;
  const store = openStore(file, () => Date.parse('2026-01-01T00:00:00Z') + tick);
  try {
    bootstrap(store);
    const owner = store.firstUser().accountId;
    const rr = resourceByPath('reminders');
    const TEMPLATE = 50;
    const text = 'Book the engineer, send the certificate to the tenant. '.repeat(1 + DETAILS / 50).slice(0, DETAILS);
    store.db.transaction(() => {
      for (let i = 0; i < TEMPLATE; i++) {
        tick = i;
        const body = { title: `Gas safety ${i + 1}`, description: `${i} ${text}`, due_at: `2027-01-${10 + (i % 18)}` };
        store.create(owner, rr, validateBody(rr, body, 'create'));
      }
      store.db.function('bench_uuid', () => randomUUID());
      const skip = new Set(['id', 'uuid', 'created_at', 'updated_at']);
      const cols = store.db
        .pragma(`table_info(${rr.table})`)
        .map((c) => c.name)
        .filter((c) => !skip.has(c));
      store.db
        .prepare(
          `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ?)
           INSERT INTO ${rr.table} (uuid, created_at, updated_at, ${cols.map((c) => `"${c}"`).join(', ')})
           SELECT bench_uuid(), t.created_at + seq.n * ?, t.updated_at + seq.n * ?, ${cols.map((c) => `t."${c}"`).join(', ')}
           FROM seq CROSS JOIN (SELECT * FROM ${rr.table} WHERE account_id = ? ORDER BY id LIMIT ?) t
           ORDER BY seq.n, t.id LIMIT ?`,
        )
        .run(Math.ceil(count / TEMPLATE) - 1, TEMPLATE, TEMPLATE, owner, TEMPLATE, count - TEMPLATE);
    })();
    const other = store.createAccount('other');
    for (let i = 0; i < 20; i++) {
      tick = 1e9 + i;
      store.create(other.accountId, rr, validateBody(rr, { title: `Other ${i}`, due_at: '2027-03-01' }, 'create'));
    }
    const otherToken = store.createToken(other.userId, 'other', ALL_SCOPES).token;
    return { ownerToken: readFileSync(`${file}.token`, 'utf8').trim(), otherToken };
  } finally {
    store.close();
  }
}

/** pm serve's resident memory (MB), from /proc. */
const rssOf = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

const p99 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];

/** A whole feed read as fast as it comes: its bytes and events, checked to end the calendar. */
async function readFeed(url) {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET feed: ${res.status} ${await res.text()}`);
  let bytes = 0;
  let events = 0;
  let tail = '';
  for await (const chunk of res.body) {
    bytes += chunk.byteLength;
    const text = tail + Buffer.from(chunk).toString('latin1');
    events += text.split('BEGIN:VEVENT').length - 1;
    tail = text.slice(-16).replace(/BEGIN:VEVENT/g, '');
  }
  if (!tail.endsWith('END:VCALENDAR\r\n')) throw new Error('a feed did not end with END:VCALENDAR');
  return { bytes, events };
}

export async function figure12() {
  const dir = tmpDir('feed-load');
  const home = tmpDir('home');
  const data = join(dir, 'pm.db');
  progress(`seeding ${REMINDERS.toLocaleString('en')} reminders of ${DETAILS / 1000} KB`);
  const { ownerToken, otherToken } = await seedFeedAccount(data, REMINDERS);
  const server = await startPmServe(data, home, { args: ['--shutdown-grace', String(GRACE)] });
  let stopped = false;
  try {
    const made = await fetch(`${server.url}/calendar-feeds`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    });
    if (made.status !== 201) throw new Error(`POST /calendar-feeds: ${made.status} ${await made.text()}`);
    const feedUrl = (await made.json()).data.url;
    const victimUrl = `${server.url}/reminders?per_page=20`;
    /** Another account's GETs, one after another, until `until()` says stop: their times (ms). */
    const victim = async (until) => {
      const times = [];
      while (!until()) {
        const t = performance.now();
        const res = await fetch(victimUrl, { headers: { authorization: `Bearer ${otherToken}` } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`the other account's GET: ${res.status}`);
        times.push(performance.now() - t);
      }
      return times;
    };
    // Warm, then quiet: the other account alone.
    await victim(
      (
        (n) => () =>
          n-- <= 0
      )(50),
    );
    const quietEnd = performance.now() + QUIET_SECONDS * 1000;
    progress('the other account alone');
    const quiet = await victim(() => performance.now() >= quietEnd);
    // Loaded: eight whole feeds read at once, the other account's GETs meanwhile, memory sampled.
    const rssBefore = rssOf(server.pid);
    let rssMax = rssBefore;
    const sampler = setInterval(() => {
      rssMax = Math.max(rssMax, rssOf(server.pid));
    }, 50);
    progress(`${FEEDS} feeds at once`);
    const t0 = performance.now();
    let done = false;
    const feeds = Promise.all(Array.from({ length: FEEDS }, () => readFeed(feedUrl))).finally(() => {
      done = true;
    });
    const loaded = await victim(() => done);
    const read = await feeds;
    const feedSeconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    for (const f of read)
      if (f.events !== REMINDERS) throw new Error(`a feed had ${f.events} events; expected ${REMINDERS}`);
    // Stopping while eight feeds are being written: SIGTERM, and the time to exit.
    const cut = Array.from({ length: FEEDS }, () => readFeed(feedUrl).catch(() => undefined));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const s0 = performance.now();
    await server.stop();
    stopped = true;
    const stopMs = performance.now() - s0;
    await Promise.all(cut);
    const mib = (read[0].bytes / 2 ** 20).toFixed(0);
    const note = `${REMINDERS.toLocaleString('en')} reminders of ${DETAILS / 1000} KB (${mib} MiB a feed), ${FEEDS} feeds at once, read in ${feedSeconds.toFixed(1)} s`;
    return [
      row('12a', "another account's GET /reminders p99 while 8 large feeds are read vs alone", {
        pm: p99(loaded),
        base: p99(quiet),
        unit: 'ms',
        ratio: p99(loaded) / p99(quiet),
        target: { of: 'pm', op: '<=', value: 500, unit: 'ms' },
        samples: { pm: loaded.length, baseline: quiet.length },
        note: `${note}; ${loaded.length} GETs under load, ${quiet.length} alone`,
      }),
      row('12b', "pm serve's RSS growth while 8 large feeds are read (baseline: RSS before)", {
        pm: rssMax - rssBefore,
        base: rssBefore,
        unit: 'MB',
        ratio: (rssMax - rssBefore) / rssBefore,
        target: { of: 'pm', op: '<=', value: 200, unit: 'MB' },
        note,
      }),
      row('12c', `SIGTERM to exit while 8 large feeds are written (baseline: the ${GRACE} s grace)`, {
        pm: stopMs,
        base: GRACE * 1000,
        unit: 'ms',
        ratio: stopMs / (GRACE * 1000),
        target: { of: 'pm', op: '<=', value: GRACE * 1000 + 1000, unit: 'ms' },
        note: 'pm serve --shutdown-grace 2',
      }),
    ];
  } finally {
    if (!stopped) await server.stop();
  }
}
