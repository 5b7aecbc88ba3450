/**
 * pm auth: the token comes from stdin or a prompt, is stored 0600, and is never printed.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPm, tempHome } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

describe('pm auth', () => {
  it('logs in with --with-token, uses the stored token, and logs out', async () => {
    const home = tempHome();
    const token = (await server.newAccount()).token;
    const login = await runPm(['auth', 'login', '--base-url', server.url, '--with-token'], {
      home,
      stdin: `${token}\n`,
    });
    expect(login.stderr).toContain('Logged in');
    expect(login.code).toBe(0);
    const file = join(home, '.config', 'pm', 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain(token);

    const created = await runPm(['reminders', 'create', '--title', 'after login', '-q'], { home });
    expect(created.code).toBe(0);

    const status = await runPm(['auth', 'status'], { home });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(server.url);
    expect(status.stdout).toContain('accepted');
    expect(status.stdout + status.stderr).not.toContain(token);

    const logout = await runPm(['auth', 'logout'], { home });
    expect(logout.code).toBe(0);
    expect(readFileSync(file, 'utf8')).not.toContain(token);
    // It says what is left configured, and how to clear it.
    expect(logout.stderr).toContain(
      `The base URL ${server.url} is still configured (${file}), without a token: \`pm auth login\` to log in again, or \`pm config unset base_url\` to use the embedded default.`,
    );
    const after = await runPm(['reminders', 'list'], { home });
    expect(after.code).toBe(4);
    expect(after.stderr).toContain('pm auth login');
  });

  it('does not store a token the server refuses', async () => {
    const home = tempHome();
    const r = await runPm(['auth', 'login', '--base-url', server.url, '--with-token'], {
      home,
      stdin: 'pm_not_a_token',
    });
    expect(r.code).toBe(4);
    expect(r.stderr).not.toContain('pm_not_a_token');
    expect((await runPm(['config', 'get', 'base_url'], { home })).stdout).toBe('');
  });

  it('asks without echo on a terminal, and never without one', async () => {
    const home = tempHome();
    const token = (await server.newAccount()).token;
    const asked: string[] = [];
    const r = await runPm(['--profile', 'work', 'auth', 'login', '--base-url', server.url], {
      home,
      tty: true,
      prompter: {
        confirm: async () => false,
        secret: async (q) => {
          asked.push(q);
          return token;
        },
      },
    });
    expect(r.code).toBe(0);
    expect(asked[0]).toContain(server.url);
    expect((await runPm(['--profile', 'work', 'reminders', 'list'], { home })).code).toBe(0);

    const none = await runPm(['auth', 'login', '--base-url', server.url], { home: tempHome() });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--with-token');
  });
});
