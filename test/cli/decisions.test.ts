/**
 * The decisions of the CLI kept as tables apart from the code that acts on them: where a token
 * comes from and which file's token may go to a server (config.ts), how a bulk write sums up and
 * ends (bulk/run.ts), what an API client's error exits with (api-errors.ts). Pure: no file, no
 * server, no process.
 */
import { describe, expect, it } from 'vitest';
import { HttpStatusError, NetworkError } from '../../src/client/errors.js';
import { about, describeApiError, toCliError } from '../../src/cli/api-errors.js';
import { bulkEnd, type Status, tally } from '../../src/cli/bulk/run.js';
import { fileTokenFits, tokenOrigin } from '../../src/cli/config.js';
import { CliError, EXIT, type ExitCode } from '../../src/cli/errors.js';
import { resourceByPath } from '../../src/resources/index.js';

describe('where the token comes from', () => {
  it.each([
    // base URL, PM_TOKEN, PM_TOKEN may go there -> origin
    [false, false, true, 'embedded'],
    [false, true, true, 'embedded'],
    [true, true, true, 'env'],
    [true, true, false, 'files'],
    [true, false, true, 'files'],
  ] as const)('base URL %s, PM_TOKEN %s, may send %s: %s', (baseUrl, envToken, maySend, origin) => {
    let asked = false;
    const envMaySend = () => {
      asked = true;
      return maySend;
    };
    expect(tokenOrigin({ baseUrl, envToken, envMaySend })).toBe(origin);
    // Whether PM_TOKEN may go to the server is asked only when there is one, and a PM_TOKEN.
    expect(asked).toBe(baseUrl && envToken);
  });

  it.each([
    // the base URL beside the token, the one in use, whether that one came from a file -> fits
    ['https://a.example', 'https://a.example', true, true],
    ['https://a.example', 'https://b.example', true, false],
    ['https://a.example', 'https://b.example', false, false],
    [undefined, 'https://b.example', false, true],
    [undefined, 'https://b.example', true, false],
  ] as const)("a file's token for %s, the server %s (from a file: %s): %s", (tokenUrl, baseUrl, fromFile, fits) => {
    expect(fileTokenFits(tokenUrl, baseUrl, fromFile)).toBe(fits);
  });
});

describe('how a bulk write sums up and ends', () => {
  it.each([
    [['created', 'created', 'failed'], ['created'], 'created 2, failed 1'],
    [['skipped', 'created', 'unsent'], ['created'], 'created 1, skipped 1, failed 0, not sent 1'],
    [[], ['created', 'updated', 'deleted', 'unchanged'], 'created 0, updated 0, deleted 0, unchanged 0, failed 0'],
  ] as [Status[], Status[], string][])('%j with verbs %j: "%s"', (statuses, verbs, line) => {
    expect(tally(statuses, verbs)).toBe(line);
  });

  const fatal = new CliError(EXIT.auth, 'not authenticated');
  it.each([
    // interrupted, fatal, exit codes of the records that did not go through -> exit code, or none
    [true, fatal, [EXIT.api], EXIT.interrupted],
    [false, fatal, [EXIT.api], EXIT.auth],
    [false, undefined, [EXIT.notFound, EXIT.notFound], EXIT.notFound],
    [false, undefined, [EXIT.notFound, EXIT.api], EXIT.api],
    [false, undefined, [], undefined],
  ] as [boolean, CliError | undefined, ExitCode[], ExitCode | undefined][])(
    'interrupted %s, fatal %s, codes %j: exit %s',
    (interrupted, stop, codes, exit) => {
      expect(bulkEnd({ interrupted, fatal: stop, codes, total: 5 })?.exitCode).toBe(exit);
    },
  );

  it('says how to send again what did not go through', () => {
    expect(bulkEnd({ interrupted: false, codes: [EXIT.api], total: 3, failedFile: 'f.ndjson' })).toMatchObject({
      message: '1 of 3 records did not go through.',
      hint: 'Run again with --from-file f.ndjson to send them.',
    });
  });
});

describe('what an error exits with', () => {
  const status = (s: number, headers: Record<string, string> = {}) =>
    new HttpStatusError(s, 'refused', { status: s, headers, body: undefined, text: '' } as never);

  it.each([
    [404, EXIT.notFound],
    [401, EXIT.auth],
    [403, EXIT.auth],
    [422, EXIT.api],
    [429, EXIT.api],
    [503, EXIT.network],
    [500, EXIT.api],
  ])('an answer %s: exit %s, whoever throws it', (s, exit) => {
    expect(toCliError(status(s)).exitCode).toBe(exit);
  });

  it('a failure on the way, an abort, anything else', () => {
    expect(toCliError(new NetworkError('connection refused', 'ECONNREFUSED')).exitCode).toBe(EXIT.network);
    expect(toCliError(Object.assign(new Error('aborted'), { name: 'AbortError' })).exitCode).toBe(EXIT.interrupted);
    expect(toCliError(new Error('odd')).exitCode).toBe(EXIT.api);
  });

  it("an error noted as a resource's names what to list", () => {
    const e = about(status(404), resourceByPath('properties'));
    expect(describeApiError(e).hint).toBe('List them with `pm properties list`.');
    expect(describeApiError(status(404)).hint).toBeUndefined();
  });
});
