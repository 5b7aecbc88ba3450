/** Sizes as a person writes them (pm serve --max-attachment-size), and as messages say them. */
import { describe, expect, it } from 'vitest';
import { parseSize, sizeInWords } from '../../src/core/size.js';

describe('parseSize', () => {
  it('takes bytes, and binary and decimal units in any case', () => {
    expect(parseSize('1048576')).toBe(1048576);
    expect(parseSize('512KiB')).toBe(524288);
    expect(parseSize('100MiB')).toBe(104857600);
    expect(parseSize('1gib')).toBe(1073741824);
    expect(parseSize('1.5 MiB')).toBe(1572864);
    expect(parseSize('2MB')).toBe(2_000_000);
  });
  it('refuses what is not a whole number of bytes of at least one', () => {
    for (const bad of ['', 'lots', '12XB', '0', '-5MiB', '0.5', '1.0000001KiB', '9999999999999999GiB'])
      expect(parseSize(bad), bad).toBeUndefined();
  });
});

describe('sizeInWords', () => {
  it('says a size in the unit it is a round number of', () => {
    expect(sizeInWords(100 * 1024 * 1024)).toBe('100 MiB');
    expect(sizeInWords(512 * 1024)).toBe('512 KiB');
    expect(sizeInWords(1000)).toBe('1000 bytes');
  });
});
