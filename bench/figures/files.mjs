/**
 * Figure 11: a big attachment through pm and pm serve (upload and download), beside curl and a
 * plain node:http server; the peak memory of pm and of pm serve over the transfers.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { baseline, NODE, PM, TIME } from '../lib/env.mjs';
import { SIZES } from '../lib/options.mjs';
import { startPmServeOnPostgres } from '../lib/postgres.mjs';
import { cleanEnv, mustSucceed, runTimed, startListening, startPmServe, tmpDir } from '../lib/processes.mjs';
import { interleave, median, row, say } from '../lib/stats.mjs';

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
 * is MB/s of the file, against a target of half the baseline's; memory is pm's peak RSS above a
 * small run's (`pm attachments get`), and pm serve's peak above its RSS once started, each
 * against a 100 MB target; and the longest a small write waited while one more upload ran (its
 * record and chunks are one transaction), beside the median, with no target.
 */
export async function figure11() {
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
        () => startPmServeOnPostgres(home, 'pm_files', ['--max-attachment-size', '1GiB', '--request-timeout', '3600']),
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
        // How long a small write waits while a file's transaction holds the store: one after another
        // for as long as one more upload takes.
        const waits = [];
        let uploading = true;
        const probe = (async () => {
          const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
          while (uploading) {
            const t = performance.now();
            const res = await fetch(`${server.url}/reminders`, { method: 'POST', headers, body: '{"title":"probe"}' });
            await res.arrayBuffer();
            if (res.status !== 201) throw new Error(`POST /reminders answered ${res.status}`);
            waits.push(performance.now() - t);
            await new Promise((r) => setTimeout(r, 5));
          }
        })();
        await up().finally(() => {
          uploading = false;
        });
        await probe;
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
                target: { op: '>=', value: 0.5, of: 'ratio' },
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
        rows.push(
          row(
            `11${name === 'SQLite' ? 'i' : 'j'}`,
            `${name}: the longest a small write (POST /reminders) took during a ${SIZES.fileMiB} MiB upload, vs its median`,
            {
              pm: Math.max(...waits),
              base: median(waits),
              unit: 'ms',
              ratio: Math.max(...waits) / median(waits),
              samples: { pm: waits, baseline: [] },
              note: "writes one after another for as long as the upload takes: the file's transaction holds the store's writer (SQLite: pm serve's event loop too) while it writes",
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
