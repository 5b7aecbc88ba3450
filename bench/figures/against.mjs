/**
 * Figure 14: this build's pm serve beside another checkout's, at 1,000 properties: whether any
 * request kind got slower where most accounts are.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { NODE } from '../lib/env.mjs';
import { opts, SIZES } from '../lib/options.mjs';
import { cleanEnv, getJson, removeDir, startListening, tmpDir } from '../lib/processes.mjs';
import { seedProperties } from '../lib/seed.mjs';
import { interleave, median, progress, row } from '../lib/stats.mjs';
import { SCALE_KINDS, timeMs } from './scale.mjs';
import { ROOT } from '../lib/env.mjs';

const SIZE = 1_000;

/** pm serve of the checkout at `root` on a data file of SIZE properties its own build wrote. */
async function serveBuild(root) {
  const dir = tmpDir('against');
  const home = tmpDir('home');
  const data = join(dir, 'pm.db');
  await seedProperties(data, SIZE, { dist: join(root, 'dist') });
  const s = await startListening(
    `pm serve of ${root}`,
    NODE,
    [join(root, 'bin', 'pm'), 'serve', '--port', '0', '--data', data],
    cleanEnv(home),
  );
  const token = readFileSync(`${data}.token`, 'utf8').trim();
  const uuids = (await getJson(`${s.url}/properties?per_page=100&page=3`, token)).data.map((r) => r.uuid);
  return {
    url: s.url,
    token,
    uuids,
    stop: async () => {
      await s.stop();
      removeDir(dir);
      removeDir(home);
    },
  };
}

export async function figure14() {
  if (!opts.against) throw new Error('figure 14 needs --against DIR: another checkout of pm, built');
  const other = resolve(opts.against);
  const sides = [await serveBuild(ROOT), await serveBuild(other)];
  try {
    const rows = [];
    const per = 10;
    for (const [letter, name, path] of SCALE_KINDS) {
      progress(`against: ${name}`);
      const request = (side, i) => ({ url: side.url + path(SIZE, i, side.uuids), token: side.token });
      const totals = [];
      for (const side of sides) {
        totals.push((await getJson(request(side, 0).url, side.token)).meta?.pagination?.total);
        await timeMs(5, (i) => request(side, i));
      }
      if (totals[0] !== totals[1]) throw new Error(`${name}: this build counted ${totals[0]}, the other ${totals[1]}`);
      const ms = sides.map(() => []);
      await interleave(
        SIZES.againstRounds,
        sides.map((side, j) => async () => {
          const from = ms[j].length;
          ms[j].push(...(await timeMs(per, (i) => request(side, from + i))));
          return 0;
        }),
        { warmup: 0 },
      );
      const [now, then] = ms.map(median);
      rows.push(
        row(`14${letter}`, `${name} at ${SIZE.toLocaleString('en')}: this build vs ${other}`, {
          pm: now,
          base: then,
          unit: 'ms',
          ratio: now / then,
          target: { op: '<=', value: 1.2 },
          note: `p50 of ${SIZES.againstRounds * per} requests a side, ${SIZES.againstRounds} rounds in turns, one keep-alive connection each`,
        }),
      );
    }
    return rows;
  } finally {
    await Promise.all(sides.map((s) => s.stop()));
  }
}
