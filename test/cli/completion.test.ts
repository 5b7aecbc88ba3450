/**
 * Tab completion: the candidates `pm __complete` derives from the commander tree, the resource
 * descriptions and the API (cached, silent on failure), and the bash, zsh and fish scripts run
 * in their shells. The zsh and fish tests are skipped where those shells are not installed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_TTL_MS, TIMEOUT_MS } from '../../src/cli/commands/completion/limits.js';
import { TOPICS } from '../../src/cli/help/index.js';
import { type RunOptions, runPm, tempHome } from '../helpers/cli.js';
import { type FaultyServer, startFaultyServer } from '../helpers/faulty-server.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

const ROOT = join(import.meta.dirname, '..', '..');
const NOW = Date.parse('2026-11-21T12:00:00Z');

interface Completed {
  values: string[];
  /** value -> description */
  described: Record<string, string>;
  directive: string;
  stdout: string;
  stderr: string;
  code: number;
}

async function complete(words: string[], opts: RunOptions = {}): Promise<Completed> {
  const r = await runPm(['__complete', '--', ...words], { now: NOW, ...opts });
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  const last = lines.pop() ?? '';
  const described: Record<string, string> = {};
  const values = lines.map((l) => {
    const [v, d] = l.split('\t') as [string, string | undefined];
    if (d !== undefined) described[v] = d;
    return v;
  });
  return { values, described, directive: last, stdout: r.stdout, stderr: r.stderr, code: r.code };
}

// ------------------------------------------------------------------ from the commander tree

