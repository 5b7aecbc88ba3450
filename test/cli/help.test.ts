/**
 * Help a new user can learn from: every command's --help (summary, usage, every flag, examples
 * whose flags exist), usage errors with "Did you mean", `pm help <topic>` pages checked against
 * the parsers and the commands they describe, and start-up that loads none of it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command, Option } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deps } from '../../src/cli/context.js';
import { EXIT } from '../../src/cli/errors.js';
import { DUE_EXAMPLES, RANGE_EXAMPLES, REFUSED_EXAMPLES } from '../../src/cli/help/dates.js';
import { exitCodes } from '../../src/cli/help/exit-codes.js';
import { TOPICS } from '../../src/cli/help/index.js';
import { section } from '../../src/cli/help/text.js';
import { ROOT_HELP } from '../../src/cli/help/root.js';
import { createFactory } from '../../src/cli/factory.js';
import { buildProgram } from '../../src/cli/program.js';
import { parseRange } from '../../src/core/datetime.js';
import { DATE_EXAMPLES, parseHumanInstant, parseHumanRange } from '../../src/core/humandate.js';
import { type RunOptions, runPm, tempHome } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { inputFields, RESOURCES } from '../../src/resources/index.js';
import type { ResourceDef } from '../../src/resources/types.js';
import { isObject } from '../../src/core/json.js';

const ROOT = join(import.meta.dirname, '..', '..');
const NOW = Date.parse('2026-11-21T12:00:00Z');

function program(): Command {
  const sink = { write: () => true };
  const deps: Deps = {
    io: { stdout: sink, stderr: sink, stdin: { async *[Symbol.asyncIterator]() {} } },
    env: {},
    cwd: tmpdir(),
    home: tmpdir(),
    now: () => NOW,
  };
  return buildProgram(createFactory(deps));
}

const hidden = (c: Command) => (c as unknown as { _hidden?: boolean })._hidden === true;

/** Every visible command, as the words after "pm". */
function commandPaths(root: Command): string[][] {
  const out: string[][] = [];
  const walk = (c: Command, path: string[]) => {
    for (const sub of c.commands) {
      if (hidden(sub)) continue;
      out.push([...path, sub.name()]);
      walk(sub, [...path, sub.name()]);
    }
  };
  walk(root, []);
  return out;
}

function commandAt(root: Command, path: readonly string[]): Command {
  let c = root;
  for (const w of path) c = c.commands.find((x) => x.name() === w || x.aliases().includes(w)) as Command;
  return c;
}

// ------------------------------------------------------------------ examples, read as a shell would

/** Splits a line as sh does, enough for examples: quotes, and |, ;, $( and ) as separate words. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let quote: string | undefined;
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quote) {
      if (ch === quote) quote = undefined;
      else cur += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
      continue;
    }
    if (ch === '#' && !inWord) break;
    if (/\s/.test(ch)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
      continue;
    }
    // A placeholder such as <TAB> or <command> is a word.
    const placeholder = ch === '<' && !inWord ? /^<[A-Za-z-]+>/.exec(line.slice(i)) : null;
    if (placeholder) {
      words.push(placeholder[0]);
      i += placeholder[0].length - 1;
      continue;
    }
    if (ch === '&' && line[i + 1] === '&') {
      if (inWord) words.push(cur);
      words.push(';');
      i++;
      cur = '';
      inWord = false;
      continue;
    }
    if (ch === '|' || ch === ';' || ch === ')' || ch === '>' || ch === '<' || (ch === '$' && line[i + 1] === '(')) {
      if (inWord) words.push(cur);
      words.push(ch === '$' ? '$(' : ch);
      if (ch === '$') i++;
      cur = '';
      inWord = false;
      continue;
    }
    cur += ch;
    inWord = true;
  }
  if (inWord) words.push(cur);
  return words;
}

/** The pm invocations of a line: each run of words from "pm" to the next separator. */
function pmInvocations(line: string): string[][] {
  const words = shellWords(line);
  const out: string[][] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    if (w !== 'pm' && w !== './bin/pm') continue;
    const args: string[] = [];
    let j = i + 1;
    for (; j < words.length && !['|', ';', ')', '>', '<', '$('].includes(words[j] as string); j++)
      args.push(words[j] as string);
    out.push(args);
    i = j;
  }
  return out;
}

/** The example lines of a help text: the indented lines after "Examples:". */
function exampleLines(text: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === 'Examples:');
  if (start < 0) return [];
  const out: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (l.trim() === '') {
      if (out.length) continue;
      break;
    }
    if (!l.startsWith('  ')) break;
    out.push(l.trim());
  }
  return out;
}

function findOption(chain: readonly Command[], flag: string): Option | undefined {
  for (const c of [...chain].reverse()) {
    const o = c.options.find((x) => x.long === flag || x.short === flag);
    if (o) return o;
  }
  return undefined;
}

