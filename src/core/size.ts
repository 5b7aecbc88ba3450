/** Sizes in bytes as a person writes them: `1048576`, `512KiB`, `100MiB`, `1GiB` (also kB, MB, GB: powers of 1000). */

const UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/** The bytes a size names, or undefined when it is not one (a whole number of bytes, at least 1). */
export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  if (!m) return undefined;
  const unit = UNITS[(m[2] || 'b').toLowerCase()];
  if (unit === undefined) return undefined;
  const bytes = Number(m[1]) * unit;
  return Number.isSafeInteger(bytes) && bytes >= 1 ? bytes : undefined;
}

/** A size in words: `100 MiB`, `512 KiB`, or bytes. */
export function sizeInWords(bytes: number): string {
  for (const [unit, n] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const)
    if (bytes >= n && bytes % (n / 16) === 0) return `${bytes / n} ${unit}`;
  return `${bytes} bytes`;
}

const SCALES = [
  ['GB', 1e9],
  ['MB', 1e6],
  ['kB', 1e3],
] as const;

/**
 * A size as a person reads it, rounded: `512 B`, `140 kB`, `2.9 MB` (powers of 1000, as
 * parseSize reads them back; one decimal under 10).
 */
export function roundedSize(bytes: number): string {
  for (const [unit, n] of SCALES)
    if (Math.abs(bytes) >= n) {
      const v = bytes / n;
      const text = Math.abs(v) < 10 ? v.toFixed(1) : String(Math.round(v));
      // 999.6 kB rounds to 1000 kB: say it in the next unit up instead.
      if (text === '1000' && unit !== 'GB') return roundedSize(1000 * n);
      return `${text} ${unit}`;
    }
  return `${bytes} B`;
}