describe('pm __complete: commands, flags and values', () => {
  it('completes the commands, with their summaries, and never the hidden ones', async () => {
    const c = await complete(['']);
    expect(c.code).toBe(0);
    expect(c.stderr).toBe('');
    expect(c.directive).toBe(':');
    for (const name of ['properties', 'contacts', 'custom-fields', 'notes', 'reminders', 'api', 'auth', 'config'])
      expect(c.values).toContain(name);
    expect(c.values).toContain('completion');
    expect(c.values).toContain('help');
    expect(c.values).not.toContain('__complete');
    expect(c.described.properties).toMatch(/properties/);
    expect((await complete(['pro'])).values).toEqual(['properties']);
    expect((await complete(['c'])).values).toEqual([
      'contacts',
      'custom-fields',
      'competencies',
      'config',
      'completion',
    ]);
  });

  it('completes subcommands, two levels down too', async () => {
    expect((await complete(['properties', ''])).values).toEqual([
      'list',
      'get',
      'create',
      'update',
      'delete',
      'apply',
      'help',
    ]);
    expect((await complete(['notes', ''])).values).not.toContain('update');
    expect((await complete(['serve', 'tokens', ''])).values).toEqual(['create', 'list', 'revoke', 'help']);
    expect((await complete(['--profile', 'work', 'properties', 'l'])).values).toEqual(['list']);
  });

  it("completes a command's flags and the global ones, not those already given", async () => {
    const c = await complete(['properties', 'list', '--']);
    for (const f of ['--city', '--bedrooms', '--has-garage', '--no-has-garage', '--json', '--jq', '--all', '--help'])
      expect(c.values).toContain(f);
    for (const f of ['--base-url', '--profile', '--no-input']) expect(c.values).toContain(f);
    expect(c.values).not.toContain('--version');
    expect(c.described['--city']).toMatch(/city/);
    expect((await complete(['properties', 'list', '--ci'])).values).toEqual(['--city']);
    expect((await complete(['reminders', 'list', '--due'])).values).toEqual(['--due-at']);
    // Given once, a flag is not offered again; a repeatable one is; so is neither of a pair.
    const again = await complete(['properties', 'list', '--city', 'leeds', '--bedrooms', '3', '--has-garage', '--']);
    expect(again.values).not.toContain('--city');
    expect(again.values).toContain('--bedrooms');
    expect(again.values).not.toContain('--no-has-garage');
    expect(again.values).toContain('--has-garden');
    // After --, there are no flags.
    expect((await complete(['properties', 'get', '--', '--'])).values).toEqual([]);
  });

  it('completes choices and the values the descriptions know', async () => {
    expect((await complete(['properties', 'list', '-o', ''])).values).toEqual([
      'table',
      'json',
      'ndjson',
      'csv',
      'tsv',
    ]);
    expect((await complete(['properties', 'list', '--output', 'n'])).values).toEqual(['ndjson']);
    // A calendar is a format of the records that have a due date alone.
    expect((await complete(['reminders', 'list', '-o', 'i'])).values).toEqual(['ics']);
    expect((await complete(['properties', 'list', '-o', 'i'])).values).toEqual([]);
    expect((await complete(['completion', ''])).values).toEqual(['bash', 'zsh', 'fish']);
    const codes = await complete(['custom-fields', 'create', '--entity-type', '']);
    expect(codes.values).toEqual(['contact', 'property', '1', '2']);
    expect(codes.described['2']).toBe('Property');
    expect((await complete(['custom-fields', 'list', '--type', ''])).values).toEqual(['text', '1']);
    expect((await complete(['properties', 'update', 'u', '--unset', 'c'])).values).toEqual(['city', 'county']);
    expect((await complete(['properties', 'list', '--embed', ''])).values).toEqual([
      'custom_fields',
      'contact',
      'status',
    ]);
    expect((await complete(['contacts', 'list', '--embed', 'custom_fields,'])).values).toEqual([
      'custom_fields,status',
      'custom_fields,type',
      'custom_fields,competencies',
    ]);
  });

  it('completes field lists one name at a time, without a space after', async () => {
    const c = await complete(['properties', 'list', '--json', 'uuid,ci']);
    expect(c.values).toEqual(['uuid,city']);
    expect(c.directive).toBe(':nospace');
    const all = await complete(['reminders', 'list', '--fields', 'title,']);
    expect(all.values).toContain('title,due_at');
    expect(all.values).not.toContain('title,title');
    expect((await complete(['properties', 'list', '--json=uuid,pos'])).values).toEqual(['--json=uuid,postcode']);
    // --json's value is optional: a flag after it is a flag.
    expect((await complete(['properties', 'list', '--json', '--ci'])).values).toEqual(['--city']);
  });

  it('completes --property-where FIELD= from the parent resource, then its values', async () => {
    const fields = await complete(['notes', 'list', '--property-where', '']);
    expect(fields.values).toContain('city=');
    expect(fields.values).toContain('has_garage=');
    expect(fields.directive).toBe(':nospace');
    expect((await complete(['notes', 'list', '--contact-where', 'em'])).values).toEqual(['email=']);
    expect((await complete(['notes', 'list', '--property-where', 'has_garage='])).values).toEqual([
      'has_garage=true',
      'has_garage=false',
    ]);
    expect((await complete(['notes', 'list', '--property-where', 'city='])).values).toEqual([]);
  });

  it('offers date ranges and dates around today', async () => {
    const ranges = await complete(['reminders', 'list', '--due-at', '']);
    expect(ranges.values).toEqual(['2026-11-21', '-P7D', 'P7D', '-P30D', 'P30D']);
    const dates = await complete(['reminders', 'create', '--due-at', '2026']);
    expect(dates.values).toEqual(['2026-11-21', '2026-11-22', '2026-11-22T09:00:00Z']);
    expect(dates.described['2026-11-22']).toBe('tomorrow, all day');
  });

  it('hands file names to the shell for <file> flags, and lists @files itself', async () => {
    expect((await complete(['notes', 'create', '--content-file', ''])).directive).toBe(':files');
    expect((await complete(['serve', '--data', ''])).directive).toBe(':files');
    const dir = mkdtempSync(join(tmpdir(), 'pm-at-'));
    writeFileSync(join(dir, 'property.json'), '{}');
    const at = await complete(['properties', 'create', '--data', '@pro'], { cwd: dir, home: dir });
    expect(at.values).toEqual(['@property.json']);
    expect((await complete(['properties', 'create', '--data', ''])).values).toEqual(['@', '-']);
  });

  it('completes pm help with topics and commands', async () => {
    const c = await complete(['help', '']);
    expect(c.values.slice(0, TOPICS.length)).toEqual(TOPICS.map((t) => t.name));
    expect(c.values).toContain('properties');
    expect((await complete(['help', 'properties', ''])).values).toContain('list');
    expect((await complete(['help', 'd'])).values).toEqual(['dates']);
  });

  it('completes the profiles the config files define', async () => {
    const home = tempHome();
    const xdg = join(home, 'xdg');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(xdg, 'pm'), { recursive: true });
    writeFileSync(
      join(xdg, 'pm', 'config.json'),
      JSON.stringify({ profiles: { work: { base_url: 'https://pm.work.example' }, staging: {} } }),
    );
    const c = await complete(['--profile', ''], { home, env: { XDG_CONFIG_HOME: xdg } });
    expect(c.values).toEqual(['default', 'work', 'staging']);
  });
});

