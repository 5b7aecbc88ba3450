/**
 * `pm help exit-codes`: the codes of src/cli/errors.ts, what each means and how a script or a
 * CI job uses them. test/cli/help.test.ts checks that this page, `pm --help` and EXIT agree.
 */
import { EXIT } from '../errors.js';

/** Every exit code with its meaning, in the order of `pm --help`. */
export const EXIT_CODES: readonly { code: number; meaning: string; when: string }[] = [
  { code: EXIT.ok, meaning: 'success (an empty list too)', when: 'the command did what it was asked' },
  {
    code: EXIT.api,
    meaning: 'the API refused the request or failed',
    when: 'a refusal such as a 422 (its field errors one a line), a 429 (rate limited), or a 5xx',
  },
  {
    code: EXIT.usage,
    meaning: 'usage error: a flag or argument was wrong; nothing was sent',
    when: 'an unknown flag or command, a bad value, a delete refused at its prompt or without --yes',
  },
  { code: EXIT.notFound, meaning: 'not found', when: 'no record with that uuid (404)' },
  {
    code: EXIT.auth,
    meaning: 'authentication or permission',
    when: 'no token, a token the server refuses (401), or one without the scope needed (403)',
  },
  {
    code: EXIT.network,
    meaning: 'could not reach the server, or it timed out',
    when: 'a wrong base URL, the server down, the network, the timeout',
  },
  { code: EXIT.interrupted, meaning: 'interrupted', when: 'Ctrl-C (SIGINT)' },
];

export function exitCodesTopic(): string {
  const rows = EXIT_CODES.map((e) => `  ${String(e.code).padEnd(4)}${e.meaning}\n      ${e.when}`).join('\n');
  return `EXIT CODES

pm exits with a code a script can act on, and writes one sentence on stderr saying what went
wrong (with --json, as JSON: {"error":{"message":"…","exit_code":3,"status":404}}).

${rows}

A usage error prints the command's usage hint, and "Did you mean …?" for a mistyped command or
flag. Code 2 always means that nothing was sent to the server: it is safe to fix and re-run.

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
