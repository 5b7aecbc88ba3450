/**
 * The table of results, and what the run says of the repository (its commit, whether the build is
 * older than src).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './env.mjs';

export function fmt(v, unit) {
  if (v === undefined || v === null || Number.isNaN(v)) return '-';
  if (unit === 'ms') return `${v.toFixed(v < 10 ? 2 : 1)} ms`;
  if (unit === 'MB') return `${v.toFixed(1)} MB`;
  return `${Math.round(v).toLocaleString('en')} ${unit}`;
}

function targetText(t, unit) {
  if (!t) return '(none)';
  const op = t.op === '<=' ? '≤' : '≥';
  return t.of === 'pm' ? `pm ${op} ${t.value} ${t.unit ?? (unit === 'ms' ? 'ms' : 'MB')}` : `${op} ${t.value}x`;
}

export function table(rows) {
  const head = ['figure', 'pm', 'baseline', 'ratio', 'target', 'result'];
  const body = rows.map((r) =>
    r.error
      ? [`${r.id} ${r.figure}`, '-', '-', '-', '-', 'ERROR']
      : [
          `${r.id} ${r.figure}`,
          fmt(r.pm, r.unit),
          fmt(r.baseline, r.unit),
          `${r.ratio.toFixed(2)}x`,
          targetText(r.target, r.unit),
          r.pass === null ? 'info' : r.pass ? 'pass' : 'FAIL',
        ],
  );
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

export function git(args) {
  return new Promise((resolve) => {
    const c = spawn('git', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
    const out = [];
    c.stdout.on('data', (d) => out.push(d));
    c.on('error', () => resolve(''));
    c.on('close', () => resolve(Buffer.concat(out).toString('utf8').trim()));
  });
}

export function newestMtime(dir, ext) {
  let newest = { ms: 0, file: '' };
  if (!existsSync(dir)) return newest;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || !e.name.endsWith(ext)) continue;
    const f = join(e.parentPath ?? e.path, e.name);
    const ms = statSync(f).mtimeMs;
    if (ms > newest.ms) newest = { ms, file: f };
  }
  return newest;
}
