/**
 * `pm serve` as a user runs it: the built bin/pm, a startup line, a working API with the token
 * it wrote, token management, and a clean shutdown.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, pmBin, tempHome } from '../helpers/cli.js';

const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

function pm(args: string[], home: string) {
  return pmBin(args, { PATH: process.env.PATH ?? '', HOME: home });
}

async function serve(
  args: string[],
  home: string,
): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: home },
  });
  children.push(child);
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1] as string);
    });
    child.on('exit', (code) => reject(new Error(`pm serve exited ${code}: ${stderr}`)));
  });
  return { child, url, stderr: () => stderr };
}

describe('pm serve', () => {
  it('serves the API with the token it wrote beside the data file, and shuts down cleanly', async () => {
    const home = tempHome();
    const data = join(home, 'team.db');
    const s = await serve(['--data', data], home);
    expect(s.stderr()).toContain(data);
    expect(s.stderr()).toContain(`${data}.token`);
    expect(statSync(`${data}.token`).mode & 0o777).toBe(0o600);
    const token = readFileSync(`${data}.token`, 'utf8').trim();
    const created = await fetch(`${s.url}/reminders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'served' }),
    });
    expect(created.status).toBe(201);
    expect((await fetch(`${s.url}/reminders`)).status).toBe(401);
    const exited = new Promise<number | null>((resolve) => s.child.on('exit', (code) => resolve(code)));
    s.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(s.stderr()).not.toContain(token);
  });

  it('refuses to start with an --upload-dir it cannot write files in, naming it', async () => {
    const home = tempHome();
    const nowhere = join(home, 'nowhere');
    const r = await pm(['serve', '--port', '0', '--data', join(home, 'pm.db'), '--upload-dir', nowhere], home);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`uploads cannot wait in ${nowhere} (the upload folder): there is no such folder`);
  });

  it('Ctrl-C (SIGINT) shuts it down cleanly once, saying so once (exit 0, as SIGTERM)', async () => {
    const home = tempHome();
    const s = await serve(['--data', join(home, 'pm.db')], home);
    const exited = new Promise<number | null>((resolve) => s.child.on('exit', (code) => resolve(code)));
    s.child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(s.stderr().match(/shutting down/g)).toEqual(['shutting down']);
  });

  it('creates, lists and revokes tokens with scopes', async () => {
    const home = tempHome();
    const data = join(home, 'pm.db');
    const made = await pm(
      ['serve', 'tokens', 'create', '--data', data, '--scopes', 'reminders.read', '--name', 'ci'],
      home,
    );
    expect(made.code).toBe(0);
    const token = made.stdout.trim();
    expect(token).toMatch(/^pm_/);
    const listed = await pm(['serve', 'tokens', 'list', '--data', data, '--json'], home);
    const tokens = JSON.parse(listed.stdout) as { id: number; name: string; scopes: string[] }[];
    const ci = tokens.find((t) => t.name === 'ci');
    expect(ci?.scopes).toEqual(['reminders.read']);
    expect(listed.stdout).not.toContain(token);

    const s = await serve(['--data', data, '--rate-limit', '100/min'], home);
    const read = await fetch(`${s.url}/reminders`, { headers: { authorization: `Bearer ${token}` } });
    expect(read.status).toBe(200);
    expect(read.headers.get('x-ratelimit-limit')).toBe('100');
    const write = await fetch(`${s.url}/reminders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"title":"x"}',
    });
    expect(write.status).toBe(403);
    const revoked = await pm(['serve', 'tokens', 'revoke', String(ci?.id), '--data', data], home);
    expect(revoked.code).toBe(0);
    expect((await fetch(`${s.url}/reminders`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  it('the first command on a new data file sets it up as pm serve would: tokens create, accounts create', async () => {
    for (const first of [
      ['serve', 'tokens', 'create', '--scopes', 'reminders.read', '--name', 'ci'],
      ['serve', 'accounts', 'create', '--name', 'Acme'],
    ]) {
      const home = tempHome();
      const data = join(home, 'team.db');
      const made = await pm([...first, '--data', data], home);
      expect(made.code).toBe(0);
      expect(made.stderr).toContain(`new data file: created an account and a token, written to ${data}.token`);
      expect(statSync(`${data}.token`).mode & 0o777).toBe(0o600);
      // The embedded default on that file works with the token written beside it.
      const listed = await pmBin(['reminders', 'list'], {
        PATH: process.env.PATH ?? '',
        HOME: home,
        PM_DATA_FILE: data,
      });
      expect(listed.code, listed.stderr).toBe(0);
      // And pm serve on it later says nothing of a new file: it is set up already.
      const s = await serve(['--data', data], home);
      expect(s.stderr()).not.toContain('new data file');
      s.child.kill('SIGTERM');
    }
  });

  it('--quota limits the bytes of files an account keeps, naming it; accounts list shows what each keeps', async () => {
    const home = tempHome();
    const data = join(home, 'team.db');
    const s = await serve(['--data', data, '--quota', '2MiB'], home);
    const token = readFileSync(`${data}.token`, 'utf8').trim();
    const headers = { authorization: `Bearer ${token}` };
    const made = await fetch(`${s.url}/properties`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ address: '1 High Street', postcode: 'LS1 1AA' }),
    });
    const property = ((await made.json()) as { data: { uuid: string } }).data.uuid;
    const upload = (bytes: number) =>
      fetch(`${s.url}/properties/${property}/attachments?name=f.bin`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/octet-stream' },
        body: Buffer.alloc(bytes, 1),
      });
    expect((await upload(1_500_000)).status).toBe(201);
    const over = await upload(1_000_000);
    expect(over.status).toBe(413);
    expect(((await over.json()) as { message: string }).message).toContain('quota of 2 MiB (2097152 bytes)');
    const listed = await pm(['serve', 'accounts', 'list', '--data', data, '--quota', '2MiB'], home);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^1\tdefault\t1 file\t1500000 bytes of 2 MiB \(71%\)\n$/);
    const json = await pm(['serve', 'accounts', 'list', '--data', data, '--json'], home);
    expect(JSON.parse(json.stdout)).toEqual([{ id: 1, name: 'default', files: 1, bytes: 1_500_000, quota: null }]);
    const bad = await pm(['serve', '--data', data, '--quota', 'lots'], home);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--quota must be a size');
  });

  it('refuses bad flags with exit 2', async () => {
    const home = tempHome();
    expect((await pm(['serve', '--port', 'http'], home)).code).toBe(2);
    const r = await pm(['serve', '--rate-limit', 'lots', '--data', join(home, 'x.db')], home);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--rate-limit');
    const s = await pm(['serve', 'tokens', 'create', '--scopes', 'everything', '--data', join(home, 'x.db')], home);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain('properties.read');
  });
});
