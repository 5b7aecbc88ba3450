/**
 * Every argument and flag of pm that takes a uuid, found by walking the command tree (the program
 * pm builds) and told what it names by the descriptions: each is given the first 8 characters of
 * a record's uuid, in lower case and in upper case, by the built pm against the real server, and
 * must take it as that record. An argument or flag of a kind this walk does not know fails it,
 * so that the next one cannot be missed.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command, Option } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFactory } from '../../src/cli/factory.js';
import { kebab, matchKeys } from '../../src/cli/flags.js';
import { buildProgram } from '../../src/cli/program.js';
import { inputFields, RESOURCES, resourceByPath } from '../../src/resources/index.js';
import type { LinkDef, RelationDef, ResourceDef, SetDef } from '../../src/resources/types.js';
import { pmAgainst } from '../helpers/cli.js';
import { type Account, startTestServer, type TestServer } from '../helpers/server.js';

/** Where a uuid is taken: a command (the words after pm), and its argument or one of its options. */
interface Site {
  readonly words: readonly string[];
  readonly arg?: string;
  readonly option?: Option;
}

const hidden = (c: Command) => (c as unknown as { _hidden?: boolean })._hidden === true;

/** Every argument named for a uuid and every option whose value is one (`<uuid>`, `<uuid|label>`), of every command. */
function sites(): Site[] {
  const sink = { write: () => true };
  const program = buildProgram(
    createFactory({
      io: { stdout: sink, stderr: sink, stdin: { async *[Symbol.asyncIterator]() {} } },
      env: {},
      cwd: tmpdir(),
      home: tmpdir(),
      now: () => Date.now(),
    }),
  );
  const out: Site[] = [];
  const walk = (c: Command, words: string[]) => {
    for (const a of c.registeredArguments) if (/uuid/.test(a.name())) out.push({ words, arg: a.name() });
    for (const o of c.options) if (/<[^>]*\buuid\b[^>]*>/.test(o.flags)) out.push({ words, option: o });
    for (const sub of c.commands) if (!hidden(sub)) walk(sub, [...words, sub.name()]);
  };
  walk(program, []);
  return out;
}

let server: TestServer;
let acct: Account;
let pm: ReturnType<typeof pmAgainst>['pm'];
const dir = mkdtempSync(join(tmpdir(), 'pm-walk-'));
let n = 0;

beforeAll(async () => {
  server = await startTestServer();
  acct = await server.newAccount();
  pm = pmAgainst(server.url, acct.token).pm;
});
afterAll(() => server.close());

/** A body of `r`'s required fields (a code field: the `only` code where given, else its first). */
function required(r: ResourceDef, only?: { field: string; code: number }): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of inputFields(r).filter((x) => x.requiredOnCreate)) {
    n++;
    if (f.kind === 'code')
      body[f.name] = { code: only?.field === f.name ? only.code : Number(Object.keys(f.codes ?? {})[0]) };
    else body[f.name] = f.name === 'email' ? `walk${n}@example.com` : `Walk ${f.name} ${n}`;
  }
  return body;
}

/** The flags that give `r`'s required fields on create. */
const requiredFlags = (r: ResourceDef): string[] =>
  Object.entries(required(r)).flatMap(([k, v]) => [
    `--${kebab(k)}`,
    typeof v === 'object' ? String((v as { code: number }).code) : String(v),
  ]);

/**
 * A record of `r` made through the API (where it has parents, under `parent`'s record `of`, or a
 * new one of its first; a file where it is one): its uuid.
 */
async function make(
  r: ResourceDef,
  extra: Record<string, unknown> = {},
  parent?: { relation: RelationDef; of: string },
): Promise<string> {
  const p = parent?.relation ?? r.parents?.[0];
  const under = p ? `/${p.target}/${parent?.of ?? (await make(resourceByPath(p.target)))}` : '';
  const made = r.files
    ? await acct.api('POST', `${under}/${r.path}?name=walk.txt`, undefined, {
        raw: 'walked',
        headers: { 'content-type': 'text/plain' },
      })
    : await acct.api('POST', `${under}/${r.path}`, { ...required(r), ...extra });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body.data.uuid as string;
}

/** A record of a link's or a set's target, of the code the link takes. */
const makeTarget = (rel: LinkDef | SetDef) =>
  make(resourceByPath(rel.target), 'only' in rel && rel.only ? required(resourceByPath(rel.target), rel.only) : {});

/** What a link or a set holds on a record, by uuid, as `?embed=` shows it. */
async function held(r: ResourceDef, uuid: string, rel: LinkDef | SetDef): Promise<string[]> {
  const got = await acct.api('GET', `/${r.path}/${uuid}?embed=${rel.name}`);
  const v = got.body.data[rel.name]?.data ?? got.body.data[rel.name];
  return (Array.isArray(v) ? v : v ? [v] : []).map((x: { uuid: string }) => x.uuid);
}