// ------------------------------------------------------------------ uuids from the API

describe('pm __complete: uuids from the API, cached briefly', () => {
  let server: TestServer;
  let acct: Account;
  let home: string;
  const opts = (extra: RunOptions = {}): RunOptions => ({
    home,
    env: { PM_BASE_URL: server.url, PM_TOKEN: acct.token, XDG_CACHE_HOME: join(home, 'cache') },
    ...extra,
  });
  let p1: string;
  let p2: string;
  let contact: string;

  beforeAll(async () => {
    server = await startTestServer();
    acct = await server.newAccount();
    home = tempHome();
    const mk = async (args: string[]) => (await runPm([...args, '-q'], opts())).stdout.trim();
    p1 = await mk(['properties', 'create', '--address', '1 High St', '--postcode', 'LS1 1AA', '--city', 'Leeds']);
    p2 = await mk(['properties', 'create', '--address', '2 Mill Lane', '--postcode', 'LS2 7EW']);
    contact = await mk(['contacts', 'create', '--name', 'Jo Bloggs', '--email', 'jo@example.com']);
    await mk(['custom-fields', 'create', '--label', 'Colour', '--type', 'text', '--entity-type', 'property']);
    await mk([
      'custom-fields',
      'create',
      '--name',
      'hue',
      '--label',
      'Hue\x1b[31m red',
      '--type',
      'text',
      '--entity-type',
      'property',
    ]);
    await mk(['statuses', 'create', '--label', 'For Let', '--type', 'property']);
    await mk(['statuses', 'create', '--label', 'Active', '--type', 'contact']);
    await mk(['types', 'create', '--label', 'Tenant']);
    await mk(['competencies', 'create', '--label', 'Plumbing']);
    // A label that would retitle the terminal: never offered.
    await mk(['competencies', 'create', '--label', 'Pipes\x1b]0;pwned\x07']);
  });
  afterAll(async () => {
    await server.close();
  });

  it('completes get, update and delete with the uuids, described by their first columns', async () => {
    const c = await complete(['properties', 'get', ''], opts());
    expect(c.stderr).toBe('');
    expect(c.values.sort()).toEqual([p1, p2].sort());
    expect(c.described[p1]).toBe('1 High St, Leeds');
    expect(c.described[p2]).toBe('2 Mill Lane, LS2 7EW');
    expect((await complete(['properties', 'update', p1.slice(0, 6)], opts())).values).toEqual([p1]);
    // delete takes several: those already given are not offered again.
    expect((await complete(['properties', 'rm', p1, ''], opts())).values).toEqual([p2]);
    expect((await complete(['contacts', 'get', ''], opts())).described[contact]).toBe('Jo Bloggs, jo@example.com');
  });

  it('completes the uuids of related records for --property, --contact and a property’s contact', async () => {
    expect((await complete(['notes', 'create', '--property', ''], opts())).values.sort()).toEqual([p1, p2].sort());
    expect((await complete(['notes', 'list', '--contact', ''], opts())).values).toEqual([contact]);
    expect((await complete(['properties', 'create', '--contact', ''], opts())).values).toEqual([contact]);
  });

  it('completes labels for --status (of the right type), --type and the competency flags', async () => {
    const values = async (...words: string[]) => (await complete(words, opts())).values;
    expect(await values('properties', 'update', p1, '--status', '')).toEqual(['For Let']);
    expect(await values('properties', 'list', '--status', '')).toEqual(['For Let']);
    expect(await values('contacts', 'create', '--status', '')).toEqual(['Active']);
    expect(await values('contacts', 'list', '--type', '')).toEqual(['Tenant']);
    // A property's own --type is a text field: nothing to offer.
    expect(await values('properties', 'list', '--type', '')).toEqual([]);
    for (const flag of ['--competency', '--add-competency', '--remove-competency'])
      expect(await values('contacts', 'update', contact, flag, '')).toEqual(['Plumbing']);
    expect(await values('contacts', 'list', '--competency=Pl')).toEqual(['--competency=Plumbing']);
  });

  it('completes custom field names for --custom-field NAME=', async () => {
    const c = await complete(['properties', 'list', '--custom-field', ''], opts());
    expect(c.values).toEqual(['colour=', 'hue=']);
    expect(c.described['colour=']).toBe('Colour');
    // A label that would recolour the terminal is described without its escape sequence.
    expect(c.described['hue=']).toBe('Hue [31m red');
    expect(c.stdout).not.toContain('\x1b');
    expect(c.directive).toBe(':nospace');
    expect((await complete(['contacts', 'create', '--custom-field', ''], opts())).values).toEqual([]);
  });

  it(`reuses what it fetched for ${CACHE_TTL_MS / 1000} seconds, in a private file under XDG_CACHE_HOME`, async () => {
    const cacheHome = join(tempHome(), 'cache');
    const o = (now: number) => ({ ...opts({ now }), env: { ...opts().env, XDG_CACHE_HOME: cacheHome } });
    const first = await complete(['reminders', 'get', ''], o(NOW));
    expect(first.values).toEqual([]);
    const dir = join(cacheHome, 'pm', 'completion');
    const [file] = readdirSync(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, file as string)).mode & 0o777).toBe(0o600);
    const made = (await runPm(['reminders', 'create', '--title', 'Gas check', '-q'], opts())).stdout.trim();
    expect((await complete(['reminders', 'get', ''], o(NOW + CACHE_TTL_MS - 1000))).values).toEqual([]);
    const later = await complete(['reminders', 'get', ''], o(NOW + CACHE_TTL_MS + 1000));
    expect(later.values).toEqual([made]);
    expect(later.described[made]).toBe('Gas check');
    // Another server is another cache.
    const other = await complete(['reminders', 'get', ''], {
      ...o(NOW + CACHE_TTL_MS + 2000),
      env: { ...o(0).env, PM_TOKEN: (await server.newAccount()).token },
    });
    expect(other.values).toEqual([]);
  });
});