/** What is wrong with `pm args`: unknown commands and flags. Empty when the words make sense. */
function checkInvocation(root: Command, args: readonly string[]): string[] {
  const problems: string[] = [];
  const chain = [root];
  let cmd = root;
  let positionals = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a.startsWith('<')) continue; // a placeholder such as <command>
    if (a === '-' || !a.startsWith('-')) {
      const sub = positionals === 0 ? cmd.commands.find((c) => c.name() === a || c.aliases().includes(a)) : undefined;
      if (sub) {
        cmd = sub;
        chain.push(sub);
      } else if (cmd.commands.length && !cmd.registeredArguments.length && cmd.name() !== 'help')
        problems.push(`"${a}" is not a command of "${cmd.name()}"`);
      else positionals++;
      continue;
    }
    if (a === '--help' || a === '-h') continue;
    const flag = a.startsWith('--') && a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
    const o = findOption(chain, flag);
    if (!o) {
      problems.push(`${chain.map((c) => c.name()).join(' ')} has no ${flag}`);
      continue;
    }
    if (a.includes('=')) continue;
    if (o.required || (o.optional && args[i + 1] !== undefined && !(args[i + 1] as string).startsWith('-'))) i++;
  }
  const expected = cmd.registeredArguments;
  if (cmd.commands.length === 0 && positionals > expected.length && !expected[expected.length - 1]?.variadic)
    problems.push(`${chain.map((c) => c.name()).join(' ')} takes ${expected.length} argument(s), not ${positionals}`);
  return problems;
}

// ------------------------------------------------------------------ every command's --help

