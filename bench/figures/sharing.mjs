/**
 * Figure 13: what one account's files cost another. Another account's GET of a record by uuid,
 * its p99 alone beside its p99 while one account uploads or downloads hard (each side by side in
 * one run); and pm serve's memory while many clients download and read nothing, then after they
 * have gone.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { baseline, NODE, PM } from '../lib/env.mjs';
import { opts } from '../lib/options.mjs';
import { startPmServeOnPostgres } from '../lib/postgres.mjs';
import { cleanEnv, mustSucceed, runTimed, startPmServe, tmpDir } from '../lib/processes.mjs';
import { median, row, say } from '../lib/stats.mjs';

const MiB = 1024 * 1024;
const Q = opts.quick;
const SIZES = {
  probeSeconds: Q ? 3 : 8,
  uploaders: 4,
  uploadMiB: Q ? 32 : 100,
  downloaders: 48,
  downloadMiB: Q ? 8 : 16,
  slowReaders: 64,
  slowMiB: 32,
};

/** The value at fraction `p` of the sorted samples. */
function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? Number.NaN;
}

/** pm serve's resident memory now (MB), from /proc. */
const rssOf = (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024;

/** GETs of `path` one after another until `until()` (ms each). */
async function probe(url, token, path, until) {
  const ms = [];
  const headers = { authorization: `Bearer ${token}` };
  while (!until()) {
    const t = performance.now();
    const res = await fetch(url + path, { headers }).catch((e) => {
      throw new Error(`GET ${path}: ${e.cause?.message ?? e.message}`);
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
    ms.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 5));
  }
  return ms;
}

const wait = (ms) => new Promise((r) => setTimeout(r, ms));

/** The probe's samples for SIZES.probeSeconds with nothing else running. */
function alone(url, token, path) {
  const end = Date.now() + SIZES.probeSeconds * 1000;
  return probe(url, token, path, () => Date.now() > end);
}

/** The probe's samples while `load(stop)` runs (at most SIZES.probeSeconds: then `stop()` says so). */
async function during(url, token, path, load) {
  let done = false;
  const end = Date.now() + SIZES.probeSeconds * 1000;
  const over = () => done || Date.now() > end;
  const loaded = load(over).finally(() => {
    done = true;
  });
  // The load under way first (a process started, its first bytes sent).
  await wait(500);
  const ms = await probe(url, token, path, over);
  done = true;
  await loaded;
  return ms;
}

async function post(url, token, path, body, type = 'application/json') {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': type },
    body,
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text).data;
}

/** A property of the account, and a file under it of `mib` MiB: their uuids. */
async function seed(url, token, mib) {
  const property = await post(
    url,
    token,
    '/properties',
    JSON.stringify({ address: '1 Bench St', postcode: 'LS1 1AA' }),
  );
  const file = mib
    ? await post(
        url,
        token,
        `/properties/${property.uuid}/attachments?name=f.bin`,
        bytes(mib),
        'application/octet-stream',
      )
    : undefined;
  return { property: property.uuid, file: file?.uuid };
}

/** Random bytes (made natively: a loop here would hold the probe's own event loop for seconds). */
const bytes = (mib) => randomFillSync(Buffer.allocUnsafe(mib * MiB));