describe('pm __complete: pm api, from the OpenAPI document', () => {
  let server: TestServer;
  let acct: Account;
  let home: string;
  let foreign: FaultyServer;
  const opts = (url = server.url): RunOptions => ({
    home,
    env: { PM_BASE_URL: url, PM_TOKEN: acct.token, XDG_CACHE_HOME: join(home, 'cache') },
  });

  beforeAll(async () => {
    server = await startTestServer();
    acct = await server.newAccount();
    home = tempHome();
    foreign = await startFaultyServer({ upstream: server.url });
  });
  afterAll(async () => {
    await foreign.close();
    await server.close();
  });

  it('completes the methods, then the paths that take the method, then the records of a collection', async () => {
    const methods = await complete(['api', ''], opts());
    expect(methods.values).toEqual(['GET', 'POST', 'HEAD', 'PUT', 'DELETE']);
    expect((await complete(['api', 'p'], opts())).values).toEqual(['post', 'put']);
    const gets = await complete(['api', 'GET', '/c'], opts());
    expect(gets.values).toEqual([
      '/contacts',
      '/contacts/',
      '/custom-fields',
      '/custom-fields/',
      '/competencies',
      '/competencies/',
      '/calendar-feeds',
    ]);
    expect(gets.described['/contacts']).toBe('List contacts, oldest first');
    expect(gets.directive).toBe(':nospace');
    // Notes are created under their parent only, and cannot be updated.
    expect((await complete(['api', 'POST', '/'], opts())).values).not.toContain('/notes');
    expect((await complete(['api', 'PUT', '/n'], opts())).values).toEqual([]);
    const p = (
      await runPm(['properties', 'create', '--address', '1 Api St', '--postcode', 'LS1 1AA', '-q'], opts())
    ).stdout.trim();
    expect((await complete(['api', 'GET', '/properties/'], opts())).values).toEqual([`/properties/${p}`]);
    // Notes and attachments are made under their property: a note from JSON, a file uploaded.
    expect((await complete(['api', 'POST', '/properties/'], opts())).values).toEqual([
      `/properties/${p}/notes`,
      `/properties/${p}/attachments`,
    ]);
  });

  it('completes -F with the query parameters of a GET and the body fields of a write', async () => {
    const q = await complete(['api', 'GET', '/properties', '-F', 'be'], opts());
    expect(q.values).toEqual(['bedrooms=', 'bedrooms[]=']);
    expect(q.directive).toBe(':nospace');
    expect((await complete(['api', 'GET', '/notes?per_page=5', '--field', 'property[ci'], opts())).values).toEqual([
      'property[city]=',
    ]);
    const body = await complete(['api', 'PUT', '/reminders/3f2a9c1e-5b7d-4c1a-9e0f-2b6d8a4c7e15', '-F', ''], opts());
    expect(body.values).toEqual([
      'title=',
      'description=',
      'due_at=',
      'anytime=',
      'done_at=',
      'repeat=',
      'property=',
      'contact=',
    ]);
  });

  it("uses the server's own document where it serves one, and this build's where it does not", async () => {
    const doc = { openapi: '3.1.0', paths: { '/widgets': { get: { summary: 'List widgets' } } } };
    foreign.script('GET', { kind: 'respond', status: 200, body: JSON.stringify(doc) });
    expect((await complete(['api', 'GET', '/'], opts(foreign.url))).values).toEqual(['/widgets']);
    // Cached: no second request while it is fresh.
    expect((await complete(['api', 'GET', '/w'], opts(foreign.url))).values).toEqual(['/widgets']);
    expect(foreign.count('GET')).toBe(1);
    foreign.reset();
    const elsewhere = { ...opts(foreign.url), home: tempHome() };
    foreign.script('GET', { kind: 'respond', status: 404, body: '{"message":"Not Found"}' });
    expect((await complete(['api', 'GET', '/r'], elsewhere)).values).toEqual(['/reminders', '/reminders/']);
  });
});