describe('--help on every command', () => {
  const root = program();
  const paths = commandPaths(root);
  const globals = root.options.filter((o) => !o.hidden && o.long !== '--version');

  it('covers every command', () => {
    expect(paths.length).toBeGreaterThan(30);
    expect(paths).toContainEqual(['properties', 'list']);
    expect(paths).toContainEqual(['serve', 'tokens', 'create']);
    expect(paths).toContainEqual(['completion']);
  });

  it.each(paths.map((p) => [p.join(' '), p]))(
    'pm %s --help: usage, a summary, every flag with its type, the global options',
    async (_name, path) => {
      const r = await runPm([...(path as string[]), '--help']);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      const cmd = commandAt(root, path as string[]);
      const [usage, blank, summary] = r.stdout.split('\n');
      expect(usage).toMatch(new RegExp(`^Usage: pm ${(path as string[]).join(' ')}\\b`));
      expect(blank).toBe('');
      expect(summary?.trim().length).toBeGreaterThan(10);
      for (const o of cmd.options) {
        if (o.hidden) continue;
        expect(r.stdout).toContain(o.flags);
        expect(o.description.length).toBeGreaterThan(5);
      }
      // Every flag that takes a value says what kind: <n>, <text>, <range>, <file>...
      for (const o of cmd.options) if (o.required || o.optional) expect(o.flags).toMatch(/[<[][a-z|=./-]+[>\]]/);
      const tail = r.stdout.slice(r.stdout.lastIndexOf('Global options'));
      for (const g of globals) expect(tail).toContain(g.long as string);
    },
  );

  const leaves = paths.filter((p) => commandAt(root, p).commands.length === 0);
  it.each(leaves.map((p) => [p.join(' '), p]))(
    'pm %s --help has examples, and they use only flags it has',
    async (_name, path) => {
      const r = await runPm([...(path as string[]), '--help']);
      const lines = exampleLines(r.stdout);
      expect(lines.length, 'an Examples section').toBeGreaterThan(0);
      const invocations = lines.flatMap(pmInvocations);
      expect(invocations.length).toBeGreaterThan(0);
      for (const args of invocations) expect(checkInvocation(root, args), args.join(' ')).toEqual([]);
    },
  );

  it('pm --help: examples, topics, environment and exit codes, on stdout', async () => {
    const r = await runPm(['--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    for (const title of ['Examples:', 'Learn more:', 'Environment:', 'Exit codes:']) expect(r.stdout).toContain(title);
    for (const args of exampleLines(r.stdout).flatMap(pmInvocations))
      expect(checkInvocation(root, args), args.join(' ')).toEqual([]);
    // The topics it names are the topics there are.
    const line = section(ROOT_HELP, 'Learn more:').find((l) => l.includes('pm help <topic>')) ?? '';
    expect(line.replace(/.*pm help <topic>\s+/, '').split(/,\s*/)).toEqual(TOPICS.map((t) => t.name));
    // Every environment variable pm reads is listed.
    const env = section(ROOT_HELP, 'Environment:').map((l) => l.trim().split(/\s+/)[0]);
    for (const name of ['PM_BASE_URL', 'PM_TOKEN', 'PM_PROFILE', 'PM_DATA_FILE', 'PM_DEBUG', 'NO_COLOR', 'CI'])
      expect(env).toContain(name);
  });

  it('lists exactly the exit codes pm uses, and pm help exit-codes explains each', async () => {
    const codes = exitCodes().map((e) => e.code);
    expect(codes.sort((a, b) => a - b)).toEqual(Object.values(EXIT).sort((a, b) => a - b));
    const page = (await runPm(['help', 'exit-codes'])).stdout;
    for (const e of exitCodes()) {
      expect(page).toContain(`  ${String(e.code).padEnd(4)}${e.meaning}`);
      expect(e.when).not.toBe('');
    }
  });
});

// ------------------------------------------------------------------ usage errors

describe('usage errors: stderr, the usage hint, and "Did you mean"', () => {
  it.each([
    [['propertis', 'list'], "error: unknown command 'propertis'", '(Did you mean properties?)', "Run 'pm --help'"],
    [['properties', 'lst'], "error: unknown command 'lst'", 'list', "Run 'pm properties --help'"],
    [
      ['serve', 'tokens', 'lst'],
      "error: unknown command 'lst'",
      '(Did you mean list?)',
      "Run 'pm serve tokens --help'",
    ],
    [['auth', 'logn'], "error: unknown command 'logn'", '(Did you mean login?)', "Run 'pm auth --help'"],
    [
      ['properties', 'list', '--citty', 'leeds'],
      "error: unknown option '--citty'",
      '(Did you mean --city?)',
      "Run 'pm properties list --help'",
    ],
    [
      ['reminders', 'list', '--due-att', 'P7D'],
      "error: unknown option '--due-att'",
      '(Did you mean --due-at?)',
      "Run 'pm reminders list --help'",
    ],
    [
      ['notes', 'create', '--propery', 'x'],
      "error: unknown option '--propery'",
      '(Did you mean --property?)',
      "Run 'pm notes create --help'",
    ],
    [['--profle', 'x', 'properties', 'list'], "error: unknown option '--profle'", '(Did you mean --profile?)', ''],
    [['properties', 'get'], "error: missing required argument 'uuid'", '', "Run 'pm properties get --help'"],
    [
      ['completion', 'tcsh'],
      "value 'tcsh' is invalid",
      'Allowed choices are bash, zsh, fish',
      "Run 'pm completion --help'",
    ],
  ])('pm %j', async (args, error, suggestion, hint) => {
    const r = await runPm(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(error);
    expect(r.stderr).toContain(suggestion);
    expect(r.stderr).toContain(hint);
  });
});

// ------------------------------------------------------------------ pm help

describe('pm help', () => {
  it('with nothing, is pm --help', async () => {
    expect((await runPm(['help'])).stdout).toBe((await runPm(['--help'])).stdout);
  });

  it.each([['properties', 'list'], ['serve', 'tokens', 'create'], ['completion'], ['help']])(
    'pm help %s… is that command’s --help',
    async (...path) => {
      const viaHelp = await runPm(['help', ...path]);
      expect(viaHelp.code).toBe(0);
      expect(viaHelp.stdout).toBe((await runPm([...path, '--help'])).stdout);
    },
  );

  it("keeps commander's help command under a group: pm properties help list", async () => {
    const r = await runPm(['properties', 'help', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: pm properties list/);
  });

  it.each(TOPICS.flatMap((t) => [t.name, ...t.aliases].map((w) => [w, t.name])))(
    'pm help %s prints the %s page on stdout',
    async (word, name) => {
      const r = await runPm(['help', word]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(`${await (TOPICS.find((t) => t.name === name)?.load() as Promise<string>)}`);
      expect(r.stdout.split('\n')[0]).toMatch(/^[A-Z ]+$/);
      expect(r.stdout).toContain('Examples:');
    },
  );

  it('an unknown topic or command is a usage error that suggests the nearest', async () => {
    const r = await runPm(['help', 'datse']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no help topic or command "datse"');
    expect(r.stderr).toContain('Did you mean dates?');
    const sub = await runPm(['help', 'properties', 'lst']);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('no command "pm properties lst"');
    expect(sub.stderr).toContain('Did you mean list?');
    const far = await runPm(['help', 'zzzzzz']);
    expect(far.stderr).not.toContain('Did you mean');
    expect(far.stderr).toContain('Topics: dates, filters, output, input, configuration, exit-codes');
  });

  it.each(TOPICS.map((t) => [t.name]))('the examples of pm help %s use only flags that exist', async (name) => {
    const root = program();
    const page = (await runPm(['help', name])).stdout;
    const invocations = exampleLines(page).flatMap(pmInvocations);
    expect(invocations.length).toBeGreaterThan(0);
    for (const args of invocations) expect(checkInvocation(root, args), args.join(' ')).toEqual([]);
  });

  it('pm help filters lists, for each list command, flags it has', async () => {
    const root = program();
    const page = (await runPm(['help', 'filters'])).stdout;
    const part = page.slice(page.indexOf('The filter flags of each list command'), page.indexOf('Examples:'));
    for (const m of part.matchAll(/pm ([a-z-]+) list((?:\s+--[^\n]*)+)/g)) {
      const cmd = commandAt(root, [m[1] as string, 'list']);
      const flags = (m[2] as string).split(/[,\s]+/).filter((f) => f.startsWith('--'));
      expect(flags.length).toBeGreaterThan(3);
      for (const f of flags) {
        const names = f.startsWith('--[no-]') ? [`--${f.slice(7)}`, `--no-${f.slice(7)}`] : [f];
        for (const n of names)
          expect(
            cmd.options.some((o) => o.long === n),
            `${m[1]} list ${n}`,
          ).toBe(true);
      }
    }
  });
});

// ------------------------------------------------------------------ pm help dates, against the parsers

describe('pm help dates', () => {
  const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

  it.each(RANGE_EXAMPLES.map((x) => [x.value, x]))('%s means what the page says', (_v, x) => {
    const value = x.value.replace(/^"|"$/g, '');
    const direct = parseRange(value, NOW);
    expect([iso(direct.start), iso(direct.end)]).toEqual([x.start, x.end]);
    // And the same through what the CLI sends for it.
    const sent = parseHumanRange(value, { now: NOW, zone: 'UTC' });
    const viaCli = parseRange(sent, NOW);
    expect([iso(viaCli.start), iso(viaCli.end)]).toEqual([x.start, x.end]);
  });

  it.each(REFUSED_EXAMPLES.map((x) => [x.value]))('%s is refused', (value) => {
    expect(() => parseRange(value, NOW)).toThrow();
    expect(() => parseHumanRange(value, { now: NOW, zone: 'UTC' })).toThrow();
  });

  it.each(DUE_EXAMPLES.map((x) => [x.value]))('--due-at %s is accepted', (value) => {
    expect(parseHumanInstant(value, { now: NOW, zone: 'UTC' }).iso).toBeTruthy();
  });

  it('shows every word form humandate lists, each of which it reads', async () => {
    const page = (await runPm(['help', 'dates'])).stdout;
    for (const x of DATE_EXAMPLES) {
      if (/^ISO 8601/.test(x.meaning)) continue;
      expect(page).toContain(`"${x.input}"`);
      const parse = x.kind === 'range' ? parseHumanRange : parseHumanInstant;
      expect(() => parse(x.input, { now: NOW, zone: 'UTC' })).not.toThrow();
    }
  });
});

// ------------------------------------------------------------------ examples that read, run for real

/**
 * The seeded records the examples name, by the uuids the examples give them (their first 8
 * characters; a note and a property as the README's session has them whole).
 */
const SEEDED: Record<string, string[]> = {
  properties: ['3f2a9c1e-5b7d-4c1a-9e0f-2b6d8a4c7e15', '8b0e4d2a-0000-4000-8000-000000000001'],
  contacts: ['7b1d0c55-0000-4000-8000-000000000001'],
  'custom-fields': ['8c1d2e3f-0000-4000-8000-000000000001'],
  notes: ['5e7a9b10-8c2d-4f6e-a1b3-9d0c7e5f2a48'],
  reminders: ['9d4e6f21-0000-4000-8000-000000000001'],
  statuses: ['a1b2c3d4-0000-4000-8000-000000000001'],
  types: ['b2c3d4e5-0000-4000-8000-000000000001'],
  competencies: [
    'c3d4e5f6-0000-4000-8000-000000000001',
    'c4d5e6f7-0000-4000-8000-000000000001',
    'c5d6e7f8-0000-4000-8000-000000000001',
  ],
  attachments: ['5c1d7e2a-0000-4000-8000-000000000001'],
};

/** Bodies that make the seeded records (in this order: what they name comes first). */
const SEEDS: [string, Record<string, unknown>][] = [
  ['statuses', { label: 'For Let', type: { code: 2 } }],
  ['types', { label: 'Contractor' }],
  ['competencies', { label: 'Plumbing' }],
  // A label an example names must be there: one that names nothing is refused.
  ['competencies', { label: 'Electrics' }],
  ['competencies', { label: 'Gas Safe' }],
  ['contacts', { name: 'Jo Bloggs', email: 'jo@example.com', company: 'Acme' }],
  ['properties', { address: '1 High St', postcode: 'LS1 1AA', city: 'Leeds', bedrooms: 3 }],
  ['properties', { address: '2 Mill Lane', postcode: 'LS2 7EW', city: 'Leeds' }],
  ['custom-fields', { label: 'Colour', name: 'colour', type: { code: 1 }, entity_type: { code: 2 } }],
  ['notes', { content: 'Boiler serviced' }],
  ['reminders', { title: 'Renew gas certificate', due_at: '2026-12-01' }],
];

describe('every example of every help page runs against a seeded server', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer();
    const acct = await server.newAccount();
    token = acct.token;
    for (const [path, body] of SEEDS) {
      const r = RESOURCES.find((x) => x.path === path) as ResourceDef;
      const at = path === 'notes' ? `/properties/${SEEDED.properties?.[0]}/notes` : `/${path}`;
      const made = await acct.api('POST', at, body);
      expect(made.status, `${path}: ${JSON.stringify(made.body)}`).toBe(201);
      const n = SEEDS.filter(([p]) => p === path).findIndex(([, b]) => b === body);
      const uuid = SEEDED[path]?.[n] as string;
      await server.sql(`UPDATE ${r.table} SET uuid = ? WHERE uuid = ? RETURNING id`, [uuid, made.body.data.uuid]);
    }
    // A file of the seeded property, uploaded as a file is (not a JSON body), its bytes kept by its uuid.
    const file = await fetch(`${server.url}/properties/${SEEDED.properties?.[0]}/attachments?name=gas-safety.pdf`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/pdf' },
      body: '%PDF-1.4 Gas safety certificate',
    });
    const uploaded = ((await file.json()) as { data: { uuid: string } }).data.uuid;
    const seeded = SEEDED.attachments?.[0];
    await server.sql('UPDATE attachments SET uuid = ? WHERE uuid = ? RETURNING id', [seeded, uploaded]);
    await server.sql('UPDATE attachment_chunks SET attachment = ? WHERE attachment = ? RETURNING seq', [
      seeded,
      uploaded,
    ]);
  });
  afterAll(async () => {
    await server.close();
  });

  /** A file an example reads, for the command it is given to: records of the resource, as it takes them. */
  function fileFor(chain: readonly string[], name: string): string {
    const [path, verb] = chain;
    const r = RESOURCES.find((x) => x.path === path);
    if (!r || name.endsWith('.txt')) return 'Inspection: all well\n';
    const record: Record<string, unknown> =
      verb === 'update'
        ? { uuid: SEEDED[r.path]?.[0], [inputFields(r)[0]?.name as string]: 'Changed' }
        : Object.fromEntries(
            inputFields(r)
              .filter((f) => f.requiredOnCreate)
              .map((f) => [
                f.name,
                f.kind === 'code' ? { code: Number(Object.keys(f.codes ?? {})[0]) } : `Example ${f.name}`,
              ]),
          );
    if (r.parents && verb !== 'update') record[r.parents[0]?.name as string] = SEEDED.properties?.[0];
    if (name.endsWith('.csv')) {
      const cells = Object.values(record).map((v) => (isObject(v) ? String(v.code) : String(v)));
      return `${Object.keys(record).join(',')}\n${cells.join(',')}\n`;
    }
    return name.endsWith('.ndjson') ? `${JSON.stringify(record)}\n` : JSON.stringify(record);
  }

  it('no example is a usage error (exit 2), and every list exits 0; writes with --dry-run where they have it', async () => {
    const root = program();
    const pages = [(await runPm(['--help'])).stdout];
    for (const t of TOPICS) pages.push(await t.load());
    for (const p of commandPaths(root)) pages.push((await runPm([...p, '--help'])).stdout);
    const lines = [...new Set([...pages.flatMap(exampleLines), ...readmeBlocks().flatMap(commandLines)])];
    let ran = 0;
    for (const line of lines) {
      // What TAB completes is shown, not run; `pm serve` itself runs until it is stopped.
      if (line.includes('<TAB>')) continue;
      const words = shellWords(line);
      const echo = words[0] === 'echo' && words[2] === '|' ? words[1] : undefined;
      // A line's commands share a folder (export, then import) and a home, whose config has the
      // profiles the examples name.
      const dir = mkdtempSync(join(tmpdir(), 'pm-example-'));
      const home = tempHome();
      mkdirSync(join(home, '.config', 'pm'), { recursive: true });
      const profiles = Object.fromEntries(['work', 'staging', 'team'].map((n) => [n, { base_url: server.url }]));
      writeFileSync(join(home, '.config', 'pm', 'config.json'), JSON.stringify({ profiles }), { mode: 0o600 });
      const at = words.flatMap((w, i) => (w === 'pm' || w === './bin/pm' ? [i] : []));
      for (const [k, invocation] of pmInvocations(line).entries()) {
        const from = at[k] as number;
        const chain = commandOf(root, invocation);
        // "name: Install pm" is no command.
        if (!invocation.length || (chain[0] === 'serve' && chain.length === 1)) continue;
        const property = SEEDED.properties?.[0] as string;
        const vars: Record<string, string> = { TOKEN: token, PM_TOKEN: token, uuid: property, 1: property };
        const value = (w: string) =>
          w
            .replace(/\$(\w+)/g, (m, v: string) => vars[v] ?? m)
            .replace(/^https?:\/\/[a-z.]*example[a-z.]*(?=\/|$)/, server.url)
            .replace(/^\/srv\/pm\/team\.db$/, join(dir, 'team.db'));
        const args = invocation.map(value);
        // xargs gives each line read as the last argument: a uuid of the records listed.
        if (words[from - 2] === 'xargs' || words[from - 1] === 'xargs') args.push(SEEDED.properties?.[0] as string);
        for (const [i, a] of args.entries()) {
          const file = a.startsWith('@')
            ? a.slice(1)
            : ['--from-file', '--content-file'].includes(args[i - 1] as string)
              ? a
              : undefined;
          if (file && file !== '-') writeFileSync(join(dir, file), fileFor(chain, file));
        }
        // The files an upload names are there, as the person's would be.
        if (chain[1] === 'upload')
          for (const a of args.slice(2).filter((x, i, all) => !x.startsWith('-') && !all[i - 1]?.startsWith('--')))
            writeFileSync(join(dir, a), `${a}\n`);
        // A bulk write from a file has no --dry-run of its own; apply's prints its plan.
        const bulk = args.includes('--from-file') && chain[1] !== 'apply';
        const dryRun = findOption(chainOf(root, chain), '--dry-run') && !bulk;
        if (dryRun && !args.includes('--dry-run')) args.push('--dry-run');
        const env = Object.fromEntries(
          words
            .slice(0, words.indexOf('pm'))
            .flatMap((w) => (/^[A-Z_]+=/.test(w) ? [w.split(/=(.*)/s).slice(0, 2)] : [])),
        );
        const base = {
          home,
          cwd: dir,
          env: { PM_BASE_URL: server.url, PM_TOKEN: token },
          now: NOW,
        };
        // An import reads an export: the folder it names holds one, as the person's would.
        const folder = chain[0] === 'import' ? args[args.indexOf('--dir') + 1] : undefined;
        if (folder && !existsSync(join(dir, folder))) await runPm(['export', '--dir', folder], base);
        const r = await runPm(args, {
          home,
          cwd: dir,
          env: {
            PM_BASE_URL: server.url,
            PM_TOKEN: token,
            ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, value(v as string)])),
          },
          now: NOW,
          // As a person at a terminal runs them (one asked for a token types it), unless piped into.
          tty: true,
          prompter: { confirm: async () => true, secret: async () => token },
          ...(echo !== undefined ? { stdin: `${value(echo)}\n` } : {}),
        });
        ran++;
        const list = chain[1] === 'list' && RESOURCES.some((x) => x.path === chain[0]);
        const shown = `${line}\n  pm ${args.join(' ')} -> ${r.code}: ${r.stderr}`;
        if (list) expect(r.code, shown).toBe(0);
        else expect(r.code, shown).not.toBe(EXIT.usage);
      }
    }
    expect(ran).toBeGreaterThan(150);
    // Some 200 runs, each against the server: a loaded machine takes longer than the default.
  }, 90_000);
});