/** The load in a process of its own (baselines/files-load.mjs): done when it exits, or when `stop()` says (then killed). */
async function loadProcess(args, stop) {
  const child = spawn(NODE, [baseline('files-load.mjs'), ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = once(child, 'exit');
  const timer = setInterval(() => {
    if (stop()) child.kill('SIGKILL');
  }, 100);
  try {
    const [code, signal] = await exited;
    if (code !== 0 && signal !== 'SIGKILL') throw new Error(`the load exited ${code ?? signal}`);
  } finally {
    clearInterval(timer);
  }
}

/** The p99 row of a probe alone and under a load. */
function p99Row(id, what, quiet, loaded, target) {
  const [q, l] = [percentile(quiet, 0.99), percentile(loaded, 0.99)];
  return row(id, what, {
    pm: l,
    base: q,
    unit: 'ms',
    ratio: l / q,
    target: { op: '<=', value: target, of: 'pm' },
    samples: { pm: loaded, baseline: quiet },
    note: `p99 of another account's GET /properties/{uuid} under the load (pm) and alone (baseline), one after another for ${SIZES.probeSeconds} s each; medians ${median(loaded).toFixed(1)} and ${median(quiet).toFixed(1)} ms`,
  });
}

export async function figure13() {
  const rows = [];
  const home = tmpDir('sharing-home');
  const stores = [
    [
      'SQLite',
      async () => {
        const data = join(tmpDir('sharing'), 'pm.db');
        const s = await startPmServe(data, home, {
          args: ['--max-attachment-size', '1GiB', '--request-timeout', '600'],
        });
        const made = await runTimed(NODE, [PM, 'serve', 'accounts', 'create', '--name', 'other', '--data', data], {
          env: cleanEnv(home),
          stdout: 'capture',
        });
        return { ...s, other: mustSucceed('accounts create', made).stdout.trim() };
      },
    ],
  ];
  if (spawnSync('initdb', ['--version']).status === 0)
    stores.push([
      'PostgreSQL',
      async () => {
        const s = await startPmServeOnPostgres(home, 'pm_sharing', [
          '--max-attachment-size',
          '1GiB',
          '--request-timeout',
          '600',
        ]);
        const made = await runTimed(NODE, [PM, 'serve', 'accounts', 'create', '--name', 'other'], {
          env: s.env,
          stdout: 'capture',
        });
        return { ...s, other: mustSucceed('accounts create', made).stdout.trim() };
      },
    ]);
  else say('  initdb not on PATH: figure 13 on SQLite only');
  for (const [name, start] of stores) {
    const server = await start();
    try {
      const { url } = server;
      const victim = await seed(url, server.other, 0);
      const path = `/properties/${victim.property}`;
      const load = await seed(url, server.token, SIZES.downloadMiB);
      if (name === 'SQLite') {
        const quiet = await alone(url, server.other, path);
        const loaded = await during(url, server.other, path, () =>
          loadProcess(
            ['upload', url, server.token, load.property, String(SIZES.uploaders), String(SIZES.uploadMiB)],
            () => false,
          ),
        );
        rows.push(
          p99Row(
            '13a',
            `SQLite: another account's GET while ${SIZES.uploaders} uploads of ${SIZES.uploadMiB} MiB run`,
            quiet,
            loaded,
            250,
          ),
        );
      }
      const quiet = await alone(url, server.other, path);
      const loaded = await during(url, server.other, path, (stop) =>
        loadProcess(['download', url, server.token, load.file, String(SIZES.downloaders)], stop),
      );
      rows.push(
        p99Row(
          name === 'SQLite' ? '13b' : '13c',
          `${name}: another account's GET while one account runs ${SIZES.downloaders} downloads of ${SIZES.downloadMiB} MiB`,
          quiet,
          loaded,
          500,
        ),
      );
      if (name === 'PostgreSQL') {
        const big = await seed(url, server.token, SIZES.slowMiB);
        const before = rssOf(server.pid);
        const { host, port } = new URL(url);
        const sockets = [];
        for (let i = 0; i < SIZES.slowReaders; i++) {
          const s = connect(Number(port), host.split(':')[0]);
          s.on('error', () => {});
          s.write(
            `GET /attachments/${big.file}/download HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${server.token}\r\n\r\n`,
          );
          // It reads the first bytes, then nothing.
          s.once('data', () => s.pause());
          sockets.push(s);
        }
        await wait(5000);
        const held = rssOf(server.pid);
        for (const s of sockets) s.destroy();
        await wait(10_000);
        const after = rssOf(server.pid);
        rows.push(
          row(
            '13d',
            `PostgreSQL: pm serve's RSS growth with ${SIZES.slowReaders} downloads of ${SIZES.slowMiB} MiB whose clients read nothing`,
            {
              pm: held - before,
              base: before,
              unit: 'MB',
              ratio: held / before,
              target: { op: '<=', value: 150, of: 'pm' },
              samples: { pm: [held], baseline: [before] },
              note: `VmRSS before (baseline), 5 s into the downloads (pm: the growth); 10 s after their clients left: ${after.toFixed(0)} MB (${(after - before).toFixed(0)} above before)`,
            },
          ),
        );
        rows.push(
          row('13e', `PostgreSQL: pm serve's RSS 10 s after those ${SIZES.slowReaders} clients left, above before`, {
            pm: after - before,
            base: before,
            unit: 'MB',
            ratio: after / before,
            target: { op: '<=', value: 150, of: 'pm' },
            samples: { pm: [after], baseline: [before] },
            note: 'VmRSS: what was held for the downloads, given back',
          }),
        );
      }
    } finally {
      await server.stop();
    }
  }
  return rows;
}
