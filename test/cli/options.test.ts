/**
 * What the flags of a command become, with no server and no request: each constructor is given a
 * run function that records the options it is called with (as gh's tests pass runF).
 */
import { Readable } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { newCmdCreate } from '../../src/cli/commands/resource/create.js';
import type { CreateOptions } from '../../src/cli/commands/resource/create-run.js';
import { newCmdDelete } from '../../src/cli/commands/resource/delete.js';
import type { DeleteOptions } from '../../src/cli/commands/resource/delete-run.js';
import { newCmdList } from '../../src/cli/commands/resource/list.js';
import type { ListOptions } from '../../src/cli/commands/resource/list-run.js';
import { newCmdUpdate } from '../../src/cli/commands/resource/update.js';
import type { UpdateOptions } from '../../src/cli/commands/resource/update-run.js';
import { type AuthRuns, newCmdAuth } from '../../src/cli/commands/auth/auth.js';
import { type ConfigRuns, newCmdConfig } from '../../src/cli/commands/config/config.js';
import type { ServeRuns } from '../../src/cli/commands/serve/runs.js';
import { newCmdServe } from '../../src/cli/commands/serve/serve.js';
import { newCmdDownload } from '../../src/cli/commands/attachments/download.js';
import type { DownloadOptions } from '../../src/cli/commands/attachments/download-run.js';
import { newCmdUpload } from '../../src/cli/commands/attachments/upload.js';
import type { UploadOptions } from '../../src/cli/commands/attachments/upload-run.js';
import type { Deps } from '../../src/cli/context.js';
import { createFactory } from '../../src/cli/factory.js';
import { bodyFromFlags, changedSet, filterQuery, setChanges } from '../../src/cli/flag-values.js';
import { resourceByPath } from '../../src/resources/index.js';
import { Buffer_ } from '../helpers/cli.js';

const deps: Deps = {
  io: { stdout: new Buffer_(), stderr: new Buffer_(), stdin: Readable.from([]) },
  env: {},
  cwd: '/nowhere',
  home: '/nowhere',
  now: () => Date.parse('2026-11-21T12:00:00Z'),
  timeZone: 'UTC',
};
const f = createFactory(deps);
const properties = resourceByPath('properties');
const notes = resourceByPath('notes');
const contacts = resourceByPath('contacts');
const U1 = '1a2b3c4d-0000-4000-8000-000000000001';
const U2 = '1a2b3c4d-0000-4000-8000-000000000002';

/** Parses argv with the command; the run function's options, or the error thrown. */
async function parse<T>(make: (run: (o: T) => Promise<void>) => Command, argv: string[]): Promise<T> {
  let got: T | undefined;
  const cmd = make(async (o) => {
    got = o;
  });
  cmd.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  await cmd.parseAsync(argv, { from: 'user' });
  if (got === undefined) throw new Error('the run function was not called');
  return got;
}

const noop = async () => {};

describe('list', () => {
  const list = (argv: string[]) => parse<ListOptions>((run) => newCmdList(f, properties, run), argv);

  it('filters, paging and output flags', async () => {
    const o = await list([
      '--city',
      'leeds',
      '--bedrooms',
      '2',
      '--bedrooms',
      '3',
      '--no-has-garage',
      '--limit',
      '30',
      '--json',
      'uuid,city',
    ]);
    expect(o).toMatchObject({ resource: properties, limit: 30, all: false, output: { json: 'uuid,city' } });
    expect(o.page).toBeUndefined();
    expect(filterQuery(properties, o.flags, deps.now()).toString()).toBe(
      'city=leeds&bedrooms%5B%5D=2&bedrooms%5B%5D=3&has_garage=false',
    );
  });

  it('values that can be checked are checked before any run: a uuid, an embed, a range', async () => {
    await expect(list(['--uuid', 'x'])).resolves.toBeDefined();
    expect(() => filterQuery(properties, { uuid: ['x'] }, deps.now())).toThrow('--uuid must be a uuid');
    expect(() => filterQuery(properties, { bedrooms: ['-3'] }, deps.now())).toThrow('--bedrooms must be at least 0');
    expect(() => filterQuery(notes, { property: ['bad'] }, deps.now())).toThrow('--property must be a uuid');
    await expect(list(['--embed', 'notes'])).rejects.toThrow('--embed: properties cannot embed "notes"');
  });

  it('how flags combine is checked before any run', async () => {
    await expect(list(['--all', '--limit', '3'])).rejects.toThrow('--all and --limit cannot be used together.');
    await expect(list(['--per-page', '101'])).rejects.toThrow('--per-page must be at most 100, not 101.');
    await expect(list(['--page', '0'])).rejects.toThrow('--page must be a whole number from 1, not "0".');
  });
});