describe('the values flag help gives as examples are accepted', () => {
  let server: TestServer;
  let opts: RunOptions;
  beforeAll(async () => {
    server = await startTestServer();
    opts = { env: { PM_BASE_URL: server.url, PM_TOKEN: (await server.newAccount()).token }, now: NOW };
  });
  afterAll(async () => {
    await server.close();
  });

  it('--property-where and --contact-where samples filter; --key and --skip-existing samples are fields', async () => {
    const root = program();
    let checked = 0;
    for (const path of commandPaths(root)) {
      const cmd = commandAt(root, path);
      for (const o of cmd.options) {
        const flag = o.long as string;
        const samples =
          flag.endsWith('-where') && path[1] === 'list'
            ? [...(/filter: ([^(]*)/.exec(o.description)?.[1] ?? '').matchAll(/([a-z_]+=\S+?)(?=,|\s|$)/g)].map(
                (m) => m[1],
              )
            : flag === '--key' || flag === '--skip-existing'
              ? /e\.g\. ([a-z_,]+)/.exec(o.description)?.slice(1)
              : [];
        for (const sample of samples ?? []) {
          const dir = mkdtempSync(join(tmpdir(), 'pm-sample-'));
          writeFileSync(join(dir, 'f.ndjson'), '');
          const args =
            flag === '--key'
              ? [...path, '--from-file', 'f.ndjson', flag, sample as string, '--dry-run']
              : flag === '--skip-existing'
                ? [...path, '--from-file', 'f.ndjson', flag, sample as string]
                : [...path, flag, sample as string];
          const r = await runPm(args, { ...opts, cwd: dir });
          expect(r.code, `pm ${args.join(' ')}: ${r.stderr}`).toBe(0);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(10);
  });
});

/** The command an invocation runs, as the words of its path (global flags and their values aside). */
function commandOf(root: Command, args: readonly string[]): string[] {
  const path: string[] = [];
  let cmd = root;
  const chain = [root];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a.startsWith('-')) {
      const o = findOption(chain, a.includes('=') ? a.slice(0, a.indexOf('=')) : a);
      if (o?.required && !a.includes('=')) i++;
      continue;
    }
    const sub = cmd.commands.find((c) => c.name() === a || c.aliases().includes(a));
    if (!sub) break;
    cmd = sub;
    chain.push(sub);
    path.push(sub.name());
  }
  return path;
}

/** The commands from the root to the one `path` names. */
function chainOf(root: Command, path: readonly string[]): Command[] {
  const chain = [root];
  for (const w of path) chain.push(commandAt(chain[chain.length - 1] as Command, [w]));
  return chain;
}

// ------------------------------------------------------------------ the README

/** The README's fenced code blocks, with their language. */
function readmeBlocks(): { lang: string; body: string }[] {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1] as string,
    body: m[2] as string,
  }));
}

