/** What a server says, made safe to use: a uuid checked, a name cleaned, a place kept inside its folder. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileName, inside, serverUuid } from '../../src/cli/untrusted.js';

const UUID = 'abcdef12-3456-4789-8abc-def012345678';

describe('serverUuid', () => {
  it('takes a uuid exactly, in lower case; anything else is an error quoting it harmlessly', () => {
    expect(serverUuid(UUID.toUpperCase(), 'the uuid')).toBe(UUID);
    for (const bad of [`${UUID}/../x`, ` ${UUID}`, `${UUID}\n`, 'abcdef12', 42, null, `\u009b${UUID}`])
      expect(() => serverUuid(bad, 'the uuid'), String(bad)).toThrow(/not a uuid/);
    expect(() => serverUuid('\u009b31m\u202e', 'the uuid')).toThrow('"\\u009b31m\\u202e"');
  });
});

describe('fileName', () => {
  it.each([
    ['lease.pdf', 'lease.pdf'],
    ['a/../../x', 'x'],
    ['..\\..\\y.txt', 'y.txt'],
    ['..', UUID],
    ['.', UUID],
    ['', UUID],
    ['  ', UUID],
    ['dir/', UUID],
    ['in\u202evoice\u2066\u200f.exe\u0000\u001b[2J', 'invoice.exe[2J'],
  ])('%j -> %j', (name, saved) => {
    expect(fileName(name, UUID)).toBe(saved);
  });

  it('shortens to 255 UTF-8 bytes, its extension kept, never inside a character', () => {
    expect(fileName(`${'a'.repeat(300)}.tar.gz`, UUID)).toBe(`${'a'.repeat(252)}.gz`);
    const emoji = fileName(`${'😀'.repeat(100)}.txt`, UUID);
    expect(emoji).toBe(`${'😀'.repeat(62)}.txt`);
    expect(Buffer.byteLength(emoji)).toBeLessThanOrEqual(255);
    // No extension worth keeping: the name cut as it is.
    expect(Buffer.byteLength(fileName(`${'b'.repeat(300)}.${'c'.repeat(40)}`, UUID))).toBe(255);
  });
});

describe('inside', () => {
  it('is the place of plain names under the folder; a name that would leave it is refused', () => {
    expect(inside('/home/u/out', 'attachments', UUID)).toBe(join('/home/u/out', 'attachments', UUID));
    expect(inside('/', 'x')).toBe('/x');
    for (const parts of [['..'], ['.'], [''], ['a/b'], ['..', 'x'], ['a\\..'], ['x\u0000']])
      expect(() => inside('/home/u/out', ...parts), JSON.stringify(parts)).toThrow(/refusing to write/);
  });
});