describe('pm __complete: silent when the API cannot answer', () => {
  let hanging: Server;
  let port: number;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    hanging = createServer((socket) => {
      sockets.push(socket); // accepts, never answers
    });
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    port = (hanging.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => hanging.close(resolve));
  });

  it('completes nothing and says nothing when the server is down', async () => {
    const home = tempHome();
    const c = await complete(['properties', 'get', ''], {
      home,
      env: { PM_BASE_URL: 'http://127.0.0.1:9', PM_TOKEN: 'pm_x', XDG_CACHE_HOME: join(home, 'c') },
    });
    expect(c.code).toBe(0);
    expect(c.stderr).toBe('');
    expect(c.values).toEqual([]);
    expect(c.stdout).toBe(':\n');
  });

  it(`gives up within about ${TIMEOUT_MS} ms on a server that never answers`, async () => {
    const home = tempHome();
    const started = Date.now();
    const c = await complete(['properties', 'get', ''], {
      home,
      env: { PM_BASE_URL: `http://127.0.0.1:${port}`, PM_TOKEN: 'pm_x', XDG_CACHE_HOME: join(home, 'c') },
    });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1500);
    expect(c.stderr).toBe('');
    expect(c.values).toEqual([]);
  });

  it('does not create the embedded default’s data file to complete a uuid', async () => {
    const home = tempHome();
    const c = await complete(['properties', 'get', ''], { home });
    expect(c.values).toEqual([]);
    expect(existsSync(join(home, '.local', 'share', 'pm', 'pm.db'))).toBe(false);
  });
});

// ------------------------------------------------------------------ the scripts, in their shells

const has = (shell: string) => spawnSync(shell, ['-c', 'exit 0']).status === 0;

/** Runs a shell without blocking this process, where the test server answers the scripts' pm. */
function shell(
  cmd: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** A directory with a `pm` that runs this checkout's bin/pm, for the scripts to call. */
function pmOnPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pm-bin-'));
  const pm = join(dir, 'pm');
  writeFileSync(pm, `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'bin', 'pm')}" "$@"\n`);
  chmodSync(pm, 0o755);
  return dir;
}