/** A file apply reads that holds no record: --prune --dry-run then plans to delete what the filter selects. */
function emptyFile(): string {
  const file = join(dir, 'empty.ndjson');
  writeFileSync(file, '');
  return file;
}

/** A case: the command to run with the beginning typed, and what shows it was taken as the record. */
interface Case {
  readonly uuid: string;
  readonly args: (typed: string) => string[];
  readonly check: (r: { code: number; stdout: string; stderr: string }) => Promise<void> | void;
}

const ok = (r: { code: number; stderr: string }) => {
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).not.toContain('error');
};

/** A record for an argument of `pm <resource> <verb> <uuid>`. */
async function argumentCase(r: ResourceDef, verb: string): Promise<Case> {
  const uuid = await make(r);
  const cmd = (typed: string) => [r.path, verb, typed];
  switch (verb) {
    case 'get':
      return {
        uuid,
        args: (t) => [...cmd(t), '--json', 'uuid'],
        check: (x) => expect(JSON.parse(x.stdout)).toEqual({ uuid }),
      };
    case 'update': {
      const field = inputFields(r).find((f) => f.kind === 'text' && !f.generated && f.name !== 'email')?.name as string;
      return {
        uuid,
        args: (t) => [...cmd(t), `--${kebab(field)}`, `Changed ${uuid}`],
        check: async (x) => {
          ok(x);
          expect((await acct.api('GET', `/${r.path}/${uuid}`)).body.data[field]).toBe(`Changed ${uuid}`);
        },
      };
    }
    case 'delete':
      return {
        uuid,
        args: (t) => [...cmd(t), '--yes'],
        check: async (x) => {
          ok(x);
          expect((await acct.api('GET', `/${r.path}/${uuid}`)).status).toBe(404);
        },
      };
    case 'download': {
      const to = join(dir, `${uuid}.txt`);
      return {
        uuid,
        args: (t) => [...cmd(t), '--to', to],
        check: (x) => {
          ok(x);
          expect(existsSync(to)).toBe(true);
        },
      };
    }
    case 'done':
    case 'undone': {
      // The field an agenda's record is done by (done_at): set by done, cleared by undone.
      const field = r.agenda?.done as string;
      if (verb === 'undone') await acct.api('PUT', `/${r.path}/${uuid}`, { [field]: '2026-01-01T00:00:00Z' });
      return {
        uuid,
        args: (t) => cmd(t),
        check: async (x) => {
          ok(x);
          const now = (await acct.api('GET', `/${r.path}/${uuid}`)).body.data[field];
          if (verb === 'done') expect(now).toEqual(expect.any(String));
          else expect(now).toBeNull();
        },
      };
    }
    default:
      throw new Error(`pm ${r.path} ${verb} <uuid>: this walk does not know what to run it with; add its case`);
  }
}

/** A feed for `pm <resource> feed revoke <uuid>`. */
async function feedCase(): Promise<Case> {
  const made = await acct.api('POST', '/calendar-feeds', { name: `walk ${++n}` });
  const uuid = made.body.data.uuid as string;
  return {
    uuid,
    args: (t) => [...RESOURCES.filter((r) => r.agenda).map((r) => r.path), 'feed', 'revoke', t],
    check: async (x) => {
      ok(x);
      const left = (await acct.api('GET', '/calendar-feeds')).body.data.map((f: { uuid: string }) => f.uuid);
      expect(left).not.toContain(uuid);
    },
  };
}

