/**
 * Running a bulk write: records validated first, then sent with a few requests in flight, results
 * written in input order as they complete, progress on a terminal, a summary at the end, and every
 * record that did not go through written back to a --failed file. Ctrl-C stops sending, waits for
 * the requests in flight, and accounts for every record.
 */
import type { ResourceDef } from '../../resources/types.js';
import { visible } from '../../core/redact.js';
import { describeApiError } from '../api-errors.js';
import { writeFileAtomic } from '../write-file.js';
import type { Deps } from '../context.js';
import { CliError, EXIT, type ExitCode, oneKind } from '../errors.js';
import { type Format, formatFailed, type InputRecord } from './input.js';

export type Status = 'created' | 'updated' | 'deleted' | 'unchanged' | 'skipped' | 'failed' | 'unsent';

export interface Result {
  readonly line: number;
  readonly status: Status;
  readonly uuid?: string | undefined;
  readonly error?: string | undefined;
}

export type Outcome = Pick<Result, 'status' | 'uuid'>;

interface BulkOptions {
  readonly resource: ResourceDef;
  readonly records: readonly InputRecord[];
  readonly format: Format;
  readonly concurrency: number;
  /** Sends one record (never one with problems); what it throws is described as the API's errors are. */
  readonly send: (rec: InputRecord) => Promise<Outcome>;
  /** How results are printed on stdout, in input order (nothing when undefined); JSON through a sink (dataStream). */
  readonly output?: 'quiet' | 'ndjson' | ResultSink | undefined;
  readonly failedFile?: string;
  /** The words for what was done, counted in the summary: ["created"], or several for apply. */
  readonly verbs: readonly Status[];
  readonly deps: Deps;
}

/** Where results go as JSON: written as they come, ended once (output/index.ts's dataStream). */
interface ResultSink {
  write(r: Result): void;
  end(): Promise<void>;
}

/** What --json [fields] of a bulk write may name: a result's fields. */
export const RESULT_FIELDS = ['line', 'status', 'uuid', 'error'];

/** -q: the uuid of each record (empty for one that failed); ndjson: a line each; or the JSON sink. */
function resultWriter(deps: Deps, mode: 'quiet' | 'ndjson' | ResultSink): ResultSink {
  if (typeof mode === 'object') return mode;
  const out = deps.io.stdout;
  return {
    write(r: Result) {
      out.write(mode === 'quiet' ? `${r.uuid ?? ''}\n` : `${JSON.stringify(r)}\n`);
    },
    async end() {},
  };
}

async function progress(deps: Deps, total: number) {
  const stream = deps.io.stderr;
  if (!stream.isTTY || total < 2) return { tick() {}, stop() {} };
  const { SingleBar } = await import('cli-progress');
  const bar = new SingleBar({
    stream: stream as unknown as NodeJS.WritableStream,
    format: '{bar} {value}/{total}  {rate}/s  ETA {eta_formatted}',
    barsize: 24,
    hideCursor: false,
    clearOnComplete: true,
    etaBuffer: 50,
    fps: 5,
  });
  const started = performance.now();
  let done = 0;
  bar.start(total, 0, { rate: '0.0' });
  return {
    tick() {
      done++;
      const secs = Math.max(0.001, (performance.now() - started) / 1000);
      bar.update(done, { rate: (done / secs).toFixed(1) });
    },
    stop() {
      bar.stop();
    },
  };
}

