/**
 * The bytes of attachments in the store's own database (../blobs.ts): chunks in attachment_chunks,
 * keyed by the attachment's uuid and their order, for both stores.
 */
import { rows, run, type Steps } from './steps.js';

export function* putChunks(key: string, seq: number, chunks: readonly Uint8Array[], now: number): Steps<void> {
  for (const [i, data] of chunks.entries())
    yield run('INSERT INTO attachment_chunks (attachment, seq, data, written_at) VALUES (?, ?, ?, ?)', [
      key,
      seq + i,
      data,
      now,
    ]);
}

export function* chunks(key: string, from: number, to: number): Steps<Uint8Array[]> {
  const found = (yield rows(
    'SELECT seq, data FROM attachment_chunks WHERE attachment = ? AND seq >= ? AND seq <= ? ORDER BY seq',
    [key, from, to],
  )) as { seq: number; data: Uint8Array }[];
  if (found.length !== to - from + 1 || found.some((c, i) => Number(c.seq) !== from + i))
    throw new Error(`the bytes of attachment ${key} are missing chunks ${from} to ${to}`);
  return found.map((c) => c.data);
}

export function* sweepChunks(before: number): Steps<number> {
  return (yield run(
    'DELETE FROM attachment_chunks WHERE written_at < ? AND attachment NOT IN (SELECT uuid FROM attachments)',
    [before],
  )) as number;
}

export function* removeChunks(key: string): Steps<void> {
  yield run('DELETE FROM attachment_chunks WHERE attachment = ?', [key]);
}
