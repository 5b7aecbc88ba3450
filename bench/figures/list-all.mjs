/**
 * Figure 5: pm reminders list --all, time and peak memory, beside undici paging the same list.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { baseline, NODE, PM, TIME } from '../lib/env.mjs';
import { SIZES } from '../lib/options.mjs';
import { cleanEnv, mustSucceed, runTimed, startPmServe, tmpDir } from '../lib/processes.mjs';
import { seed } from '../lib/seed.mjs';
import { interleave, median, row, say, timeRatio } from '../lib/stats.mjs';

export async function figure5() {
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
