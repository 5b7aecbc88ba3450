/**
 * `pm help exit-codes`: the codes of src/cli/errors.ts, what each means and how a script or a
 * CI job uses them. test/cli/help.test.ts checks that this page, `pm --help` and EXIT agree.
 */
import { EXIT } from '../errors.js';
import { ROOT_HELP } from './root.js';
import { section } from './text.js';

/** When each code happens, beyond its meaning in `pm --help`. */
const WHEN: Readonly<Record<number, string>> = {
  [EXIT.ok]: 'the command did what it was asked; pm serve stopped by SIGTERM or Ctrl-C, cleanly',
  [EXIT.api]:
    'a refusal such as a 422 (its field errors one a line), a 429 (rate limited), or a 500; a flag naming a record that is not there (a label, an email, a uuid\'s beginning: --status "To Let"); a download that cannot be written where asked, or does not match its record',
  [EXIT.usage]: 'an unknown flag or command, a bad value, a delete refused at its prompt or without --yes',
  [EXIT.notFound]: "no record with that uuid (404), or none named so: a uuid's beginning, a contact's email",
  [EXIT.auth]: "no token, a token refused (401) or lacking a scope (403), or PM_TOKEN kept from a project's server",
  [EXIT.network]:
    'a wrong base URL, the server down or restarting, the network (a download cut off on the way), the timeout',
  [EXIT.interrupted]: 'Ctrl-C (SIGINT), what arrived kept (pm serve: a second Ctrl-C, which stops it at once)',
};

/**
 * Every exit code with its meaning, as `pm --help` lists them (the one place they are written),
 * and when it happens.
 */
export function exitCodes(): { code: number; meaning: string; when: string }[] {
  return section(ROOT_HELP, 'Exit codes:').flatMap((line) => {
    const m = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (!m) return [];
    const code = Number(m[1]);
    return [{ code, meaning: (m[2] as string).trim(), when: WHEN[code] ?? '' }];
  });
}

export function exitCodesTopic(): string {
  const rows = exitCodes()
    .map((e) => `  ${String(e.code).padEnd(4)}${e.meaning}\n      ${e.when}`)
    .join('\n');
  return `EXIT CODES

pm exits with a code a script can act on, and writes one sentence on stderr saying what went
wrong (with --json, as JSON: {"error":{"message":"…","exit_code":3,"status":404}}).

${rows}

A usage error prints the command's usage hint, and "Did you mean …?" for a mistyped command or
flag. Code 2 always means that nothing was sent to the server: it is safe to fix and re-run.

A run that fails for several records (pm properties delete A B C, --from-file, uuids on stdin)
exits with their code when they all failed the same way (3: none was there), else with 1. A
record of --from-file that cannot be sent as it is (not JSON, a field of the wrong kind) fails
alone, with 1; the others go through.

Examples:
  pm properties get "$uuid" -q >/dev/null 2>&1 || echo "no such property"

  pm reminders create --title "Renew gas certificate" --due-at 2026-12-01 -q
  case $? in
    0) ;;                                   # created
    2) echo "fix the command" >&2; exit 1 ;;
    4) echo "check PM_TOKEN" >&2; exit 1 ;;
    5) echo "server unreachable; try later" >&2; exit 75 ;;
  esac

  set -e   # in CI: any failure of pm fails the job with pm's message in the log
`;
}
