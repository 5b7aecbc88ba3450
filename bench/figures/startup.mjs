/**
 * Figure 1: start-up, pm --version and pm --help against node -e 0.
 */
import { NODE, PM } from '../lib/env.mjs';
import { SIZES } from '../lib/options.mjs';
import { cleanEnv, mustSucceed, runTimed, tmpDir } from '../lib/processes.mjs';
import { interleave, median, row, timeRatio } from '../lib/stats.mjs';

export async function figure1() {
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
