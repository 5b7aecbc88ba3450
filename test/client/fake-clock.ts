/** A clock for the pacer and the HTTP client's waits that moves only when the test moves it. */
import type { PacerClock } from '../../src/client/pacer.js';

interface Timer {
  at: number;
  resolve: () => void;
}

export class FakeClock implements PacerClock {
  private timers: Timer[] = [];

  constructor(public t = 1_700_000_000_000) {}

  now = (): number => this.t;

  sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer: Timer = { at: this.t + Math.max(0, ms), resolve };
      this.timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          this.timers = this.timers.filter((x) => x !== timer);
          reject(signal.reason);
        },
        { once: true },
      );
    });

  /** Timers not fired yet. */
  get pending(): number {
    return this.timers.length;
  }

  /** Lets every promise that can settle now settle. */
  async settle(): Promise<void> {
    for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
  }

  /** Moves time forward by `ms`, firing timers in order, settling after each. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    await this.settle();
    for (;;) {
      const next = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.t = Math.max(this.t, next.at);
      this.timers = this.timers.filter((x) => x !== next);
      next.resolve();
      await this.settle();
    }
    this.t = end;
    await this.settle();
  }

  /** Fires timers in order until `done()` or no timer is left; returns false when stuck. */
  async runUntil(done: () => boolean, limitMs = 24 * 3_600_000): Promise<boolean> {
    const end = this.t + limitMs;
    await this.settle();
    while (!done()) {
      const next = this.timers.sort((a, b) => a.at - b.at)[0];
      if (!next || next.at > end) return false;
      this.t = Math.max(this.t, next.at);
      this.timers = this.timers.filter((x) => x !== next);
      next.resolve();
      await this.settle();
    }
    return true;
  }
}
