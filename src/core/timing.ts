/**
 * Where a run's time goes (PM_TIMING=1): named moments, in ms since the process started, and the
 * time of each phase between two of them. Off unless started: a mark is then one test and nothing
 * more, so the marks stay in the code for good.
 */

/** [name, ms since the process started] of each moment, in order; undefined when off. */
let moments: [string, number][] | undefined;

/**
 * Turns timing on, with the moments already seen: bin/pm's, before the bundle ran, in its own list,
 * which it goes on adding to (a chunk it compiles later) and which the marks here add to.
 */
export function startTiming(before: [string, number][] = []): void {
  moments = before;
}

/** ms since the process started (Node's own clock of it, as precise as hrtime). */
const sinceStart = (): number => process.uptime() * 1000;

/** Notes that the phase `name` ended now (nothing when timing is off). */
export function mark(name: string): void {
  moments?.push([name, sinceStart()]);
}

/**
 * The moments as a table: each phase's end and its own time, the first one being Node's start
 * (before any of pm's code ran). Undefined when timing is off.
 */
export function timingReport(): string | undefined {
  if (!moments) return undefined;
  const width = Math.max(...moments.map(([name]) => name.length), 5);
  let previous = 0;
  const lines = moments.map(([name, ms]) => {
    const line = `  ${name.padEnd(width)} ${ms.toFixed(1).padStart(7)} ${`+${(ms - previous).toFixed(1)}`.padStart(7)}`;
    previous = ms;
    return line;
  });
  return `pm timing (ms since the process started, and each phase's own):\n${lines.join('\n')}\n`;
}
