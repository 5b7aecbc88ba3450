// Figure 6's baseline: the server framework pm serve uses (hono on @hono/node-server), one bare
// JSON route, in a process of its own. Prints "listening on URL" on stderr, as pm serve does.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.get('/', (c) => c.json({ ok: true }));
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stderr.write(`bare hono: listening on http://127.0.0.1:${info.port}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
