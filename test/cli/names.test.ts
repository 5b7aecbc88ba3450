/**
 * A name that names nothing is refused: every list filter and every create and update input that
 * names a record by a field of its (a status's label, a contact's email), found from the
 * descriptions, given a name one letter off. The built pm, against the real server and against
 * the embedded default: exit 1, nothing listed, made or changed, the flag named, and the nearest
 * name offered; as JSON under --json. The name itself is taken.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kebab } from '../../src/cli/flags.js';
import {
  filterRelationsOf,
  inputFields,
  namedBy,
  RESOURCES,
  resourceByPath,
  writableLinks,
} from '../../src/resources/index.js';
import type { LinkDef, ResourceDef, SetDef } from '../../src/resources/types.js';
import { pmAgainst, pmBin, tempHome } from '../helpers/cli.js';
import { startFaultyServer } from '../helpers/faulty-server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

type Pm = (args: readonly string[]) => Promise<{ code: number; stdout: string; stderr: string }>;

/** A named relation of a resource, its flag, and the field a person names its records by. */
interface Named {
  readonly r: ResourceDef;
  readonly rel: LinkDef | SetDef;
  readonly flag: string;
  readonly field: string;
}

const flagOf = (rel: LinkDef | SetDef) => `--${kebab('one' in rel ? rel.one : rel.name)}`;
const namedOf = (r: ResourceDef, rel: LinkDef | SetDef): Named => ({
  r,
  rel,
  flag: flagOf(rel),
  field: rel.by.find((b) => b !== 'uuid') as string,
});

/** Every list filter that names records by a field of theirs. */
const FILTERS: Named[] = RESOURCES.flatMap((r) =>
  filterRelationsOf(r)
    .filter(namedBy)
    .map((rel) => namedOf(r, rel)),
);
/** Whether a relation names its records by a field besides the uuid (a reminder's property is named by uuid alone). */
const byName = (rel: LinkDef | SetDef) => rel.by.some((b) => b !== 'uuid');

/** Every create input that does. */
const INPUTS: Named[] = RESOURCES.flatMap((r) =>
  r.verbs.create ? [...writableLinks(r, 'create'), ...(r.sets ?? [])].filter(byName).map((rel) => namedOf(r, rel)) : [],
);

/** Every update input that does, the changes of a set included (--add-competency). */
const UPDATES: Named[] = RESOURCES.flatMap((r) =>
  r.verbs.update
    ? [
        ...writableLinks(r, 'update')
          .filter(byName)
          .map((rel) => namedOf(r, rel)),
        ...(r.sets ?? []).flatMap((set) =>
          [set.one, `add_${set.one}`, `remove_${set.one}`].map((word) => ({
            ...namedOf(r, set),
            flag: `--${kebab(word)}`,
          })),
        ),
      ]
    : [],
);

/** The name a test's record of `n`'s target has: its own for each relation (an email where the field is one). */
const nameOf = (n: Named) =>
  n.field === 'email' ? `harbour.${n.r.path}@example.com` : `Harbour ${n.r.singular} ${n.rel.name}`;
/** One letter off: the third left out. */
const typo = (name: string) => name.slice(0, 2) + name.slice(3);

/** The flags of a create of `r` with its required fields. */
function requiredFlags(r: ResourceDef): string[] {
  return inputFields(r)
    .filter((f) => f.requiredOnCreate && f.clientDefault === undefined)
    .flatMap((f) => [`--${kebab(f.name)}`, f.name === 'email' ? 'made@example.com' : `Made ${f.name}`]);
}

