/** Small text helpers for the help pages. */

/**
 * Words wrapped to `width` columns after `first` and a space: the lines after the first are
 * indented to where the words start, or by `indent` when given.
 */
export function wrap(words: readonly string[], width: number, first: string, indent?: string): string {
  const pad = indent ?? ' '.repeat(first.length + 1);
  const lines: string[] = [];
  let line = first;
  for (const [i, w] of words.entries()) {
    if (i > 0 && line.length + 1 + w.length > width) {
      lines.push(line);
      line = pad + w;
    } else line = `${line} ${w}`;
  }
  lines.push(line);
  return lines.join('\n');
}

/** "a, b and c". */
export function inWords(words: readonly string[]): string {
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}` : (words[0] ?? '');
}

/** "a, b, c": the words of a list, each but the last with its comma. */
export function commas(words: readonly string[], end = ''): string[] {
  return words.map((w, i) => (i < words.length - 1 ? `${w},` : `${w}${end}`));
}

/** The lines of a section ("Exit codes:", "Environment:") of a help text, up to the next blank line. */
export function section(text: string, title: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === title);
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && l.trim() === '');
  return lines.slice(start + 1, end < 0 ? undefined : end);
}