/** The command lines of a block: a console block's "$ " lines, every line of sh and yaml ones. */
function commandLines(block: { lang: string; body: string }): string[] {
  if (!['sh', 'console', 'yaml'].includes(block.lang)) return [];
  const lines = block.body.split('\n');
  const joined: string[] = [];
  for (const l of lines) {
    const prev = joined[joined.length - 1];
    if (prev?.endsWith('\\')) joined[joined.length - 1] = `${prev.slice(0, -1)} ${l.trim()}`;
    else joined.push(l);
  }
  return block.lang === 'console'
    ? joined.filter((l) => l.startsWith('$ ')).map((l) => l.slice(2))
    : joined.map((l) => l.replace(/^\s*(- |run: )/, ''));
}

/**
 * The shell a CI job of the README runs: each item of a `script:` or `before_script:` list
 * (GitLab), and each `run:` line or block (GitHub Actions).
 */
function jobShell(yaml: string): string[] {
  const out: string[] = [];
  const lines = yaml.split('\n');
  let inList = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    const run = /^(\s*)(?:- )?run: (.*)$/.exec(l);
    if (run) {
      inList = false;
      if (run[2] !== '|') {
        out.push(run[2] as string);
        continue;
      }
      const block: string[] = [];
      const indent = (run[1] as string).length;
      const deeper = (x: string | undefined) =>
        x !== undefined && x.trim() !== '' && x.length - x.trimStart().length > indent;
      while (deeper(lines[i + 1])) block.push((lines[++i] as string).trim());
      out.push(block.join('\n'));
      continue;
    }
    if (/^\s*(before_)?script:\s*$/.test(l)) inList = true;
    else if (inList && /^\s+- /.test(l)) out.push(l.replace(/^\s+- /, ''));
    else inList = false;
  }
  return out;
}

