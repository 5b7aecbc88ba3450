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

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, relative } from 'node:path';
import { figure14 } from './figures/against.mjs';
import { figure4 } from './figures/bulk.mjs';
import { figure3, figure3Create, figure3Get } from './figures/embedded.mjs';
import { figure9 } from './figures/feed.mjs';
import { figure12 } from './figures/feed-load.mjs';
import { figure11 } from './figures/files.mjs';
import { figure10 } from './figures/isolation.mjs';
import { figure5 } from './figures/list-all.mjs';
import { figure7, figure8 } from './figures/scale.mjs';
import { figure2 } from './figures/serve-list.mjs';
import { figure13 } from './figures/sharing.mjs';
import { figure6 } from './figures/server.mjs';
import { figure1 } from './figures/startup.mjs';
import { BENCH, DIST, NODE, PM, ROOT } from './lib/env.mjs';
import { opts, Q, SIZES } from './lib/options.mjs';
import { cleanEnv, removeDir, removeTmpDirs, runTimed, tmpDir } from './lib/processes.mjs';
import { fmt, git, newestMtime, table } from './lib/report.mjs';
import { say } from './lib/stats.mjs';

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
  7: ['pm serve at scale: 10k, 100k and 1M properties beside 1,000 of another account, and by hand', figure7],
  8: ['pm serve at scale on PostgreSQL: the same', figure8],
  9: ['calendar feed polls/second', figure9],
  10: ["search isolation: another account's matches do not change a search's cost", figure10],
  11: ['files: a big attachment through pm and pm serve, vs curl and node:http', figure11],
  12: ["large calendar feeds: another account's GET, pm serve's memory and stop under 8 at once", figure12],
  13: ["files shared: another account's GET during uploads and downloads; memory of downloads not read", figure13],
  14: ['this build against another at 1,000 properties (--against DIR)', figure14],
};

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
      removeTmpDirs();
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