/** A record named by an option of a command of `r` (--uuid, a parent's, a link's or a set's). */
async function optionCase(r: ResourceDef, verb: string, option: Option): Promise<Case> {
  const word = (option.long as string).slice(2);
  const parent = r.parents?.find((p) => p.name === word);
  const link = r.links?.find((l) => kebab(l.name) === word);
  const set = r.sets?.find((x) => [x.one, `add_${x.one}`, `remove_${x.one}`].map(kebab).includes(word));
  const flag = option.long as string;
  // apply takes the list filters for --prune, which plans to delete what they select.
  const prune = (t: string) => [
    r.path,
    'apply',
    '--from-file',
    emptyFile(),
    '--key',
    matchKeys(r),
    '--prune',
    '--dry-run',
    flag,
    t,
  ];
  if (word === 'uuid') {
    const uuid = await make(r);
    if (verb === 'list')
      return { uuid, args: (t) => [r.path, 'list', flag, t, '-q'], check: (x) => expect(x.stdout).toBe(`${uuid}\n`) };
    if (verb === 'apply') return { uuid, args: prune, check: (x) => expect(x.stdout).toContain(uuid) };
  }
  const rel = parent ?? link ?? set;
  if (rel && verb === 'apply') {
    // --prune checks what it deletes on each record itself, so it takes no filter on other records:
    // the name is taken, and the filter refused for what it is.
    const named = link ?? set;
    const uuid = await (named ? makeTarget(named) : make(resourceByPath(rel.target)));
    return {
      uuid,
      args: prune,
      check: (x) => {
        expect(x.code).toBe(2);
        expect(x.stderr).toContain('--prune cannot check a filter on other records');
      },
    };
  }
  if (parent) {
    const uuid = await make(resourceByPath(parent.target));
    const children = async () =>
      (await acct.api('GET', `/${r.path}?${parent.name}[uuid]=${uuid}`)).body.data.map((x: { uuid: string }) => x.uuid);
    if (verb === 'list') {
      const child = await make(r, {}, { relation: parent, of: uuid });
      return { uuid, args: (t) => [r.path, 'list', flag, t, '-q'], check: (x) => expect(x.stdout).toBe(`${child}\n`) };
    }
    if (verb === 'create' || verb === 'upload') {
      const file = join(dir, 'walk.txt');
      writeFileSync(file, 'walked');
      const more = verb === 'upload' ? [file] : requiredFlags(r);
      return {
        uuid,
        args: (t) => [r.path, verb, flag, t, ...more],
        check: async (x) => {
          ok(x);
          expect(await children()).toHaveLength(1);
        },
      };
    }
  }
  const named = link ?? set;
  if (named) {
    const uuid = await makeTarget(named);
    const body = (uuids: string[]) =>
      link ? { [named.name]: uuids[0] ? { uuid: uuids[0] } : null } : { [named.name]: uuids.map((u) => ({ uuid: u })) };
    if (verb === 'list') {
      const rec = await make(r, body([uuid]));
      return { uuid, args: (t) => [r.path, 'list', flag, t, '-q'], check: (x) => expect(x.stdout).toBe(`${rec}\n`) };
    }
    if (verb === 'create')
      return {
        uuid,
        args: (t) => [r.path, 'create', ...requiredFlags(r), flag, t, '-q'],
        check: async (x) => {
          ok(x);
          expect(await held(r, x.stdout.trim(), named)).toEqual([uuid]);
        },
      };
    if (verb === 'update') {
      const removing = word.startsWith('remove-');
      const rec = await make(r, removing ? body([uuid]) : {});
      return {
        uuid,
        args: (t) => [r.path, 'update', rec, flag, t, '-q'],
        check: async (x) => {
          ok(x);
          expect(await held(r, rec, named)).toEqual(removing ? [] : [uuid]);
        },
      };
    }
  }
  throw new Error(`pm ${r.path} ${verb} ${option.flags}: this walk does not know what it names; add its case`);
}

async function caseOf(site: Site): Promise<Case> {
  const [path, verb] = site.words as [string, string];
  const r = RESOURCES.find((x) => x.path === path);
  if (r && verb === 'feed' && site.arg) return feedCase();
  if (r && site.arg) return argumentCase(r, verb);
  if (r && site.option) return optionCase(r, verb, site.option);
  throw new Error(`pm ${site.words.join(' ')}: this walk does not know what ${site.arg ?? site.option?.flags} names`);
}

describe('every argument and flag that takes a uuid takes its first 8 characters, in any case', () => {
  const all = sites();

  it('the walk finds them all: arguments, list filters, parents, links and sets, feeds', () => {
    const named = all.map((s) => `${s.words.join(' ')} ${s.arg ? `<${s.arg}>` : s.option?.long}`);
    // A few by name, so that a walk finding nothing cannot pass.
    for (const one of [
      'properties get <uuid>',
      'properties list --uuid',
      'notes create --property',
      'properties create --contact',
      'contacts update --add-competency',
      'contacts list --type',
      'attachments download <uuid>',
      'reminders feed revoke <uuid>',
    ])
      expect(named).toContain(one);
    expect(all.length).toBeGreaterThan(40);
  });

  for (const site of all) {
    const name = `${site.words.join(' ')} ${site.arg ? `<${site.arg}>` : site.option?.long}`;
    it(name, async () => {
      for (const upper of [false, true]) {
        const c = await caseOf(site);
        const typed = upper ? c.uuid.slice(0, 8).toUpperCase() : c.uuid.slice(0, 8);
        const args = c.args(typed);
        const res = await pm(args);
        try {
          await c.check(res);
        } catch (e) {
          throw new Error(`pm ${args.join(' ')} -> ${res.code}\n${res.stderr}\n${(e as Error).message}`);
        }
      }
    });
  }
});
