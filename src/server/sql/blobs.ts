/**
 * The bytes of attachments in the store's own database (../blobs.ts): chunks in attachment_chunks,
 * keyed by the attachment's uuid and their order. Both stores write a spool file's chunks so;
 * SQLite reads them so too (PostgreSQL streams its uploads and reads by COPY: ../postgres/blobs.ts).
 */
import type { ApiRecord } from '../store.js';
import type { AccountUsage, Chunks } from '../blobs.js';
import { rows, run, type Steps } from './steps.js';

/**
 * A record made by `created`, then the chunks of its file keyed by its uuid: the caller runs both
 * in one transaction.
 */
export function* withChunks(created: Steps<ApiRecord>, file: Chunks, now: number): Steps<ApiRecord> {
  const rec = yield* created;
  for (let seq = 0; seq < file.count; seq++)
    yield run('INSERT INTO attachment_chunks (attachment, seq, written_at, data) VALUES (?, ?, ?, ?)', [
      rec.uuid,
      seq,
      now,
      file.read(seq),
    ]);
  return rec;
}

/** Chunks `from` to `to` (inclusive) of the blob `key`, in order. */
export function* chunks(key: string, from: number, to: number): Steps<Uint8Array[]> {
  const found = (yield rows(
    'SELECT seq, data FROM attachment_chunks WHERE attachment = ? AND seq >= ? AND seq <= ? ORDER BY seq',
    [key, from, to],
  )) as { seq: number; data: Uint8Array }[];
  if (found.length !== to - from + 1 || found.some((c, i) => Number(c.seq) !== from + i))
    throw new Error(`the bytes of attachment ${key} are missing chunks ${from} to ${to}`);
  return found.map((c) => c.data);
}

/** Chunk `seq` of `key`, written as an upload comes (SQLite: ../sqlite/uploads.ts). */
export function* writeChunk(key: string, seq: number, now: number, data: Uint8Array): Steps<void> {
  yield run('INSERT INTO attachment_chunks (attachment, seq, written_at, data) VALUES (?, ?, ?, ?)', [
    key,
    seq,
    now,
    data,
  ]);
}

/** Deletes chunks `from` to `to` (inclusive) of `key`. */
export function* dropChunks(key: string, from: number, to: number): Steps<void> {
  yield run('DELETE FROM attachment_chunks WHERE attachment = ? AND seq >= ? AND seq <= ?', [key, from, to]);
}

/**
 * A record made by `created` under the uuid `key` its file's `count` chunks were written under
 * before: the caller runs it in one transaction, which fails when any of them is missing.
 */
export function* withStagedChunks(created: Steps<ApiRecord>, key: string, count: number): Steps<ApiRecord> {
  const [found] = (yield rows('SELECT COUNT(*) AS n FROM attachment_chunks WHERE attachment = ?', [key])) as {
    n: number;
  }[];
  if (Number(found?.n) !== count) throw new Error(`an upload's chunks were deleted before its record was written`);
  return yield* created;
}

/**
 * The keys of chunks that belong to no attachment (an upload under way, or one its process did
 * not finish) whose last chunk was written at `before` or earlier, with how many chunks each has.
 */
export function* strayUploads(before: number): Steps<{ key: string; count: number }[]> {
  const found = (yield rows(
    'SELECT attachment AS key, MAX(seq) + 1 AS count FROM attachment_chunks c WHERE NOT EXISTS (SELECT 1 FROM attachments a WHERE a.uuid = c.attachment) GROUP BY attachment HAVING MAX(written_at) <= ?',
    [before],
  )) as { key: string; count: number }[];
  return found.map((f) => ({ key: f.key, count: Number(f.count) }));
}

/** The bytes of the files `accountId` keeps. */
export function* storedBytes(accountId: number): Steps<number> {
  const [found] = (yield rows('SELECT COALESCE(SUM(size), 0) AS n FROM attachments WHERE account_id = ?', [
    accountId,
  ])) as { n: number | string }[];
  return Number(found?.n ?? 0);
}

/** What each account keeps: its files and their bytes. */
export function* usage(): Steps<AccountUsage[]> {
  const found = (yield rows(
    'SELECT a.id, a.name, COUNT(f.id) AS files, COALESCE(SUM(f.size), 0) AS bytes FROM accounts a LEFT JOIN attachments f ON f.account_id = a.id GROUP BY a.id, a.name ORDER BY a.id',
    [],
  )) as { id: number | string; name: string; files: number | string; bytes: number | string }[];
  return found.map((f) => ({ id: Number(f.id), name: f.name, files: Number(f.files), bytes: Number(f.bytes) }));
}
