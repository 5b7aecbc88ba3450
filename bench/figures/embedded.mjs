/**
 * Figure 3: list, get and create on the embedded default (no server configured).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { NODE, PM } from '../lib/env.mjs';
import { SIZES } from '../lib/options.mjs';
import { cleanEnv, mustSucceed, runTimed, tmpDir } from '../lib/processes.mjs';
import { seed } from '../lib/seed.mjs';
import { interleave, median, row, timeRatio } from '../lib/stats.mjs';

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

export async function figure3() {
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
export async function figure3Get() {
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
export async function figure3Create() {
  const env = await embeddedEnv();
  const pmArgs = [PM, 'reminders', 'create', '--title', 'Check the smoke alarms', '--due-at', '2027-03-01', '--json'];
  const made = JSON.parse(
    mustSucceed('pm reminders create', await runTimed(NODE, pmArgs, { env, stdout: 'capture' })).stdout,
  );
  if (made?.title !== 'Check the smoke alarms') throw new Error(`pm reminders create printed ${JSON.stringify(made)}`);
  return [await embeddedRow('3c', 'pm reminders create --json', pmArgs, env, 'a reminder written on each run')];
}
