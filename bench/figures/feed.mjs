/**
 * Figure 9: calendar feed polls per second, 304s and a full feed, beside GET /reminders.
 */
import { join } from 'node:path';
import { SIZES } from '../lib/options.mjs';
import { startPmServe, tmpDir } from '../lib/processes.mjs';
import { seed } from '../lib/seed.mjs';
import { interleave, median, row } from '../lib/stats.mjs';

/**
 * Figure 9: a calendar feed as calendar apps poll it. With nothing new, a poll sends its ETag
 * and gets a 304 (one indexed statement: no reminder is read); when something changed, it gets
 * the whole calendar of the account's 1,000 reminders. Both against the same server's
 * GET /reminders?per_page=100 with a token, the API's everyday read.
 */
export async function figure9() {
  const { default: autocannon } = await import('autocannon');
  const dir = tmpDir('feed');
  const home = tmpDir('home');
  const data = join(dir, 'pm.db');
  const reminders = 1000;
  await seed(data, { reminders });
  const server = await startPmServe(data, home);
  try {
    const auth = { authorization: `Bearer ${server.token}`, accept: 'application/json' };
    const made = await fetch(`${server.url}/calendar-feeds`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    });
    if (made.status !== 201) throw new Error(`POST /calendar-feeds: ${made.status} ${await made.text()}`);
    const feedUrl = (await made.json()).data.url;
    const first = await fetch(feedUrl);
    const text = await first.text();
    const events = text.split('BEGIN:VEVENT').length - 1;
    if (first.status !== 200 || events !== reminders)
      throw new Error(`the feed answered ${first.status} with ${events} events; expected 200 with ${reminders}`);
    const etag = first.headers.get('etag');
    const targets = {
      list: { url: `${server.url}/reminders?per_page=100`, method: 'GET', headers: auth },
      poll: { url: feedUrl, method: 'GET', headers: { 'if-none-match': etag } },
      full: { url: feedUrl, method: 'GET' },
    };
    const expected = { list: 200, poll: 304, full: 200 };
    const cannon = (name, duration) => async () => {
      let wrong = 0;
      const result = await autocannon({
        ...targets[name],
        connections: SIZES.cannonConnections,
        duration,
        setupClient: (client) =>
          client.on('response', (status) => {
            if (status !== expected[name]) wrong++;
          }),
      });
      if (wrong || result.errors || result.timeouts)
        throw new Error(
          `autocannon ${name}: ${wrong} answers other than ${expected[name]}, ${result.errors} errors, ${result.timeouts} timeouts`,
        );
      return result.requests.average;
    };
    const names = ['list', 'poll', 'full'];
    for (const name of names) await cannon(name, SIZES.cannonWarmupSeconds)();
    const [l, p, f] = await interleave(
      SIZES.cannonRounds,
      names.map((name) => cannon(name, SIZES.cannonSeconds)),
      { warmup: 0, label: 'autocannon' },
    );
    const note = `${SIZES.cannonConnections} connections, ${SIZES.cannonSeconds} s a run, median of ${SIZES.cannonRounds}; ${reminders.toLocaleString('en')} reminders`;
    return [
      row('9a', 'feed poll with nothing new (If-None-Match: 304) vs GET /reminders?per_page=100', {
        pm: median(p),
        base: median(l),
        unit: 'req/s',
        ratio: median(p) / median(l),
        samples: { pm: p, baseline: l },
        note,
      }),
      row('9b', 'full feed (200, 1,000 events) vs GET /reminders?per_page=100', {
        pm: median(f),
        base: median(l),
        unit: 'req/s',
        ratio: median(f) / median(l),
        samples: { pm: f, baseline: l },
        note: `${note}; ${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB of iCalendar`,
      }),
    ];
  } finally {
    await server.stop();
  }
}
