/**
 * Commands that print data other than records (auth status, config list, serve tokens list, a
 * resource's feeds, a delete's result, a bulk write's results, apply's plan) print it through the one output module, as the record commands do: --json
 * with fields, --jq, pretty on a terminal and compact when piped, unknown fields refused.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPm, tempHome } from '../helpers/cli.js';

describe('--json [fields] and --jq on data that is not records', () => {
  const home = tempHome();
  const env = { PM_DATA_FILE: join(home, 'team.db') };

  it('auth status: the fields asked for, compact when piped, pretty on a terminal', async () => {
    const piped = await runPm(['auth', 'status', '--offline', '--json', 'profile,token_source'], { home, env });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toBe('{"profile":"default","token_source":"embedded"}\n');
    const tty = await runPm(['auth', 'status', '--offline', '--json', 'profile'], { home, env, tty: true });
    expect(tty.stdout).toBe('{\n  "profile": "default"\n}\n');
  });

  it('config list: --jq, and a field it does not have refused before anything is read', async () => {
    const r = await runPm(['config', 'list', '--jq', '.sources.profile'], { home, env });
    expect(r).toMatchObject({ code: 0, stdout: 'none\n' });
    const bad = await runPm(['config', 'list', '--json', 'profile,colour'], { home, env });
    expect(bad.code).toBe(2);
    // With --json, the error is JSON too.
    expect(JSON.parse(bad.stderr).error).toMatchObject({
      message: '--json: unknown field "colour".',
      hint: 'Fields: profile, base_url, token, timeout, sources.',
      exit_code: 2,
    });
  });

  it('serve tokens list: each token with the fields asked for, never the token itself', async () => {
    const data = join(home, 'tokens.db');
    const made = await runPm(['serve', 'tokens', 'create', '--name', 'ci', '--data', data], { home });
    expect(made.code, made.stderr).toBe(0);
    const r = await runPm(['serve', 'tokens', 'list', '--data', data, '--json', 'name,revoked_at'], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { name: 'local', revoked_at: null },
      { name: 'ci', revoked_at: null },
    ]);
    expect(r.stdout).not.toContain(made.stdout.trim());
    const names = await runPm(['serve', 'tokens', 'list', '--data', data, '--jq', '.[].name'], { home });
    expect(names.stdout).toBe('local\nci\n');
  });
  it('delete: the result with the fields asked for, and a field it does not have refused before anything is deleted', async () => {
    const made = await runPm(['reminders', 'create', '--title', 'Gas safety check', '-q'], { home, env });
    expect(made.code, made.stderr).toBe(0);
    const uuid = made.stdout.trim();
    const bad = await runPm(['reminders', 'delete', uuid, '--yes', '--json', 'uuid,gone'], { home, env });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr).error.message).toBe('--json: unknown field "gone".');
    expect((await runPm(['reminders', 'get', uuid, '-q'], { home, env })).stdout.trim()).toBe(uuid);
    const r = await runPm(['reminders', 'delete', uuid, '--yes', '--json', 'uuid,deleted'], { home, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`[{"uuid":"${uuid}","deleted":true}]\n`);
    const again = await runPm(['reminders', 'delete', uuid, '--yes', '--ignore-not-found', '--jq', '.[].deleted'], {
      home,
      env,
    });
    expect(again).toMatchObject({ code: 0, stdout: 'true\n' });
  });
  it('bulk writes and apply: their results and plans with the fields asked for, --jq, and a bad field refused before anything is sent', async () => {
    const file = join(home, 'reminders.ndjson');
    writeFileSync(file, '{"title":"Boiler service"}\n{"title":"Smoke alarms"}\n');
    const bad = await runPm(['reminders', 'create', '--from-file', file, '--json', 'line,colour'], { home, env });
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr).error.message).toBe('--json: unknown field "colour".');
    const none = await runPm(['reminders', 'list', '--title', 'Boiler service', '-q'], { home, env });
    expect(none.stdout).toBe('');
    const made = await runPm(['reminders', 'create', '--from-file', file, '--json', 'line,status'], { home, env });
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toBe('[{"line":1,"status":"created"},{"line":2,"status":"created"}]\n');
    const plan = await runPm(
      ['reminders', 'apply', '--from-file', file, '--key', 'title', '--dry-run', '--jq', '.[].action'],
      { home, env },
    );
    expect(plan).toMatchObject({ code: 0, stdout: 'unchanged\nunchanged\n' });
    const applied = await runPm(['reminders', 'apply', '--from-file', file, '--key', 'title', '--json', 'status'], {
      home,
      env,
    });
    expect(applied).toMatchObject({ code: 0, stdout: '[{"status":"unchanged"},{"status":"unchanged"}]\n' });
  });
});
