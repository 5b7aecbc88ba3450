// Figure 6c's peer: json-server 0.17 (a popular mock REST server) serving the same properties from
// a JSON file, in a process of its own, as its CLI does (its default middlewares, no logging).
// Usage: node json-server.mjs DB_JSON. Prints "listening on URL" on stderr, as pm serve does.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const jsonServer = require('json-server');
const server = jsonServer.create();
server.use(jsonServer.defaults({ logger: false }));
server.use(jsonServer.router(process.argv[2]));
const listener = server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`json-server: listening on http://127.0.0.1:${listener.address().port}\n`);
});
const stop = () => listener.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
