/**
 * What the repository holds: text, except the data files the tests open (test/fixtures). A binary
 * file anywhere else (a data file left behind by a run, a build's output) is refused before it is
 * committed: tracked files and untracked ones that .gitignore lets through alike.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
/** Where binary files may be. */
const FIXTURES = 'test/fixtures/';

const files = spawnSync('git', ['ls-files', '--eol', '--cached', '--others', '--exclude-standard', '-z'], {
  cwd: ROOT,
  encoding: 'utf8',
});
const inGit = files.status === 0;

describe.skipIf(!inGit)('the repository', () => {
  it(`holds no binary file outside ${FIXTURES}`, () => {
    // git's own verdict on the working tree's content (w/-text: a NUL byte, as git diff decides).
    const binary = files.stdout
      .split('\0')
      .filter(Boolean)
      .map((line) => /^i\/\S*\s+w\/(\S*)\s+attr\/\S*\s*\t(.*)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null && m[1] === '-text')
      .map((m) => m[2] as string);
    expect(binary.filter((path) => !path.startsWith(FIXTURES))).toEqual([]);
    expect(binary).toContain(`${FIXTURES}pm-0.1.0.db`);
  });
});
