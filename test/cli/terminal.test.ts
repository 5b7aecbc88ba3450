/**
 * A person at a terminal, in a real one: tmux runs bash with pm's completion loaded, on the
 * embedded default with an empty HOME. The person creates a property, adds a note (completing
 * the property's uuid with TAB), lists notes with a filter, and deletes the property, answering
 * the confirmation prompt; the screen (80 columns by 24 rows, as a new terminal has) must read
 * as the README's session says, uuids and times aside.
 *
 * Needs tmux (apt-get install -y tmux); without it the test is skipped, saying so.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/cli.js';
import { type FaultyServer, startFaultyServer } from '../helpers/faulty-server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const ROOT = join(import.meta.dirname, '..', '..');
const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
if (!HAS_TMUX)
  console.warn('tmux is not installed: the terminal session test is skipped (install it: apt-get install -y tmux).');

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** The README's terminal session: the console block after its test/cli/terminal.test.ts comment. */
function readmeSession(): string[] {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = text.indexOf('test/cli/terminal.test.ts');
  const m = /```console\n([\s\S]*?)```/.exec(text.slice(at));
  if (at < 0 || !m) throw new Error('README.md has no terminal session for this test');
  return (m[1] as string).replace(/\n$/, '').split('\n');
}

/**
 * Times as "<time>", and each uuid as the one in the same place of first appearance in `like`;
 * a uuid's first 8 characters (a terminal's table) as that one's.
 */
function normalise(lines: readonly string[], like: readonly string[]): string[] {
  const theirs = [...new Set(like.join('\n').match(UUID) ?? [])];
  const ours = [...new Set(lines.join('\n').match(UUID) ?? [])];
  const short = (u: string) => ours.findIndex((x) => x.startsWith(u));
  return lines.map((l) =>
    l
      .replace(UUID, (u) => theirs[ours.indexOf(u)] ?? u)
      .replace(/\b[0-9a-f]{8}\b(?!-)/g, (u) => theirs[short(u)]?.slice(0, 8) ?? u)
      .replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} \([^)]*\)/g, '<time>')
      .trimEnd(),
  );
}