describe('create', () => {
  const create = (r = properties, argv: string[] = []) =>
    parse<CreateOptions>((run) => newCmdCreate(f, r, { create: run, bulk: noop }), argv);

  it('field flags, --data and --dry-run', async () => {
    const o = await create(properties, [
      '--address',
      '1 High St',
      '--postcode',
      'LS1 1AA',
      '--data',
      '{"city":"Leeds"}',
      '--dry-run',
    ]);
    expect(o).toMatchObject({ data: '{"city":"Leeds"}', dryRun: true, parent: undefined });
    expect(o.flags).toMatchObject({ address: '1 High St', postcode: 'LS1 1AA' });
  });

  it('a record created under a parent names exactly one', async () => {
    const o = await create(notes, ['--property', '1a2b3c4d-0000-4000-8000-000000000001', '--content-file', 'note.txt']);
    expect(o.parent).toEqual({ resource: 'properties', uuid: '1a2b3c4d-0000-4000-8000-000000000001' });
    expect(o.textFile).toBe('note.txt');
    await expect(create(notes, ['--content', 'x'])).rejects.toThrow(
      'a note belongs to a parent: give --property or --contact.',
    );
    await expect(
      create(notes, [
        '--property',
        '1a2b3c4d-0000-4000-8000-000000000001',
        '--contact',
        '1a2b3c4d-0000-4000-8000-000000000002',
      ]),
    ).rejects.toThrow('give only one of --property or --contact.');
  });

  it('bulk flags without --from-file are refused, not ignored', async () => {
    await expect(
      create(properties, ['--address', 'x', '--postcode', 'y', '--skip-existing', 'address']),
    ).rejects.toThrow('--skip-existing goes with --from-file');
  });

  it('--from-file goes to the bulk run', async () => {
    let bulk: unknown;
    const cmd = newCmdCreate(f, properties, {
      create: noop,
      bulk: async (o) => {
        bulk = o;
      },
    }).exitOverride();
    await cmd.parseAsync(['--from-file', 'rows.csv', '--concurrency', '8'], { from: 'user' });
    expect(bulk).toMatchObject({ verb: 'create', fromFile: 'rows.csv', flags: { concurrency: '8' } });
  });
});

describe('links and sets: --status, --no-status, --competency, --add-competency', () => {
  const update = (argv: string[]) =>
    parse<UpdateOptions>((run) => newCmdUpdate(f, contacts, { update: run, bulk: noop }), [U1, ...argv]);
  const when = { now: deps.now() };

  it('a uuid-shaped value names by uuid, anything else by label; --no-status sends null', async () => {
    const o = await update(['--status', ` ${U2} `, '--no-type', '--competency', 'Plumbing', '--competency', U2]);
    expect(bodyFromFlags(contacts, o.flags, 'update', when)).toEqual({
      status: { uuid: U2 },
      type: null,
      competencies: [{ label: 'Plumbing' }, { uuid: U2 }],
    });
    // A property's contact is named by uuid or email, as before.
    expect(bodyFromFlags(properties, { contact: 'jo@example.com', status: 'For Let' }, 'create', when)).toEqual({
      contact: { email: 'jo@example.com' },
      status: { label: 'For Let' },
    });
    expect(() => bodyFromFlags(contacts, { type: ' ' }, 'update', when)).toThrow('--type needs a uuid or label');
  });

  it('how they combine is checked before any run', async () => {
    await expect(update(['--status', 'Active', '--no-status'])).rejects.toThrow(
      '--status and --no-status cannot be used together.',
    );
    await expect(update(['--competency', 'A', '--remove-competency', 'B'])).rejects.toThrow(
      '--competency cannot be combined with --remove-competency',
    );
    // On create there is nothing to clear.
    await expect(
      parse<CreateOptions>((run) => newCmdCreate(f, contacts, { create: run, bulk: noop }), ['--no-status']),
    ).rejects.toThrow("unknown option '--no-status'");
  });

  it('--add-competency and --remove-competency: the set held, changed, sent whole', async () => {
    const o = await update([
      '--add-competency',
      'electrics',
      '--add-competency',
      'Plumbing',
      '--remove-competency',
      'PHOTOGRAPHY',
    ]);
    const [change] = setChanges(contacts, o.flags);
    const held = [
      { uuid: U1, label: 'Plumbing' },
      { uuid: U2, label: 'Photography' },
    ];
    expect(changedSet(change as NonNullable<typeof change>, held)).toEqual([{ uuid: U1 }, { label: 'electrics' }]);
    expect(bodyFromFlags(contacts, o.flags, 'update', when)).toEqual({});
  });

  it('list filters: several values by label or by uuid, not both', async () => {
    const list = (argv: string[]) => parse<ListOptions>((run) => newCmdList(f, contacts, run), argv);
    const o = await list(['--status', 'Active', '--competency', 'Plumbing', '--competency', 'Electrics', '--type', U1]);
    expect(decodeURIComponent(filterQuery(contacts, o.flags, deps.now()).toString())).toBe(
      'status[label]=Active&type[uuid]=1a2b3c4d-0000-4000-8000-000000000001&competencies[label][]=Plumbing&competencies[label][]=Electrics',
    );
    expect(() => filterQuery(contacts, { status: ['Active', U1] }, deps.now())).toThrow(
      '--status: give every value by uuid or by label, not some of each.',
    );
  });
});

