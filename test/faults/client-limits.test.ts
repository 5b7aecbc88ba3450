/**
 * What pm holds of a server's answers, against servers that send too much on purpose: a list
 * whose links.next never ends, an answer larger than pm reads, JSON nested deeper than a stack.
 * Each is a clear error, in bounded time and memory (see docs/security.md).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/client/outcome.js';
import { BIN, spawnCollect, tempHome, pmAgainstServer } from '../helpers/cli.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let open: Server | undefined;
afterEach(async () => {
  open?.closeAllConnections();
  await new Promise((resolve) => open?.close(resolve));
  open = undefined;
});

/** A server on loopback that answers every request with `handler`; its URL, and the paths it was asked. */
async function serve(handler: Handler): Promise<{ url: string; paths: string[] }> {
  const paths: string[] = [];
  open = createServer((req, res) => {
    paths.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => open?.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(open.address() as AddressInfo).port}`, paths };
}

const json = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const pm = (url: string, args: string[]) =>
  pmAgainstServer(() => ({ url, token: 'pm_test_token_xxxxxxxx' }), { env: { PM_RETRY_BASE_MS: '1' } })(args);

describe('pm api --paginate', () => {
  it('stops at a links.next already read, with a clear error, instead of reading it 10,000 times', async () => {
    const s = await serve((_req, res) =>
      json(res, { data: [{ n: 1 }], meta: { pagination: { links: { next: '/things?page=2' } } } }),
    );
    const r = await pm(s.url, ['api', 'GET', '/things', '--paginate']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `--paginate stopped after 2 pages: the server's links.next is ${s.url}/things?page=2, a page already read.`,
    );
    expect(r.stdout).toBe('');
    expect(s.paths).toEqual(['/things', '/things?page=2']);
  });

  it('stops when links.next does not move on to a later page, whatever else changes in it', async () => {
    let n = 0;
    const s = await serve((req, res) => {
      n++;
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? 1);
      json(res, {
        data: [{ n }],
        meta: { pagination: { current_page: page, links: { next: `/things?page=2&nonce=${n}` } } },
      });
    });
    const r = await pm(s.url, ['api', 'GET', '/things', '--paginate']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "--paginate stopped after 2 pages: the server's links.next goes from page 2 back to page 2",
    );
    expect(s.paths).toHaveLength(2);
  });

  it('follows a list that ends, page after page, into one document', async () => {
    const s = await serve((req, res) => {
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? 1);
      const next = page < 3 ? `/things?page=${page + 1}` : null;
      json(res, { data: [{ page }], meta: { pagination: { current_page: page, links: { next } } } });
    });
    const r = await pm(s.url, ['api', 'GET', '/things', '--paginate']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ data: [{ page: 1 }, { page: 2 }, { page: 3 }] });
  });
});

/**
 * bin/pm as a user runs it, with a preload that reports the process's peak resident memory (MB)
 * on its last line of stderr.
 */
async function pmMeasured(url: string, args: string[]): Promise<{ code: number; stderr: string; peakMb: number }> {
  const probe = join(mkdtempSync(join(tmpdir(), 'pm-rss-')), 'rss.cjs');
  writeFileSync(
    probe,
    "process.on('exit', () => process.stderr.write('peak ' + Math.round(process.resourceUsage().maxRSS / 1024) + '\\n'));\n",
  );
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: tempHome(),
    PM_BASE_URL: url,
    PM_TOKEN: 'pm_test_xxxxxxxx',
  };
  const r = await spawnCollect(process.execPath, ['--require', probe, BIN, ...args], { env });
  const peak = /peak (\d+)\n$/.exec(r.stderr);
  expect(peak, r.stderr).not.toBeNull();
  return { code: r.code, stderr: r.stderr.replace(/peak \d+\n$/, ''), peakMb: Number(peak?.[1]) };
}

describe('the 64 MiB answer cap (bin/pm)', () => {
  it('is enforced while reading, in bounded memory: an endless answer costs about the cap, not its parse', async () => {
    const s = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.startsWith('/small')) {
        res.end('{"data":[]}');
        return;
      }
      // Records without end: a valid beginning of JSON that pm would parse if it kept it.
      res.write('{"data":[');
      const chunk = Buffer.from('{"uuid":"3f2a9c1e-5b7d-4c1a-9e0f-2b6d8a4c7e15","title":"x"},'.repeat(2000));
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const small = await pmMeasured(s.url, ['api', 'GET', '/small']);
    expect(small.code).toBe(0);
    const big = await pmMeasured(s.url, ['api', 'GET', '/big']);
    expect(big.code).toBe(1);
    expect(big.stderr).toBe(
      'error: unexpected answer from the server: the server answered 200, but its answer is larger than 64 MiB\n',
    );
    // The cap and little more (it was some 280 MB more: the part read was parsed).
    expect(big.peakMb - small.peakMb).toBeLessThan(64 + 48);
  });
});

describe('JSON nested deeper than a stack (bin/pm)', () => {
  it('10 MB of brackets is a clear error (exit 1), not a stack overflow', async () => {
    const deep = `{"data":${'['.repeat(5_000_000)}${']'.repeat(5_000_000)}}`;
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(deep);
    });
    const message = `error: unexpected answer from the server: the server answered 200, but its answer is JSON nested more than ${MAX_JSON_DEPTH} levels deep, deeper than pm reads\n`;
    for (const args of [
      ['api', 'GET', '/reminders'],
      ['reminders', 'list'],
    ]) {
      const r = await pmMeasured(s.url, args);
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 1, stderr: message });
    }
  });
});
