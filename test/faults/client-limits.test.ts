/**
 * What pm holds of a server's answers, against servers that send too much on purpose: a list
 * whose links.next never ends, an answer larger than pm reads, JSON nested deeper than a stack.
 * Each is a clear error, in bounded time and memory (see docs/security.md).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runPm } from '../helpers/cli.js';

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
  runPm(args, { env: { PM_BASE_URL: url, PM_TOKEN: 'pm_test_token_xxxxxxxx', PM_RETRY_BASE_MS: '1' } });

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
