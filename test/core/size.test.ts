/** Sizes as a person writes them (pm serve --max-attachment-size), and as messages say them. */
import { describe, expect, it } from 'vitest';
import { parseSize, roundedSize, sizeInWords } from '../../src/core/size.js';

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

describe('roundedSize', () => {
  it.each([
    [0, '0 B'],
    [512, '512 B'],
    [1000, '1.0 kB'],
    [140_400, '140 kB'],
    [999_600, '1.0 MB'],
    [2_900_000, '2.9 MB'],
    [3_000_000, '3.0 MB'],
    [12_345_678, '12 MB'],
    [4_200_000_000, '4.2 GB'],
  ])('%d bytes: %s, as parseSize reads it back', (bytes, text) => {
    expect(roundedSize(bytes)).toBe(text);
    if (bytes > 0) expect(Math.abs((parseSize(text.replace(' ', '')) as number) - bytes) / bytes).toBeLessThan(0.05);
  });
});