export async function runBulk(o: BulkOptions): Promise<Result[]> {
  const { records, deps } = o;
  const output = o.output && resultWriter(deps, o.output);
  const results: (Result | undefined)[] = new Array(records.length);
  let next = 0;
  let flushed = 0;
  let fatal: CliError | undefined;
  const bar = await progress(deps, records.length);
  const stopped = () => deps.signal?.aborted === true || fatal !== undefined;

  const flush = () => {
    while (flushed < records.length && results[flushed] !== undefined) {
      output?.write(results[flushed] as Result);
      flushed++;
    }
  };

  /** The exit code of each record that failed, by index. */
  const codes: ExitCode[] = [];
  const worker = async () => {
    while (!stopped() && next < records.length) {
      const i = next++;
      const rec = records[i] as InputRecord;
      try {
        if (rec.problems.length) throw new CliError(EXIT.api, `not sent: ${rec.problems.join('; ')}`);
        const got = await o.send(rec);
        results[i] = { line: rec.line, status: got.status, uuid: got.uuid };
      } catch (e) {
        const err = describeApiError(e, o.resource);
        results[i] = { line: rec.line, status: 'failed', error: errorText(err) };
        codes[i] = err.exitCode;
        // Without access, no later record can go through either.
        if (err.exitCode === EXIT.auth) fatal ??= err;
      }
      bar.tick();
      flush();
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency, records.length) }, worker));
  bar.stop();

  const unsent = fatal ? `not sent: ${fatal.message}` : 'not sent: interrupted';
  records.forEach((rec, i) => {
    results[i] ??= { line: rec.line, status: 'unsent', error: unsent };
  });
  flush();
  await output?.end();

  const all = results as Result[];
  const notThrough = all.flatMap((r, i) =>
    r.status === 'failed' || r.status === 'unsent'
      ? [{ i, record: records[i] as InputRecord, error: r.error ?? r.status }]
      : [],
  );
  let failedNote = '';
  if (notThrough.length && o.failedFile) {
    const text = await formatFailed(o.format, notThrough);
    writeFileAtomic(o.failedFile, text);
    failedNote = ` (written to ${o.failedFile})`;
  }
  deps.io.stderr.write(
    `${tally(
      all.map((r) => r.status),
      o.verbs,
    )}${failedNote}\n`,
  );
  // Records that had problems before sending were listed then.
  const sentAndFailed = notThrough.filter((x) => !x.record.problems.length);
  if (sentAndFailed.length && !o.failedFile && !deps.io.stderr.isTTY) {
    for (const x of sentAndFailed.slice(0, 20)) deps.io.stderr.write(`  line ${x.record.line}: ${visible(x.error)}\n`);
    if (sentAndFailed.length > 20)
      deps.io.stderr.write(`  … and ${sentAndFailed.length - 20} more; use --failed FILE to keep them all\n`);
  }

  const end = bulkEnd({
    interrupted: deps.signal?.aborted === true,
    fatal,
    codes: notThrough.map((x) => codes[x.i] ?? EXIT.api),
    total: records.length,
    failedFile: o.failedFile,
  });
  if (end) throw end;
  return all;
}

/** The summary line of a bulk write: "created 3, failed 1", each verb's count, then what did not go. */
export function tally(statuses: readonly Status[], verbs: readonly Status[]): string {
  const count = (s: Status) => statuses.filter((x) => x === s).length;
  const parts = verbs.map((v) => `${v} ${count(v)}`);
  if (count('skipped')) parts.push(`skipped ${count('skipped')}`);
  parts.push(`failed ${count('failed')}`);
  if (count('unsent')) parts.push(`not sent ${count('unsent')}`);
  return parts.join(', ');
}

/**
 * How a bulk write ends, once every record is accounted for: interrupted (Ctrl-C) first, then the
 * error that stopped the sending (no access), then the records that did not go through (`codes`:
 * the exit code of each, made one), else success (undefined).
 */
export function bulkEnd(o: {
  readonly interrupted: boolean;
  readonly fatal?: CliError | undefined;
  readonly codes: readonly ExitCode[];
  readonly total: number;
  readonly failedFile?: string | undefined;
}): CliError | undefined {
  if (o.interrupted)
    return new CliError(EXIT.interrupted, 'interrupted: stopped sending; every record is accounted for above.');
  if (o.fatal) return o.fatal;
  if (!o.codes.length) return undefined;
  return new CliError(oneKind(o.codes), `${o.codes.length} of ${o.total} records did not go through.`, {
    hint: o.failedFile
      ? `Run again with --from-file ${o.failedFile} to send them.`
      : 'Use --failed FILE to keep them for a second run.',
  });
}

function errorText(e: CliError): string {
  const fields = Object.entries(e.fields ?? {})
    .map(([k, v]) => `${k}: ${v.join(' ')}`)
    .join('; ');
  return fields ? `${e.message} (${fields})` : e.message;
}