describe.skipIf(!HAS_TMUX)('a terminal session (tmux)', () => {
  const socket = `pm-test-${process.pid}-${Date.now()}`;
  const tmux = (...args: string[]) => {
    const r = spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const screen = (): string[] => {
    const lines = tmux('capture-pane', '-p', '-J', '-t', 'pm', '-S', '-')
      .split('\n')
      .map((l) => l.trimEnd());
    while (lines.length && (lines[lines.length - 1] as string).trim() === '') lines.pop();
    return lines;
  };
  const type = (text: string) => tmux('send-keys', '-t', 'pm', '-l', '--', text);
  const press = (key: string) => tmux('send-keys', '-t', 'pm', key);
  async function waitFor(what: string, ok: (lines: string[]) => boolean, ms = 20_000): Promise<string[]> {
    const until = Date.now() + ms;
    for (;;) {
      const lines = screen();
      if (ok(lines)) return lines;
      if (Date.now() > until) throw new Error(`waited for ${what}; the screen:\n${lines.join('\n')}`);
      await sleep(100);
    }
  }
  /** TAB until the line under the cursor holds `uuid` (a busy machine may need a second try). */
  async function complete(uuid: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      press('Tab');
      try {
        await waitFor('the uuid completed', (l) => (l[l.length - 1] as string).includes(uuid), 8000);
        return;
      } catch (e) {
        if (attempt === 3) throw e;
      }
    }
  }
  /** The prompt is back, on the last line: the command has finished. */
  const prompt = (lines: string[]) => lines[lines.length - 1] === '$';

  beforeAll(async () => {
    const bin = mkdtempSync(join(tmpdir(), 'pm-bin-'));
    writeFileSync(join(bin, 'pm'), `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'bin', 'pm')}" "$@"\n`);
    chmodSync(join(bin, 'pm'), 0o755);
    const env = [
      `HOME=${tempHome()}`,
      `PATH=${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
      'TERM=xterm-256color',
      'TZ=UTC',
      'LC_ALL=C.UTF-8',
      "PS1='$ '",
    ].join(' ');
    // The size a new terminal has.
    tmux('new-session', '-d', '-s', 'pm', '-x', '80', '-y', '24', `env -i ${env} bash --norc --noprofile`);
    await waitFor('the shell', prompt);
    type('source <(pm completion bash) && clear');
    press('Enter');
    await waitFor('the completion to load', (l) => l.length === 1 && prompt(l));
    tmux('clear-history', '-t', 'pm');
  });
  afterAll(() => {
    spawnSync('tmux', ['-L', socket, 'kill-server']);
  });

  it('creates a property, adds a note, lists with a filter, deletes at the prompt: the screen the README shows', async () => {
    type('pm properties create --address "1 High St" --postcode "LS1 1AA" --city Leeds --bedrooms 3');
    press('Enter');
    const created = await waitFor('the property', (l) => prompt(l) && l.some((x) => x.startsWith('Created property')));
    const property = (created.find((x) => x.startsWith('Created property'))?.match(UUID) ?? [])[0] as string;
    expect(property).toBeDefined();

    // The person does not type the uuid: TAB completes it (the only property there is).
    type('pm notes create --property ');
    await complete(property);
    type('--content "Boiler serviced"');
    press('Enter');
    await waitFor('the note', (l) => prompt(l) && l.some((x) => x.startsWith('Created note')));

    type('pm notes list --property-where city=leeds');
    press('Enter');
    await waitFor('the list', (l) => prompt(l) && l.some((x) => x.startsWith('showing')));

    type('pm properties delete ');
    await complete(property);
    press('Enter');
    await waitFor('the question', (l) => (l[l.length - 1] as string).endsWith('[y/N]'));
    type('y');
    press('Enter');
    await waitFor('the deletion', (l) => prompt(l) && l.some((x) => x.startsWith('Deleted property')));

    type('pm notes list --property-where city=leeds');
    press('Enter');
    const end = await waitFor('the empty list', (l) => prompt(l) && l.some((x) => x === 'No notes found.'));

    const expected = readmeSession();
    const seen = end.slice(0, -1); // the last prompt
    expect(normalise(seen, expected).join('\n')).toBe(normalise(expected, expected).join('\n'));
  });

  it.skipIf(spawnSync('less', ['--version']).status !== 0)(
    'a list longer than the screen opens in less; q leaves it, exit 0',
    async () => {
      const input = join(mkdtempSync(join(tmpdir(), 'pm-pager-')), 'many.ndjson');
      writeFileSync(
        input,
        Array.from({ length: 80 }, (_, i) => `${JSON.stringify({ title: `paged ${i}` })}\n`).join(''),
      );
      type(
        `clear; pm reminders create --from-file ${input} -q > /dev/null && clear && pm reminders list --all --title paged`,
      );
      press('Enter');
      // less's prompt on the last line, the first records above it.
      const inLess = await waitFor('the pager', (l) => l[l.length - 1] === ':' && l.some((x) => x.includes('paged 0')));
      expect(inLess.length).toBe(24);
      press('G');
      await waitFor('the end of the list', (l) => l.some((x) => x.startsWith('showing 1-80 of 80')));
      press('q');
      await waitFor('the prompt', prompt);
      type('echo "exit $?"');
      press('Enter');
      await waitFor('the exit code', (l) => prompt(l) && l.includes('exit 0'));
    },
  );

  describe('a long list from a slow server', () => {
    let server: TestServer;
    let slow: FaultyServer;
    let prefix: string;
    beforeAll(async () => {
      server = await startTestServer();
      slow = await startFaultyServer({ upstream: server.url });
      const acct = await server.newAccount();
      for (let i = 0; i < 12; i++) await acct.api('POST', '/reminders', { title: `slow ${i}` });
      prefix = `PM_BASE_URL=${slow.url} PM_TOKEN=${acct.token}`;
    });
    afterAll(async () => {
      await slow.close();
      await server.close();
    });

    /** Lists --all, 5 a page, the second page never coming; Ctrl-C once it has been asked for. */
    async function interrupt(flags: string): Promise<void> {
      slow.reset();
      slow.script('GET', { kind: 'forward' }, { kind: 'stall' });
      type(`clear; ${prefix} pm reminders list --all --per-page 5 --fields title,anytime ${flags}`);
      press('Enter');
      // The first page is on the screen while the list goes on.
      await waitFor('the first page', (l) => l.some((x) => /^slow 4 +no$/.test(x)) && slow.count('GET') >= 2);
      press('C-c');
    }

    it('shows each page as it arrives; Ctrl-C keeps what arrived, says how far it got, exits 130', async () => {
      await interrupt('--no-pager');
      const end = await waitFor('the prompt', prompt);
      type('echo "exit $?"');
      press('Enter');
      const after = await waitFor('the exit code', (l) => prompt(l) && l.some((x) => x.startsWith('exit ')));
      const at = after.findIndex((x) => x.startsWith('title'));
      expect(after.slice(at)).toEqual([
        'title   anytime',
        ...[0, 1, 2, 3, 4].map((i) => `slow ${i}  no`),
        // The terminal's echo of Ctrl-C, on a line of its own.
        '^C',
        'showing 1-5 of 12, page 1 of 3',
        'error: interrupted: 5 of 12 reminders listed.',
        '$ echo "exit $?"',
        'exit 130',
        '$',
      ]);
      expect(end.length).toBeGreaterThan(0);
    });

    it.skipIf(spawnSync('less', ['--version']).status !== 0)(
      'through less: Ctrl-C leaves what arrived in the pager; q leaves it, then the message, exit 130',
      async () => {
        await interrupt('');
        // The footer comes into the pager after the records; pm waits for the person to leave.
        await waitFor('the footer in the pager', (l) => l.some((x) => x.startsWith('showing 1-5 of 12')));
        press('q');
        await waitFor('the prompt', (l) => prompt(l) && l.some((x) => x.startsWith('error: interrupted')));
        type('echo "exit $?"');
        press('Enter');
        const after = await waitFor('the exit code', (l) => prompt(l) && l.some((x) => x.startsWith('exit ')));
        expect(after).toContain('exit 130');
        expect(after).toContain('slow 4  no');
      },
    );
  });

  describe('tables at 80 columns', () => {
    /** Runs one command on a clear screen; its screen without the prompt lines. */
    async function shown(command: string): Promise<string[]> {
      type('clear');
      press('Enter');
      await waitFor('a clear screen', (l) => l.length === 1 && prompt(l));
      tmux('clear-history', '-t', 'pm');
      type(command);
      press('Enter');
      const lines = await waitFor(command, (l) => l.length > 1 && prompt(l));
      return lines.filter((l) => !l.startsWith('$'));
    }
    const fits = (lines: readonly string[]) => {
      // -J joins a line the terminal wrapped: longer than 80 means it did not fit.
      for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(80);
    };
    const EMAIL = 'ann.lee@example-lettings.co.uk';
    const TITLE = 'Renew the insurance before it runs out';

    beforeAll(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'pm-tables-'));
      writeFileSync(join(dir, 'gas-safety.pdf'), Buffer.alloc(2_900_000));
      const made = await shown(
        [
          `cd ${dir}`,
          'pm types create --label Tenant -q >/dev/null',
          `pm contacts create --name "Ann Lee" --email ${EMAIL} --contact-number "0113 496 0000" --type Tenant -q >/dev/null`,
          'p=$(pm properties create --address "2 Low Street, Lower Wortley" --postcode "LS12 4AB" -q)',
          'pm attachments upload gas-safety.pdf --property $p --description "Gas safety certificate 2026" --json >/dev/null',
          `pm reminders create --title "${TITLE}" --due-at tomorrow -q >/dev/null`,
          'pm reminders create --title "Call the tenant" --due-at today -q >/dev/null',
          'pm reminders create --title "Read the meter" --due-at "2 days ago" -q >/dev/null',
          'echo made',
        ].join(' && '),
      );
      expect(made).toContain('made');
    });

    it('contacts: whole emails, the type, and the columns that say nothing named', async () => {
      const lines = await shown('pm contacts list');
      fits(lines);
      expect(lines[0]).toMatch(/^uuid +name +email +contact_number +type$/);
      expect(lines.find((l) => l.includes('Ann Lee'))).toMatch(new RegExp(` ${EMAIL} +0113 496 0000 +Tenant$`));
      expect(lines).toContain('hidden: company, status (empty), num_notes (all 0); --fields to show them');
    });

    it('attachments: the name, the description, the size as people read it, before the MIME type', async () => {
      const lines = await shown('pm attachments list');
      fits(lines);
      expect(lines[0]).toMatch(/^uuid +name +description +size +mime_type/);
      expect(lines[1]).toMatch(/^[0-9a-f]{8} {2}gas-safety\.pdf {2}Gas safety \S+ +2\.9 MB {2}\S/);
    });

    it('reminders due: 8-character uuids, titles whole, one alignment across the sections', async () => {
      const lines = await shown('pm reminders due');
      fits(lines);
      const items = lines.filter((l) => l.startsWith('  '));
      expect(items).toHaveLength(3);
      for (const l of items) expect(l).toMatch(/ {2}[0-9a-f]{8}$/);
      expect(items.some((l) => l.includes(`  ${TITLE}  `))).toBe(true);
      // Every section in one layout: the titles start, and the uuids end, in the same columns.
      expect(new Set(items.map((l) => l.length)).size).toBe(1);
      expect(new Set(items.map((l) => l.search(/(Renew|Call|Read) /))).size).toBe(1);
    });

    it('properties: the columns that say nothing hidden first, and named', async () => {
      const lines = await shown('pm properties list');
      fits(lines);
      expect(lines[0]).toMatch(/^uuid +address +postcode/);
      // Nothing cut: the columns that say nothing made the room.
      expect(lines.some((l) => l.includes('2 Low Street, Lower Wortley'))).toBe(true);
      const at = lines.findIndex((l) => l.startsWith('hidden: '));
      expect(lines.slice(at, -1).join(' ').replace(/ +/g, ' ')).toMatch(
        /^hidden: .*status \(empty\).*; --fields to show them$/,
      );
    });
  });

  it('Ctrl-C at the delete question ends its line, deletes nothing and exits 130', async () => {
    type('clear; pm properties create --address "9 Ctrl St" --postcode "C1 1CC" -q');
    press('Enter');
    const made = await waitFor('the property', (l) => prompt(l) && l.some((x) => /^[0-9a-f-]{36}$/.test(x)));
    const uuid = made.find((x) => /^[0-9a-f-]{36}$/.test(x)) as string;
    type(`pm properties delete ${uuid}`);
    press('Enter');
    await waitFor('the question', (l) => (l[l.length - 1] as string).startsWith('Delete property 9 Ctrl St, C1 1CC?'));
    press('C-c');
    await waitFor('the prompt', prompt);
    type('echo "exit $?"');
    press('Enter');
    const after = await waitFor('the exit code', (l) => prompt(l) && l.some((x) => x.startsWith('exit ')));
    const at = after.findIndex((x) => x.startsWith('Delete property 9 Ctrl St'));
    expect(after.slice(at + 1)).toEqual(['error: interrupted: nothing was done.', '$ echo "exit $?"', 'exit 130', '$']);
    type(`pm properties get ${uuid} -q`);
    press('Enter');
    await waitFor('the property, still there', (l) => prompt(l) && l.filter((x) => x === uuid).length >= 2);
  });
});
