// Figure 6's baseline: the HTTP server pm serve uses (node:http), one bare JSON route, in a
// process of its own. Prints "listening on URL" on stderr, as pm serve does.
import { createServer } from 'node:http';

const body = JSON.stringify({ ok: true });
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/') {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  } else {
    res.writeHead(404).end();
  }
});
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`bare node:http: listening on http://127.0.0.1:${server.address().port}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
