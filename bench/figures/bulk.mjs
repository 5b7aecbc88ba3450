/**
 * Figure 4: bulk create of reminders against pm serve, beside undici sending the same bodies.
 */
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseline, NODE, PM } from '../lib/env.mjs';
import { SIZES } from '../lib/options.mjs';
import { cleanEnv, getJson, mustSucceed, runTimed, startPmServe, tmpDir } from '../lib/processes.mjs';
import { reminderBody } from '../lib/seed.mjs';
import { interleave, median, row } from '../lib/stats.mjs';

export async function figure4() {
  const dir = tmpDir('bulk');
  const home = tmpDir('home');
  const n = SIZES.bulkRecords;
  const c = String(SIZES.bulkConcurrency);
  const file = join(dir, 'reminders.ndjson');
  let text = '';
  for (let i = 0; i < n; i++) text += `${JSON.stringify(reminderBody(i))}\n`;
  writeFileSync(file, text);
  let run = 0;
  /** One side: a fresh data file and server, the client timed, the records counted after. */
  const side = (name, argsOf) => async () => {
    const db = `${name}-${++run}.db`;
    const data = join(dir, db);
    const server = await startPmServe(data, home);
    try {
      const env = cleanEnv(home, { PM_BASE_URL: server.url, PM_TOKEN: server.token });
      const r = mustSucceed(`${name} bulk create`, await runTimed(NODE, argsOf(), { env }));
      const got = await getJson(`${server.url}/reminders?per_page=1`, server.token);
      if (got.meta.pagination.total !== n)
        throw new Error(`${name} bulk create left ${got.meta.pagination.total} reminders, not ${n}`);
      return n / (r.ms / 1000);
    } finally {
      await server.stop();
      for (const f of readdirSync(dir)) if (f.startsWith(db)) rmSync(join(dir, f), { force: true });
    }
  };
  const [pm, raw] = await interleave(
    SIZES.bulkRounds,
    [
      side('pm', () => [PM, 'reminders', 'create', '--from-file', file, '--concurrency', c]),
      side('raw', () => [baseline('bulk-undici.mjs'), file, c]),
    ],
    { warmup: 0, label: 'bulk create' },
  );
  return [
    row('4', `bulk create ${n.toLocaleString('en')} reminders, concurrency ${c}: pm vs undici`, {
      pm: median(pm),
      base: median(raw),
      unit: 'rec/s',
      ratio: median(pm) / median(raw),
      target: { op: '>=', value: 0.9 },
      samples: { pm, baseline: raw },
      note: 'throughput, each side on a fresh data file and server; process start-up included',
    }),
  ];
}