describe('the completion scripts', () => {
  let server: TestServer;
  let env: Record<string, string>;
  let uuid: string;
  let scripts: Record<string, string>;
  beforeAll(async () => {
    server = await startTestServer();
    const home = tempHome();
    env = {
      PATH: `${pmOnPath()}:${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: home,
      PM_BASE_URL: server.url,
      PM_TOKEN: (await server.newAccount()).token,
    };
    uuid = (
      await runPm(['properties', 'create', '--address', '1 High St', '--postcode', 'LS1 1AA', '-q'], {
        env: { PM_BASE_URL: env.PM_BASE_URL, PM_TOKEN: env.PM_TOKEN },
      })
    ).stdout.trim();
    scripts = {};
    for (const shell of ['bash', 'zsh', 'fish']) {
      const r = await runPm(['completion', shell]);
      expect(r.code).toBe(0);
      const file = join(mkdtempSync(join(tmpdir(), 'pm-comp-')), `pm.${shell}`);
      writeFileSync(file, r.stdout);
      scripts[shell] = file;
    }
  });
  afterAll(async () => {
    await server.close();
  });

  /** COMPREPLY after _pm, for COMP_WORDS = words (the last one being completed). */
  async function bash(words: string[], wordbreaks?: string): Promise<string[]> {
    const quoted = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
    const r = await shell(
      'bash',
      [
        '-c',
        `source "${scripts.bash}"
${wordbreaks !== undefined ? 'COMP_WORDBREAKS=$WORDBREAKS' : ''}
COMP_WORDS=(${quoted}); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
COMP_LINE="\${COMP_WORDS[*]}"; COMP_POINT=\${#COMP_LINE}
_pm
printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      wordbreaks !== undefined ? { ...env, WORDBREAKS: wordbreaks } : env,
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return r.stdout.split('\n').filter(Boolean);
  }

  it('bash: registers _pm for pm', () => {
    const r = spawnSync('bash', ['-c', `source "${scripts.bash}"; complete -p pm`], { env, encoding: 'utf8' });
    expect(r.stdout.trim()).toBe('complete -F _pm pm');
  });

  it('bash: commands, subcommands, flags and values in COMPREPLY', async () => {
    expect(await bash(['pm', 'pro'])).toEqual(['properties']);
    expect(await bash(['pm', 'properties', ''])).toEqual([
      'list',
      'get',
      'create',
      'update',
      'delete',
      'apply',
      'help',
    ]);
    expect(await bash(['pm', 'properties', 'list', '--bed'])).toEqual(['--bedrooms']);
    expect(await bash(['pm', 'properties', 'list', '-o', ''])).toEqual(['table', 'json', 'ndjson', 'csv', 'tsv']);
    expect(await bash(['pm', 'custom-fields', 'create', '--entity-type', 'p'])).toEqual(['property']);
  });

  it('bash: a label with spaces is escaped, or quoted when the word was opened with a quote', async () => {
    await runPm(['statuses', 'create', '--label', 'Not for let (owner occupied)', '--type', 'property', '-q'], {
      env: { PM_BASE_URL: env.PM_BASE_URL, PM_TOKEN: env.PM_TOKEN },
    });
    expect(await bash(['pm', 'properties', 'list', '--status', 'No'])).toEqual([
      'Not\\ for\\ let\\ \\(owner\\ occupied\\)',
    ]);
    expect(await bash(['pm', 'properties', 'list', '--status', '"No'])).toEqual(['"Not for let (owner occupied)"']);
    expect(await bash(['pm', 'properties', 'list', '--status', "'No"])).toEqual(["'Not for let (owner occupied)'"]);
  });

  it('bash: uuids from the API for get, update and delete', async () => {
    expect(await bash(['pm', 'properties', 'get', ''])).toEqual([uuid]);
    expect(await bash(['pm', 'properties', 'delete', uuid.slice(0, 4)])).toEqual([uuid]);
  });

  it('bash: words split at = and : are put back together, and only the part after is replaced', async () => {
    // bash splits `--json=uuid,ci` into `--json`, `=`, `uuid,ci`; readline replaces `uuid,ci`.
    expect(await bash(['pm', 'properties', 'list', '--json', '=', 'uuid,ci'])).toEqual(['uuid,city']);
    expect(await bash(['pm', 'notes', 'list', '--property-where', 'has_garage='])).toEqual(['true', 'false']);
    expect(await bash(['pm', 'notes', 'list', '--property-where', 'has_garage', '=', 't'])).toEqual(['true']);
    // With = not a word break, the whole word is replaced.
    expect(await bash(['pm', 'notes', 'list', '--property-where', 'has_garage=t'], ' \t\n"\'><;|&(:')).toEqual([
      'has_garage=true',
    ]);
  });

  it('bash: nothing, and no error, when pm cannot answer', async () => {
    const r = await shell(
      'bash',
      [
        '-c',
        `source "${scripts.bash}"; COMP_WORDS=(pm properties get ''); COMP_CWORD=3; _pm; echo "n=\${#COMPREPLY[@]}"`,
      ],
      { ...env, PM_BASE_URL: 'http://127.0.0.1:9' },
    );
    expect(r.stdout.trim()).toBe('n=0');
    expect(r.stderr).toBe('');
  });

  it.skipIf(!has('zsh'))('zsh: parses, and hands _describe the candidates with descriptions', async () => {
    expect(spawnSync('zsh', ['-n', scripts.zsh as string]).status).toBe(0);
    // The completion system stubbed: compdef records, _describe prints what it was given.
    const run = async (words: string[]) => {
      const r = await shell(
        'zsh',
        [
          '-c',
          `compdef() { print -r -- "compdef $*" }
_describe() { local name=$4; print -rl -- "\${(@P)name}"; print -r -- "opts: \${@[5,-1]}" }
_files() { print -r -- FILES }
source "${scripts.zsh}"
words=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}
_pm`,
        ],
        env,
      );
      expect(r.stderr).toBe('');
      return r.stdout.split('\n').filter(Boolean);
    };
    expect(await run(['pm', 'pro'])).toEqual([
      'compdef _pm pm',
      'properties:List, show, create, update and delete properties',
      'opts: ',
    ]);
    expect(await run(['pm', 'properties', 'get', ''])).toEqual([
      'compdef _pm pm',
      `${uuid}:1 High St, LS1 1AA`,
      'opts: ',
    ]);
    expect(await run(['pm', 'notes', 'list', '--property-where', 'has_gara'])).toEqual([
      'compdef _pm pm',
      'has_garage=:has a garage',
      'opts: -S ',
    ]);
    expect(await run(['pm', 'reminders', 'list', '--due-at', '-P7'])).toEqual([
      'compdef _pm pm',
      '-P7D:the past 7 days',
      'opts: ',
    ]);
    expect(await run(['pm', 'notes', 'create', '--content-file', ''])).toEqual(['compdef _pm pm', 'FILES']);
  });

  it.skipIf(!has('fish'))('fish: parses, and complete -C lists the candidates with descriptions', async () => {
    expect(spawnSync('fish', ['-n', scripts.fish as string]).status).toBe(0);
    const run = async (line: string) => {
      const r = await shell('fish', ['-c', `source "${scripts.fish}"; complete -C "${line}"`], env);
      expect(r.stderr).toBe('');
      return r.stdout.split('\n').filter(Boolean);
    };
    expect(await run('pm properties l')).toEqual(['list\tList properties, filtered by any of their fields']);
    expect(await run('pm properties list -o ')).toEqual(['csv', 'json', 'ndjson', 'table', 'tsv']);
    expect(await run('pm properties get ')).toEqual([`${uuid}\t1 High St, LS1 1AA`]);
    expect(await run('pm properties list --json=uuid,ci')).toEqual(['--json=uuid,city']);
  });

  it('the scripts say how to install them, and pm completion --help too', async () => {
    expect(readFileSync(scripts.bash as string, 'utf8')).toContain('source <(pm completion bash)');
    expect(readFileSync(scripts.zsh as string, 'utf8')).toMatch(/^#compdef pm\n/);
    expect(readFileSync(scripts.fish as string, 'utf8')).toContain('~/.config/fish/completions/pm.fish');
    const help = (await runPm(['completion', '--help'])).stdout;
    expect(help).toContain("echo 'source <(pm completion bash)' >> ~/.bashrc");
  });
});
