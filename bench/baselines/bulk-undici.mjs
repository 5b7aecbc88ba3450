// Figure 4's baseline: POST each line of an NDJSON file to /reminders with undici, N in flight.
// Usage: node bulk-undici.mjs FILE.ndjson CONCURRENCY (PM_BASE_URL, PM_TOKEN in the environment).
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';

const [file, n = '8'] = process.argv.slice(2);
const concurrency = Number(n);
const base = new URL(process.env.PM_BASE_URL);
const headers = {
  authorization: `Bearer ${process.env.PM_TOKEN}`,
  accept: 'application/json',
  'content-type': 'application/json',
};
const lines = readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '');
const pool = new Pool(base.origin, { connections: concurrency });
let next = 0;
let created = 0;
let failed = 0;
async function worker() {
  while (next < lines.length) {
    const body = lines[next++];
    const res = await pool.request({ path: '/reminders', method: 'POST', headers, body });
    const answer = await res.body.json();
    if (res.statusCode === 201 && answer.data?.uuid) created++;
    else failed++;
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
await pool.close();
process.stdout.write(`created ${created}, failed ${failed}\n`);
if (failed) process.exitCode = 1;