/** Makes, through pm, the record each relation's name names (of the code the relation takes). */
async function seed(pm: Pm): Promise<void> {
  const made = new Set<string>();
  for (const n of [...FILTERS, ...INPUTS]) {
    const target = resourceByPath(n.rel.target);
    const body: Record<string, unknown> = { [n.field]: nameOf(n) };
    for (const f of inputFields(target).filter((x) => x.requiredOnCreate && body[x.name] === undefined))
      body[f.name] =
        f.kind === 'code'
          ? {
              code:
                'only' in n.rel && n.rel.only?.field === f.name
                  ? n.rel.only.code
                  : Number(Object.keys(f.codes ?? {})[0]),
            }
          : `Seeded ${f.name}`;
    const key = `${target.path} ${JSON.stringify(body)}`;
    if (made.has(key)) continue;
    made.add(key);
    const r = await pm([target.path, 'create', '--data', JSON.stringify(body), '-q']);
    expect(r.code, r.stderr).toBe(0);
  }
}

function refusals(where: string, pmOf: () => Pm) {
  describe(where, () => {
    it('finds the filters and inputs that name records: statuses, contact types, competencies, contacts', () => {
      const words = (ns: Named[]) => ns.map((n) => `${n.r.path} ${n.flag}`);
      expect(words(FILTERS)).toEqual(
        expect.arrayContaining(['properties --status', 'contacts --type', 'contacts --competency']),
      );
      expect(words(INPUTS)).toEqual(expect.arrayContaining(['properties --contact', 'contacts --competency']));
    });

    for (const n of FILTERS)
      it(`pm ${n.r.path} list ${n.flag}: one letter off its ${n.field} is exit 1 with the nearest; the ${n.field} itself is taken`, async () => {
        const pm = pmOf();
        const wrong = typo(nameOf(n));
        const r = await pm([n.r.path, 'list', n.flag, wrong]);
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr).toContain(`error: ${n.flag}: no `);
        expect(r.stderr).toContain(`"${wrong}"`);
        expect(r.stderr).toContain(`Did you mean "${nameOf(n)}"?`);

        const json = await pm([n.r.path, 'list', n.flag, wrong, '--json']);
        expect(json.code).toBe(1);
        expect(json.stdout).toBe('');
        const { error } = JSON.parse(json.stderr);
        expect(error.exit_code).toBe(1);
        expect(error.message).toContain(n.flag);
        expect(error.hint).toContain(`Did you mean "${nameOf(n)}"?`);

        // The name whole, in another case: taken (an empty list, exit 0).
        const right = await pm([n.r.path, 'list', n.flag, nameOf(n).toUpperCase(), '--json']);
        expect({ code: right.code, stderr: right.stderr }).toEqual({ code: 0, stderr: '' });
      });

    for (const n of INPUTS)
      it(`pm ${n.r.path} create ${n.flag}: one letter off its ${n.field} is exit 1 with the nearest, and nothing is made`, async () => {
        const pm = pmOf();
        const before = (await pm([n.r.path, 'list', '--all', '-q'])).stdout;
        const r = await pm([n.r.path, 'create', ...requiredFlags(n.r), n.flag, typo(nameOf(n))]);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain(`error: ${n.flag}: no `);
        expect(r.stderr).toContain(`Did you mean "${nameOf(n)}"?`);
        expect((await pm([n.r.path, 'list', '--all', '-q'])).stdout).toBe(before);
      });

    for (const n of UPDATES)
      it(`pm ${n.r.path} update ${n.flag}: one letter off its ${n.field} is exit 1 with the nearest, and nothing is changed`, async () => {
        const pm = pmOf();
        const made = await pm([n.r.path, 'create', ...requiredFlags(n.r), '-q']);
        const uuid = made.stdout.trim();
        const before = (await pm([n.r.path, 'get', uuid, '--json'])).stdout;
        const r = await pm([n.r.path, 'update', uuid, n.flag, typo(nameOf(n))]);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain(`error: ${n.flag}: no `);
        expect(r.stderr).toContain(`Did you mean "${nameOf(n)}"?`);
        expect((await pm([n.r.path, 'get', uuid, '--json'])).stdout).toBe(before);
      });
  });
}

let server: TestServer;
let againstServer: Pm;
let embedded: Pm;

