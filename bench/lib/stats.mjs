/**
 * Medians, the interleaved rounds every figure times pm and its baseline in, progress on stderr,
 * and a figure's row.
 */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Runs each side once per round, the order rotating every round (A B, B A, ... for two sides),
 * after `warmup` untimed rounds. Each side returns a number; returns the samples of each.
 */
export async function interleave(rounds, sides, { warmup = 1, label = '' } = {}) {
  const samples = sides.map(() => []);
  for (let r = 0; r < warmup + rounds; r++) {
    const order = sides.map((_, i) => i);
    if (r % 2) order.reverse();
    for (const i of order) {
      const v = await sides[i]();
      if (r >= warmup) samples[i].push(v);
    }
    if (label && r >= warmup) progress(`${label}: round ${r - warmup + 1}/${rounds}`);
  }
  return samples;
}

let progressShown = false;

export function progress(text) {
  if (!process.stderr.isTTY) return;
  process.stderr.write(`\r\x1b[K  ${text}`);
  progressShown = true;
}

export function say(text) {
  if (progressShown) process.stderr.write('\r\x1b[K');
  progressShown = false;
  process.stderr.write(`${text}\n`);
}

/** A row of the table: pm's value beside its baseline's, and the ratio against the target. */
export function row(id, figure, { pm, base, unit, ratio, target, samples, note }) {
  let pass;
  if (target) {
    const v = target.of === 'pm' ? pm : ratio;
    pass = target.op === '<=' ? v <= target.value : v >= target.value;
  }
  return { id, figure, unit, pm, baseline: base, ratio, target: target ?? null, pass: pass ?? null, samples, note };
}

export const timeRatio = (pmMs, baseMs) => pmMs / baseMs;
