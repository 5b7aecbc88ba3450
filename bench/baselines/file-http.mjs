// Figure 11's baseline: a plain node:http server that writes a request's body to a file (POST
// /<name>) and sends a file back (GET /<name>), streamed, in a process of its own. Prints
// "listening on URL" on stderr, as pm serve does. The directory is its one argument.
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const dir = process.argv[2];
const server = createServer(async (req, res) => {
  const file = join(dir, req.url.replace(/[^a-z0-9.]/gi, '') || 'file');
  try {
    if (req.method === 'POST') {
      await pipeline(req, createWriteStream(file));
      res.writeHead(201, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    } else if (req.method === 'GET') {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': statSync(file).size });
      await pipeline(createReadStream(file), res);
    } else res.writeHead(405).end();
  } catch {
    res.destroy();
  }
});
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`file node:http: listening on http://127.0.0.1:${server.address().port}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
