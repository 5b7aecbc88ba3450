/** startServer and the data file: first-run token, restarts, and what a 500 looks like. */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tokenFileFor } from '../../src/core/paths.js';
import { ALL_SCOPES } from '../../src/resources/index.js';
import { bootstrap, openStore, readLocalToken, startServer } from '../../src/server/index.js';
import { makeApi, startTestServer } from '../helpers/server.js';
import { reminderBody } from './fixtures.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pm-startup-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('first start on a new data file', () => {
  it('creates the file (and its directory), an account, and a full-scope token written beside it, mode 0600', async () => {
    const dataFile = join(dir, 'nested', 'pm.db');
    const server = await startServer({ dataFile, port: 0 });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(server.createdToken).toMatch(/^pm_[A-Za-z0-9_-]{43}$/);
      const tokenFile = tokenFileFor(dataFile);
      expect(tokenFile).toBe(`${dataFile}.token`);
      expect(readFileSync(tokenFile, 'utf8')).toBe(`${server.createdToken}\n`);
      expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
      expect(readLocalToken(dataFile)).toBe(server.createdToken);
      const tokens = server.store.listTokens();
      expect(tokens).toHaveLength(1);
      expect(tokens[0]?.scopes.sort()).toEqual([...ALL_SCOPES].sort());
      const res = await makeApi(server.url, server.createdToken as string)('GET', '/properties');
      expect(res.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('a restart keeps the data and the token and makes no new one', async () => {
    const dataFile = join(dir, 'pm.db');
    const first = await startServer({ dataFile, port: 0 });
    const token = first.createdToken as string;
    await makeApi(first.url, token)('POST', '/reminders', reminderBody());
    await first.close();
    const second = await startServer({ dataFile, port: 0 });
    try {
      expect(second.createdToken).toBeUndefined();
      const res = await makeApi(second.url, token)('GET', '/reminders');
      expect(res.body.data.map((r: { title: string }) => r.title)).toEqual(['Renew insurance']);
      expect(second.store.listTokens()).toHaveLength(1);
    } finally {
      await second.close();
    }
  });

  it('bootstrap with ensure renews a deleted token file; the old token still works', () => {
    const dataFile = join(dir, 'pm.db');
    const store = openStore(dataFile);
    try {
      const first = bootstrap(store) as string;
      expect(bootstrap(store, { ensure: true })).toBeUndefined();
      unlinkSync(tokenFileFor(dataFile));
      const renewed = bootstrap(store, { ensure: true }) as string;
      expect(renewed).toMatch(/^pm_/);
      expect(renewed).not.toBe(first);
      expect(readLocalToken(dataFile)).toBe(renewed);
      expect(store.listTokens().map((t) => t.name)).toEqual(['local', 'local (renewed)']);
      expect(store.authenticate(first)).toBeDefined();
      expect(store.db.prepare('SELECT COUNT(*) AS n FROM accounts').get()).toEqual({ n: 1 });
    } finally {
      store.close();
    }
  });

  it('a port in use is an error from startServer, not a crash', async () => {
    const a = await startServer({ dataFile: join(dir, 'a.db'), port: 0 });
    try {
      await expect(startServer({ dataFile: join(dir, 'b.db'), port: a.port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await a.close();
    }
  });

  it('close is idempotent', async () => {
    const s = await startServer({ dataFile: join(dir, 'pm.db'), port: 0 });
    await s.close();
    await s.close();
    expect(existsSync(join(dir, 'pm.db'))).toBe(true);
  });
});

describe('unexpected errors', () => {
  it('are a 500 with {"message": "Server Error"} and no internals; the error goes to the log', async () => {
    const server = await startTestServer();
    try {
      server.sqlite.db.close();
      const res = await server.api('GET', '/reminders');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ message: 'Server Error', request_id: res.headers.get('x-request-id') });
      expect(res.text).not.toMatch(/database|sqlite|at \w+ \(/i);
      expect(server.loggedErrors).toHaveLength(1);
      expect(String(server.loggedErrors[0])).toMatch(/database/i);
      server.loggedErrors.length = 0;
    } finally {
      await server.close();
    }
  });
});
