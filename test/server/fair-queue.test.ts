/**
 * The slots connections held long are shared by (budget.ts, FairQueue): lists wait for theirs in
 * turn; a streamed upload takes one only when it is free, no list waits, and its account holds
 * fewer than its share, else it does without (and waits in a spool file).
 */
import { describe, expect, it } from 'vitest';
import { FairQueue } from '../../src/server/budget.js';

describe('FairQueue.tryAcquire', () => {
  it('gives a free slot, at most `most` to one account, and none once all are taken', async () => {
    const q = new FairQueue(3);
    const a1 = q.tryAcquire(1, 2);
    const a2 = q.tryAcquire(1, 2);
    expect(a1).toBeTypeOf('function');
    expect(a2).toBeTypeOf('function');
    expect(q.tryAcquire(1, 2)).toBeUndefined();
    const b1 = q.tryAcquire(2, 2);
    expect(b1).toBeTypeOf('function');
    expect(q.tryAcquire(3, 2)).toBeUndefined();
    a1?.();
    expect(q.tryAcquire(3, 2)).toBeTypeOf('function');
  });

  it('never takes a slot a list waits for: the freed slot goes to the list', async () => {
    const q = new FairQueue(2);
    const held = [await q.acquire(1), await q.acquire(2)];
    let granted = false;
    const waiting = q.acquire(3).then((release) => {
      granted = true;
      return release;
    });
    expect(q.tryAcquire(4, 2)).toBeUndefined();
    held[0]?.();
    expect(q.tryAcquire(4, 2)).toBeUndefined();
    (await waiting)();
    expect(granted).toBe(true);
    expect(q.tryAcquire(4, 2)).toBeTypeOf('function');
  });

  it("counts an account's lists with its uploads", async () => {
    const q = new FairQueue(8);
    await q.acquire(1);
    await q.acquire(1);
    expect(q.tryAcquire(1, 2)).toBeUndefined();
    expect(q.tryAcquire(2, 2)).toBeTypeOf('function');
  });
});