describe('delete', () => {
  const del = (argv: string[]) =>
    parse<DeleteOptions>((run) => newCmdDelete(f, properties, { delete: run, bulk: noop }), argv);

  it('uuids and switches', async () => {
    expect(
      await del(['1a2b3c4d-0000-4000-8000-000000000001', '1a2b3c4d-0000-4000-8000-000000000002', '--yes', '--json']),
    ).toMatchObject({
      uuids: ['1a2b3c4d-0000-4000-8000-000000000001', '1a2b3c4d-0000-4000-8000-000000000002'],
      yes: true,
      json: true,
      dryRun: false,
      quiet: false,
    });
  });

  it('uuids and --from-file together are refused', async () => {
    await expect(del(['1a2b3c4d-0000-4000-8000-000000000001', '--from-file', 'x.ndjson'])).rejects.toThrow(
      'give either uuids or --from-file, not both.',
    );
    await expect(del(['not-a-uuid', '--yes'])).rejects.toThrow('<uuid> must be a uuid');
    await expect(del([])).rejects.toThrow('missing <uuid...>');
  });
});

describe('auth, config and serve', () => {
  /** A command's run, recorded: the options of the one called. */
  async function recorded<R extends object>(
    make: (runs: R) => Command,
    names: (keyof R)[],
    argv: string[],
  ): Promise<[keyof R, unknown]> {
    let got: [keyof R, unknown] | undefined;
    const runs = Object.fromEntries(
      names.map((n) => [
        n,
        async (o: unknown) => {
          got = [n, o];
        },
      ]),
    ) as R;
    const cmd = make(runs);
    const quiet = (c: Command): void => {
      c.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
      for (const sub of c.commands) quiet(sub);
    };
    quiet(cmd);
    await cmd.parseAsync(argv, { from: 'user' });
    if (!got) throw new Error('no run function was called');
    return got;
  }

  it('auth login', async () => {
    const got = await recorded<AuthRuns>(
      (runs) => newCmdAuth(f, runs),
      ['login', 'status', 'logout'],
      ['login', '--with-token', '--no-verify'],
    );
    expect(got).toEqual(['login', { f, withToken: true, verify: false }]);
  });

  /** `pm serve ...` parsed: which run function it calls, and with what. */
  const serve = (argv: string[]) =>
    recorded(
      (runs: ServeRuns) => newCmdServe(f, runs),
      ['serve', 'tokensCreate', 'tokensList', 'tokensRevoke', 'accountsCreate', 'accountsList'],
      argv,
    );

  it('config set, and its keys checked before any run', async () => {
    const make = (runs: ConfigRuns) => newCmdConfig(f, runs);
    const names: (keyof ConfigRuns)[] = ['list', 'get', 'set', 'unset', 'path'];
    expect(await recorded(make, names, ['set', 'timeout', '60', '--profile-scope'])).toEqual([
      'set',
      { f, key: 'timeout', value: '60', profileScope: true },
    ]);
    await expect(recorded(make, names, ['set', 'token', 'x'])).rejects.toThrow('tokens are never passed as arguments');
    await expect(recorded(make, names, ['get', 'colour'])).rejects.toThrow('unknown key "colour".');
  });

  it('serve tokens create', async () => {
    const [name, o] = await serve([
      'tokens',
      'create',
      '--name',
      'ci',
      '--scopes',
      'reminders.read,reminders.write',
      '--account',
      '2',
      '--data',
      '/srv/pm/team.db',
    ]);
    expect(name).toBe('tokensCreate');
    expect(o).toMatchObject({
      dataFile: '/srv/pm/team.db',
      name: 'ci',
      scopes: ['reminders.read', 'reminders.write'],
      account: 2,
    });
    await expect(serve(['tokens', 'create', '--scopes', 'everything'])).rejects.toThrow(
      '--scopes: unknown scope "everything".',
    );
    await expect(serve(['--port', '70000'])).rejects.toThrow('--port must be a number from 0 to 65535');
  });

  it('serve: the time a client may take, in seconds', async () => {
    const [name, o] = await serve(['--header-timeout', '5', '--request-timeout', '120', '--data', 'x.db']);
    expect(name).toBe('serve');
    expect(o).toMatchObject({ headersTimeoutMs: 5000, requestTimeoutMs: 120_000 });
    await expect(serve(['--request-timeout', '0'])).rejects.toThrow(
      '--request-timeout must be a whole number of seconds from 1 to 86400, not "0".',
    );
    await expect(serve(['--header-timeout', '2s'])).rejects.toThrow('--header-timeout must be');
  });

  it("serve: a list's time budget, and the connections one address may hold", async () => {
    const [, o] = await serve(['--query-budget', '3', '--max-connections-per-address', '8', '--data', 'x.db']);
    expect(o).toMatchObject({ queryBudgetMs: 3000, maxConnectionsPerAddress: 8 });
    await expect(serve(['--query-budget', '0'])).rejects.toThrow('--query-budget must be');
    await expect(serve(['--query-budget', '3601'])).rejects.toThrow('--query-budget must be');
    await expect(serve(['--max-connections-per-address', '0'])).rejects.toThrow(
      '--max-connections-per-address must be a whole number from 1',
    );
  });
  it('serve: the largest attachment, in bytes or with a unit; where uploads wait', async () => {
    const [, o] = await serve(['--max-attachment-size', '512KiB', '--data', 'x.db']);
    expect(o).toMatchObject({ maxAttachmentBytes: 512 * 1024 });
    expect(await serve(['--max-attachment-size', '1048576', '--data', 'x.db'])).toMatchObject([
      'serve',
      { maxAttachmentBytes: 1048576 },
    ]);
    expect(await serve(['--upload-dir', '/srv/pm/uploads', '--data', 'x.db'])).toMatchObject([
      'serve',
      { uploadDir: '/srv/pm/uploads' },
    ]);
    await expect(serve(['--max-attachment-size', '12XB'])).rejects.toThrow(
      '--max-attachment-size must be a size: bytes, or with a unit (512KiB, 100MiB, 1GiB), not "12XB".',
    );
  });
});