describe('the README', () => {
  it('its CI jobs are shell that parses: every script item and run block (bash -n)', () => {
    const scripts = readmeBlocks()
      .filter((b) => b.lang === 'yaml')
      .flatMap((b) => jobShell(b.body));
    expect(scripts.length).toBeGreaterThan(5);
    for (const script of scripts) {
      const r = spawnSync('bash', ['-n', '-c', script], { encoding: 'utf8' });
      expect(r.status, `${script}\n${r.stderr}`).toBe(0);
    }
  });

  it('starts with the two quick-start commands, exactly', () => {
    const first = readmeBlocks()[0];
    expect(first).toEqual({
      lang: 'sh',
      body:
        'npm ci && npm run build && ./bin/pm properties create --address "1 High St" --postcode "LS1 1AA" --city Leeds && ./bin/pm properties list\n' +
        'npm ci && npm test\n',
    });
  });

  it('uses only commands and flags that exist', () => {
    const root = program();
    const invocations = readmeBlocks().flatMap(commandLines).flatMap(pmInvocations);
    expect(invocations.length).toBeGreaterThan(30);
    for (const args of invocations) expect(checkInvocation(root, args), args.join(' ')).toEqual([]);
  });

  it('its CI job, run twice, makes the reminders of its CSV once: the second run changes nothing', async () => {
    const server = await startTestServer();
    try {
      const cwd = mkdtempSync(join(tmpdir(), 'pm-ci-'));
      const csv = readmeBlocks().find((b) => b.lang === 'csv');
      writeFileSync(join(cwd, 'reminders.csv'), csv?.body ?? '');
      const job = readmeBlocks().find((b) => b.lang === 'yaml' && /^\s+script:/m.test(b.body));
      const script = (job?.body.split(/^\s+script:\n/m)[1] ?? '').split('\n').map((l) => l.replace(/^\s*- /, ''));
      const runs = script.flatMap(pmInvocations);
      expect(runs.length).toBeGreaterThan(0);
      const opts = {
        cwd,
        env: { CI: 'true', PM_BASE_URL: server.url, PM_TOKEN: (await server.newAccount()).token },
        now: NOW,
      };
      const outputs: string[] = [];
      for (let round = 0; round < 2; round++)
        for (const args of runs) {
          const r = await runPm(args, opts);
          expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
          outputs.push(r.stderr);
        }
      const rows = (csv?.body ?? '').trim().split('\n').length - 1;
      // The apply's summary of the second round (the job's last step, the certificates' reminders, has none to make).
      expect(outputs.filter((o) => o.startsWith('created ')).at(-1)).toBe(
        `created 0, updated 0, deleted 0, unchanged ${rows}, failed 0\n`,
      );
      const listed = await runPm(['reminders', 'list', '--all', '--json', 'title'], opts);
      expect(JSON.parse(listed.stdout)).toHaveLength(rows);
    } finally {
      await server.close();
    }
  });

  it('lists the exit codes as pm --help does', () => {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const rows = [...text.matchAll(/^\| (\d+) \| (.*) \|$/gm)].map((m) => ({ code: Number(m[1]), meaning: m[2] }));
    expect(rows).toEqual(exitCodes().map(({ code, meaning }) => ({ code, meaning })));
  });

  it('links to files that exist', () => {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const links = [...text.matchAll(/\]\(([^)#][^)]*)\)/g)].map((m) => m[1] as string);
    expect(links).toContain('docs/api.md');
    for (const link of links) expect(existsSync(join(ROOT, link)), link).toBe(true);
    for (const anchor of text.matchAll(/\]\(#([^)]+)\)/g)) {
      const headings = [...text.matchAll(/^#+ (.*)$/gm)].map((m) =>
        (m[1] as string)
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replace(/ /g, '-'),
      );
      expect(headings, anchor[1]).toContain(anchor[1]);
    }
  });
});

// ------------------------------------------------------------------ start-up

describe('start-up', () => {
  /** What a run of bin/pm requires (module names as asked for), logged by a preloaded hook. */
  function required(args: string[]): { status: number | null; stdout: string; requests: string[] } {
    const dir = mkdtempSync(join(tmpdir(), 'pm-load-'));
    const log = join(dir, 'required.txt');
    const hook = join(dir, 'hook.cjs');
    writeFileSync(
      hook,
      `const Module = require('node:module');
const load = Module._load;
const seen = [];
Module._load = function (request, ...rest) { seen.push(request); return load.call(this, request, ...rest); };
process.on('exit', () => require('node:fs').writeFileSync(process.env.PM_LOAD_LOG, seen.join('\\n')));`,
    );
    const r = spawnSync(process.execPath, ['-r', hook, join(ROOT, 'bin', 'pm'), ...args], {
      // Without the code cache, the bundle is loaded by require, where the hook sees it.
      env: { PATH: process.env.PATH, HOME: tempHome(), PM_LOAD_LOG: log, NODE_DISABLE_COMPILE_CACHE: '1' },
      encoding: 'utf8',
    });
    return { status: r.status, stdout: r.stdout, requests: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
  }

  it('pm --version and the root help into a pipe read nothing of the CLI', () => {
    for (const args of [['--version'], ['--help'], ['-h'], ['help']]) {
      const r = required(args);
      expect(r.status, args.join(' ')).toBe(0);
      expect(r.stdout.length).toBeGreaterThan(0);
      expect(
        r.requests.filter((m) => m.includes('dist')),
        args.join(' '),
      ).toEqual([]);
    }
  });

  it('the full CLI loads no HTTP client, server, config loader, date or jq library for --help', () => {
    // --no-color: not the fast path, so the bundle runs and commander renders the help.
    const r = required(['--no-color', '--help']);
    expect(r.status).toBe(0);
    expect(r.requests.some((m) => m.endsWith('dist/bundle/pm.cjs'))).toBe(true);
    const late = r.requests.filter((m) =>
      /^(node:)?(net|http|https|tls|crypto|zlib)$|^pg$|better-sqlite3|cosmiconfig|luxon|chrono-node|jq-web|cli-progress/.test(
        m,
      ),
    );
    expect(late).toEqual([]);
  });

  /** Runs that neither serve nor use PostgreSQL load none of the packages `loaded` matches. */
  function loadNone(loaded: (request: string) => boolean): void {
    for (const args of [
      ['reminders', 'list'],
      ['serve', '--help'],
      ['serve', 'tokens', 'list'],
    ]) {
      const r = required(args);
      expect(r.status, args.join(' ')).toBe(0);
      expect(r.requests.filter(loaded), args.join(' ')).toEqual([]);
    }
  }

  it("only pm serve's server loads its logger and metrics libraries (pino, prom-client)", () => {
    loadNone((m) => /^(pino|prom-client)$|node_modules\/(pino|prom-client)\//.test(m));
  });

  it('a run that does not use PostgreSQL never loads its driver (pg)', () => {
    loadNone((m) => m === 'pg' || m.includes('node_modules/pg/'));
  });
});
