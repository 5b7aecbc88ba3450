/**
 * Figure 6: pm serve's requests per second (autocannon), beside node:http + better-sqlite3 and
 * json-server serving the same page.
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseline, NODE } from '../lib/env.mjs';
import { SIZES } from '../lib/options.mjs';
import { cleanEnv, cpuSeconds, getJson, startListening, startPmServe, tmpDir } from '../lib/processes.mjs';
import { seed } from '../lib/seed.mjs';
import { interleave, median, row } from '../lib/stats.mjs';

export async function figure6() {
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
  const textData = copy('text.db');
  // The default: a text line per request.
  const server = await startPmServe(data, home, { log: join(dir, 'text.log') });
  let bare;
  let peer;
  let quiet;
  let logged;
  let text;
  try {
    // The log's cost is measured on three servers of the same history (a copy of the data file
    // each, the same requests from their start): the log off (server errors only), JSON lines,
    // and the default text line; not on the server above, which 6a-6c have loaded first.
    quiet = await startPmServe(quietData, home, { args: ['--log-level', 'error'], log: join(dir, 'quiet.log') });
    logged = await startPmServe(jsonData, home, { args: ['--log-format', 'json'], log: join(dir, 'json.log') });
    text = await startPmServe(textData, home, { log: join(dir, 'text-only.log') });
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
      listText: { url: `${text.url}${listPath}`, method: 'GET', headers: auth },
      postText: post(text),
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
    const logSides = ['listText', 'listQuiet', 'listJson', 'postText', 'postQuiet'];
    for (const name of [...names, ...logSides]) await cannon(name, SIZES.cannonWarmupSeconds)();
    const [b, l, p, j] = await interleave(
      SIZES.cannonRounds,
      names.map((name) => cannon(name, SIZES.cannonSeconds)),
      { warmup: 0, label: 'autocannon' },
    );
    // The log's cost is a few per cent, less than the drift of a loaded machine over a minute:
    // short runs, the servers with and without a log one after the other, many rounds.
    const pids = {
      listText: text.pid,
      listQuiet: quiet.pid,
      listJson: logged.pid,
      postText: text.pid,
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
    await Promise.all([server.stop(), bare?.stop(), peer?.stop(), quiet?.stop(), logged?.stop(), text?.stop()]);
  }
}
