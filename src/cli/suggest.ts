/** Suggestions for a mistyped word (a command, a topic, a field): one edit distance for all. */

/** Edit distance (insert, delete, substitute, swap two neighbours). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = (d[i - 1] as number[])[j] as number;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(up + 1, (row[j - 1] as number) + 1, ((d[i - 1] as number[])[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  return (d[a.length] as number[])[b.length] as number;
}

/** The candidates close to `word`, as commander suggests them (a distance of at most a third of its length). */
export function similar(word: string, candidates: readonly string[]): string[] {
  const w = word.toLowerCase();
  let best = Number.POSITIVE_INFINITY;
  let found: string[] = [];
  for (const c of new Set(candidates)) {
    const d = editDistance(w, c.toLowerCase());
    if (d > Math.max(1, Math.floor(w.length / 3)) + 1 || d === 0) continue;
    if (d < best) {
      best = d;
      found = [c];
    } else if (d === best) found.push(c);
  }
  return found.sort();
}
