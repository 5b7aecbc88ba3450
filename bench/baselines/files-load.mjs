/**
 * The load of figure 13, in a process of its own so that it does not slow the probe's:
 * `upload URL TOKEN PROPERTY N MIB` runs N uploads of MIB MiB at once and exits;
 * `download URL TOKEN FILE N` runs N downloads of FILE again and again, read as they come, until
 * it is stopped.
 */
import { randomFillSync } from 'node:crypto';

const [mode, url, token, target, n] = process.argv.slice(2);
const headers = { authorization: `Bearer ${token}` };
if (mode === 'upload') {
  const body = randomFillSync(Buffer.allocUnsafe(Number(process.argv[7]) * 1024 * 1024));
  await Promise.all(
    Array.from({ length: Number(n) }, async () => {
      const res = await fetch(`${url}/properties/${target}/attachments?name=u.bin`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/octet-stream' },
        body,
      });
      await res.arrayBuffer();
      if (res.status !== 201) throw new Error(`upload answered ${res.status}`);
    }),
  );
} else {
  const one = async () => {
    for (;;) {
      const res = await fetch(`${url}/attachments/${target}/download`, { headers });
      for await (const _ of res.body);
    }
  };
  await Promise.all(Array.from({ length: Number(n) }, one));
}
