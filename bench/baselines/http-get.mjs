// Figure 2's baseline: the request `pm properties list --json` makes, with Node's built-in http.
import http from 'node:http';

const url = new URL('/properties', process.env.PM_BASE_URL);
const headers = { authorization: `Bearer ${process.env.PM_TOKEN}`, accept: 'application/json' };
http.get(url, { headers }, (res) => {
  const chunks = [];
  res.on('data', (c) => chunks.push(c));
  res.on('end', () => process.stdout.write(Buffer.concat(chunks)));
  if (res.statusCode !== 200) process.exitCode = 1;
});