describe('attachments: upload and download', () => {
  const attachments = resourceByPath('attachments');
  const upload = (argv: string[]) => parse<UploadOptions>((run) => newCmdUpload(f, attachments, run), argv);
  const download = (argv: string[]) => parse<DownloadOptions>((run) => newCmdDownload(f, attachments, run), argv);

  it('upload: files under one parent, by its uuid or the beginning of it; - with --name', async () => {
    const o = await upload(['a.pdf', 'b.jpg', '--contact', '1A2B3C4D', '--description', 'ID', '--skip-existing']);
    expect(o).toMatchObject({
      files: ['a.pdf', 'b.jpg'],
      parent: { resource: contacts, uuid: '1a2b3c4d' },
      description: 'ID',
      skipExisting: true,
      json: false,
    });
    expect((await upload(['-', '--name', 'x.txt', '--property', U1])).name).toBe('x.txt');
    await expect(upload(['a.pdf'])).rejects.toThrow('give --property or --contact');
    await expect(upload(['a.pdf', '--property', U1, '--contact', U2])).rejects.toThrow('give only one of');
    await expect(upload(['-', '--property', U1])).rejects.toThrow('give --name');
    await expect(upload(['a.pdf', 'b.pdf', '--name', 'x', '--property', U1])).rejects.toThrow('--name names one file');
    await expect(upload(['-', '--name', 'x', '--skip-existing', '--property', U1])).rejects.toThrow('--skip-existing');
  });

  it('download: --to one file, --dir for several, not both', async () => {
    expect(await download([U1, '--to', 'lease.pdf', '--clobber'])).toMatchObject({
      uuids: [U1],
      to: 'lease.pdf',
      clobber: true,
    });
    expect((await download([U1, U2, '--dir', 'out'])).dir).toBe('out');
    await expect(download([U1, U2, '--to', 'x'])).rejects.toThrow('--to names one file');
    await expect(download([U1, '--to', 'x', '--dir', 'y'])).rejects.toThrow('give --to or --dir, not both');
  });
});