beforeAll(async () => {
  server = await startTestServer();
  const acct = await server.newAccount();
  againstServer = pmAgainst(server.url, acct.token).pm;
  const env = { HOME: tempHome(), PATH: process.env.PATH ?? '' };
  embedded = (args) => pmBin(args, env);
  await seed(againstServer);
  await seed(embedded);
});
afterAll(() => server.close());

refusals('against a server', () => againstServer);
refusals('on the embedded default', () => embedded);

describe('an email where a contact is meant', () => {
  it('names the contact as an argument and as a parent, in any case; one that names nothing is not found, with the nearest', async () => {
    const acct = await server.newAccount();
    const { pm } = pmAgainst(server.url, acct.token);
    const made = await acct.api('POST', '/contacts', { name: 'Ann Lee', email: 'ann@example.com' });
    const uuid = made.body.data.uuid as string;
    await acct.api('POST', `/contacts/${uuid}/notes`, { content: 'Called Ann' });
    const got = await pm(['contacts', 'get', 'ANN@example.com', '--json', 'uuid']);
    expect(JSON.parse(got.stdout)).toEqual({ uuid });
    const notes = await pm(['notes', 'list', '--contact', 'ann@example.com', '--json', 'content']);
    expect(JSON.parse(notes.stdout)).toEqual([{ content: 'Called Ann' }]);
    const none = await pm(['contacts', 'get', 'an@example.com']);
    expect(none.code).toBe(3);
    expect(none.stderr).toBe(
      'error: <uuid>: no contact has email "an@example.com".\nDid you mean "ann@example.com"? List them with `pm contacts list`.\n',
    );
  });
});

describe('a server without the label filter (the hosted API has none)', () => {
  it('refusing it: the label is found among the whole catalogue, and a typo is still refused', async () => {
    const acct = await server.newAccount();
    const status = await acct.api('POST', '/statuses', { label: 'For Let', type: { code: 2 } });
    const made = await acct.api('POST', '/properties', {
      address: '1 Hosted Way',
      postcode: 'LS1 1AA',
      status: { uuid: status.body.data.uuid },
    });
    const hosted = await startFaultyServer({ upstream: server.url });
    try {
      const { pm } = pmAgainst(hosted.url, acct.token);
      const refuse = {
        kind: 'respond',
        status: 400,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'Unknown query parameter "label". statuses accepts: uuid.' }),
      } as const;
      hosted.script('GET', refuse);
      const r = await pm(['properties', 'list', '--status', 'for let', '-q']);
      expect(r).toEqual({ code: 0, stdout: `${made.body.data.uuid}\n`, stderr: '' });
      expect(hosted.requests.map((x) => x.path.split('?')[0])).toEqual(['/statuses', '/statuses', '/properties']);
      hosted.script('GET', refuse);
      const typo = await pm(['properties', 'list', '--status', 'For Lte']);
      expect(typo.code).toBe(1);
      expect(typo.stderr).toContain('Did you mean "For Let"?');
    } finally {
      await hosted.close();
    }
  });
});

describe('a name that names several', () => {
  it('a beginning several uuids share lists them one a line, under the sentence', async () => {
    const acct = await server.newAccount();
    const { pm } = pmAgainst(server.url, acct.token);
    const uuids: string[] = [];
    for (const address of ['1 Twin Row', '2 Twin Row']) {
      const made = await acct.api('POST', '/properties', { address, postcode: 'LS1 1AA' });
      uuids.push(made.body.data.uuid);
    }
    const shared = ['abcdef34-0000-4000-8000-000000000001', 'abcdef34-0000-4000-8000-000000000002'];
    for (const [i, u] of uuids.entries())
      await server.sql('UPDATE properties SET uuid = ? WHERE uuid = ? RETURNING id', [shared[i], u]);
    const r = await pm(['notes', 'create', '--property', 'ABCDEF34', '--content', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n').slice(0, 3)).toEqual([
      'error: --property abcdef34 is the beginning of the uuids of 2 properties: give more of it.',
      `  ${shared[0]}  1 Twin Row, LS1 1AA`,
      `  ${shared[1]}  2 Twin Row, LS1 1AA`,
    ]);
  });
});
