/**
 * The bytes of attachments in the store's own database (../blobs.ts): chunks in attachment_chunks,
 * keyed by the attachment's uuid and their order. Both stores write a spool file's chunks so;
 * SQLite reads them so too (PostgreSQL streams its uploads and reads by COPY: ../postgres/blobs.ts).
 */
import type { ApiRecord } from '../store.js';
import type { Chunks } from '../blobs.js';
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
