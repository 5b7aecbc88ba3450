/**
 * Figure 2: pm properties list --json against pm serve, beside a node:http GET of the same page.
 */
import { join } from 'node:path';
import { baseline, NODE, PM } from '../lib/env.mjs';
import { SIZES } from '../lib/options.mjs';
import { cleanEnv, mustSucceed, runTimed, startPmServe, tmpDir } from '../lib/processes.mjs';
import { seed } from '../lib/seed.mjs';
import { interleave, median, row, timeRatio } from '../lib/stats.mjs';

export async function figure2() {
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
