/**
 * TLS, proxies and where the token may go: certificates are always verified, extra CAs come from
 * NODE_EXTRA_CA_CERTS, proxies from HTTPS_PROXY / HTTP_PROXY / NO_PROXY (of the environment pm
 * is given), and a token never goes over plain http to anything but this machine.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/client/transport.js';
import { runPm, pmAgainstServer } from '../helpers/cli.js';
import {
  type FaultyServer,
  startFaultyServer,
  startTestProxy,
  TEST_CA_FILE,
  type TestProxy,
} from '../helpers/faulty-server.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let tls: FaultyServer;
let proxy: TestProxy;
let acct: Account;

const pm = pmAgainstServer(() => ({ url: tls.url, token: acct.token }), { env: { PM_RETRY_BASE_MS: '10' } });

async function titles(title: string): Promise<number> {
  const res = await acct.api('GET', `/reminders?title=${encodeURIComponent(title)}`);
  return res.body.data.filter((r: { title: string }) => r.title === title).length;
}

beforeAll(async () => {
  server = await startTestServer();
  acct = await server.newAccount();
  tls = await startFaultyServer({ upstream: server.url, tls: true });
  proxy = await startTestProxy();
});
afterAll(async () => {
  await proxy.close();
  await tls.close();
  await server.close();
});
afterEach(() => {
  tls.reset();
  proxy.tunnels.length = 0;
});

describe('TLS', () => {
  it('a certificate from an unknown authority is refused: exit 5, with what to do', async () => {
    const r = await pm(['reminders', 'list']);
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(
      `error: could not reach ${tls.url}: the server's certificate is not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE)\n` +
        'pm always verifies TLS certificates. If the server uses a private certificate authority, set NODE_EXTRA_CA_CERTS to its PEM file.\n',
    );
    expect(tls.requests).toHaveLength(0);
  });

  it('NODE_EXTRA_CA_CERTS (of the environment pm is given) adds a trusted authority', async () => {
    const r = await pm(['reminders', 'list'], { env: { NODE_EXTRA_CA_CERTS: TEST_CA_FILE } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(tls.count('GET')).toBe(1);
  });

  it('an unreadable NODE_EXTRA_CA_CERTS is named', async () => {
    const r = await pm(['reminders', 'list'], { env: { NODE_EXTRA_CA_CERTS: '/nonexistent/ca.pem' } });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('cannot read NODE_EXTRA_CA_CERTS (/nonexistent/ca.pem): ENOENT');
  });

  it('NODE_TLS_REJECT_UNAUTHORIZED=0 does not turn verification off', async () => {
    const before = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    const warn = process.emitWarning;
    process.emitWarning = () => {};
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    try {
      const r = await pm(['reminders', 'list'], { env: { NODE_TLS_REJECT_UNAUTHORIZED: '0' } });
      expect(r.code).toBe(5);
      expect(r.stderr).toContain("the server's certificate is not trusted");
    } finally {
      if (before === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = before;
      process.emitWarning = warn;
    }
  });

  it('a host name the certificate does not cover is refused', async () => {
    // 127.0.0.2 is this machine too, but not in the certificate.
    const other = await startFaultyServer({ upstream: server.url, tls: true, host: '127.0.0.2' });
    try {
      const r = await pm(['reminders', 'list'], { env: { NODE_EXTRA_CA_CERTS: TEST_CA_FILE, PM_BASE_URL: other.url } });
      expect(r.code).toBe(5);
      expect(r.stderr).toContain("the server's certificate is not trusted (ERR_TLS_CERT_ALTNAME_INVALID)");
      expect(other.requests).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it('a POST whose connection is reset during the TLS handshake was certainly not sent: retried, created once', async () => {
    tls.scriptConnections('reset-on-first-bytes', 'reset-on-first-bytes');
    const r = await pm(['reminders', 'create', '--title', 'handshake reset', '-q'], {
      env: { NODE_EXTRA_CA_CERTS: TEST_CA_FILE },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(tls.connections.slice(0, 3)).toEqual(['reset-on-first-bytes', 'reset-on-first-bytes', 'serve']);
    expect(tls.count('POST')).toBe(1);
    expect(await titles('handshake reset')).toBe(1);
  });
});

describe('proxies', () => {
  it('HTTPS_PROXY: the request goes through the proxy (a CONNECT tunnel), TLS verified end to end', async () => {
    const base = `https://pm.test:${tls.port}`;
    const r = await pm(['reminders', 'list'], {
      env: { PM_BASE_URL: base, HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: TEST_CA_FILE },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(proxy.tunnels).toEqual([`pm.test:${tls.port}`]);
    expect(tls.count('GET')).toBe(1);
  });

  it('lower-case https_proxy too; the proxy with credentials is redacted in --debug', async () => {
    const withUser = proxy.url.replace('http://', 'http://user:secret@');
    const r = await pm(['--debug', 'reminders', 'list'], {
      env: { PM_BASE_URL: `https://pm.test:${tls.port}`, https_proxy: withUser, NODE_EXTRA_CA_CERTS: TEST_CA_FILE },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`* proxy: ${proxy.url.replace('http://', 'http://***@')}/`);
    expect(r.stderr).not.toContain('secret');
    expect(proxy.tunnels).toHaveLength(1);
  });

  it('a proxy that refuses the tunnel (407): exit 5, saying so, not "interrupted"', async () => {
    const strict = await startTestProxy({ refuse: 407 });
    try {
      const r = await pm(['reminders', 'list'], {
        env: { PM_BASE_URL: `https://pm.test:${tls.port}`, HTTPS_PROXY: strict.url, NODE_EXTRA_CA_CERTS: TEST_CA_FILE },
      });
      expect(r.code).toBe(5);
      expect(r.stderr).toBe(
        `error: could not reach https://pm.test:${tls.port}: the proxy refused to connect to it (407: the proxy wants credentials)\n` +
          'Put the proxy credentials in its URL: HTTPS_PROXY=http://user:password@proxy:port.\n',
      );
      expect(strict.tunnels).toHaveLength(1);
    } finally {
      await strict.close();
    }
  });

  it('NO_PROXY: a listed host is reached directly', async () => {
    // 0.0.0.0 is this machine, reached without a name lookup, and not what pm counts as loopback.
    const r = await pm(['reminders', 'list'], {
      env: {
        PM_BASE_URL: `https://0.0.0.0:${tls.port}`,
        HTTPS_PROXY: proxy.url,
        NO_PROXY: 'example.com,0.0.0.0',
        NODE_EXTRA_CA_CERTS: TEST_CA_FILE,
      },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(proxy.tunnels).toEqual([]);
    const via = await pm(['reminders', 'list'], {
      env: { PM_BASE_URL: `https://0.0.0.0:${tls.port}`, HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: TEST_CA_FILE },
    });
    expect(via.code).toBe(0);
    expect(proxy.tunnels).toEqual([`0.0.0.0:${tls.port}`]);
  });

  it('this machine is never reached through a proxy', async () => {
    const r = await pm(['reminders', 'list'], {
      env: { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: TEST_CA_FILE },
    });
    expect(r.code).toBe(0);
    expect(proxy.tunnels).toEqual([]);
  });

  it('proxy variables of the process are not read: only those of the environment pm is given', async () => {
    const before = process.env.HTTPS_PROXY;
    process.env.HTTPS_PROXY = proxy.url;
    try {
      const r = await pm(['reminders', 'list'], {
        env: { PM_BASE_URL: `https://0.0.0.0:${tls.port}`, NODE_EXTRA_CA_CERTS: TEST_CA_FILE },
      });
      expect(r.code).toBe(0);
      expect(proxy.tunnels).toEqual([]);
    } finally {
      if (before === undefined) delete process.env.HTTPS_PROXY;
      else process.env.HTTPS_PROXY = before;
    }
  });
});

describe('the token over plain http', () => {
  it('to a host that is not this machine: refused before anything is sent (exit 2, naming the flag)', async () => {
    const r = await pm(['reminders', 'list'], { env: { PM_BASE_URL: 'http://pm.example.test' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: refusing to send the token over plain http to pm.example.test: use an https base URL, or pass --allow-insecure-http.\n' +
        'Anyone on the network between could read the token; --allow-insecure-http is for networks you trust.\n',
    );
  });

  it('--allow-insecure-http lets it (shown with --dry-run, which sends nothing)', async () => {
    const r = await pm(['--allow-insecure-http', 'reminders', 'create', '--title', 'x', '--dry-run'], {
      env: { PM_BASE_URL: 'http://pm.example.test:8080' },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('POST http://pm.example.test:8080/reminders');
    expect(r.stdout).toContain('authorization: Bearer ***');
    expect(r.stdout).not.toContain(acct.token);
  });

  it('to this machine: allowed (localhost, 127.0.0.0/8, ::1)', async () => {
    const plain = await startFaultyServer({ upstream: server.url });
    try {
      for (const host of ['127.0.0.1', 'localhost']) {
        const r = await pm(['reminders', 'list'], { env: { PM_BASE_URL: plain.url.replace('127.0.0.1', host) } });
        expect(r.code, host).toBe(0);
      }
    } finally {
      await plain.close();
    }
  });

  it.each([
    ['localhost', true],
    ['LOCALHOST', true],
    ['localhost.', true],
    ['127.0.0.1', true],
    ['127.255.3.4', true],
    ['[::1]', true],
    ['::1', true],
    ['[0:0:0:0:0:0:0:1]', true],
    ['[::ffff:7f00:1]', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['128.0.0.1', false],
    ['10.0.0.1', false],
    ['localhost.example.com', false],
    ['foo.localhost', false],
    ['127.0.0.1.nip.io', false],
    ['[::2]', false],
    ['[::ffff:a00:1]', false],
  ])('%s is this machine: %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });

  it('no flag takes a token (it would be in the process list); pm config set refuses one', async () => {
    const help = await runPm(['--help']);
    expect(help.stdout).not.toMatch(/--token\b/);
    const r = await runPm(['reminders', 'list', '--token', 'pm_abc']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--token'");
  });
});
