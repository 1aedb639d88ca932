/** The streaming scheduler (src/batch/scheduler.ts): limits, fairness, laziness, bounded read-ahead. */
import { describe, expect, it } from 'vitest';
import { runStreaming } from '../../src/batch/scheduler.ts';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('runStreaming', () => {
  it('never exceeds the total or the per-key limit, and runs everything once', async () => {
    const items = Array.from({ length: 300 }, (_, i) => ({ host: `h${i % 7 === 0 ? 0 : i % 3}`, i }));
    const active = new Map<string, number>();
    let total = 0;
    let worst = 0;
    const worstHost = new Map<string, number>();
    const done: number[] = [];
    await runStreaming(items, { concurrency: 4, perKey: 2, keyOf: (x) => x.host, window: 16 }, async (x) => {
      total++;
      active.set(x.host, (active.get(x.host) ?? 0) + 1);
      worst = Math.max(worst, total);
      worstHost.set(x.host, Math.max(worstHost.get(x.host) ?? 0, active.get(x.host)!));
      for (let k = x.i % 3; k >= 0; k--) await tick();
      active.set(x.host, active.get(x.host)! - 1);
      total--;
      done.push(x.i);
    });
    expect(done.sort((a, b) => a - b)).toEqual(items.map((x) => x.i));
    expect(worst).toBe(4);
    expect(Math.max(...worstHost.values())).toBe(2);
  });

  it('a slow host does not hold the others back', async () => {
    const order: string[] = [];
    let releaseSlow: () => void = () => {};
    const slow = new Promise<void>((r) => (releaseSlow = r));
    const items = ['slow', 'slow', 'slow', 'fast', 'fast', 'fast'];
    await runStreaming(items, { concurrency: 2, perKey: 1, keyOf: (x) => x, window: 100 }, async (x) => {
      if (x === 'slow') await slow;
      order.push(x);
      if (order.filter((o) => o === 'fast').length === 3) releaseSlow();
    });
    expect(order.slice(0, 3)).toEqual(['fast', 'fast', 'fast']);
  });

  it('starts in arrival order across keys', async () => {
    const started: number[] = [];
    const items = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => ({ i, key: ['a', 'b', 'c'][i % 3]! }));
    await runStreaming(items, { concurrency: 1, perKey: 1, keyOf: (x) => x.key, window: 100 }, async (x) => {
      started.push(x.i);
      await tick();
    });
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('reads lazily: never more than the window ahead of what has finished, and the first task starts before the source ends', async () => {
    let produced = 0;
    let finished = 0;
    let worstAhead = 0;
    let firstStartedAt = -1;
    async function* source(): AsyncGenerator<number> {
      for (let i = 0; i < 10_000; i++) {
        produced++;
        worstAhead = Math.max(worstAhead, produced - finished);
        yield i;
      }
    }
    await runStreaming(source(), { concurrency: 3, perKey: Infinity, keyOf: () => '', window: 50 }, async () => {
      if (firstStartedAt === -1) firstStartedAt = produced;
      await tick();
      finished++;
    });
    expect(finished).toBe(10_000);
    expect(worstAhead).toBeLessThanOrEqual(50);
    expect(firstStartedAt).toBe(1);
  });

  it('a per-key function sets each key its own limit', async () => {
    const active = new Map<string, number>();
    const worst = new Map<string, number>();
    const items = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 'file' : 'host'));
    await runStreaming(items, { concurrency: 6, perKey: (k) => (k === 'host' ? 1 : Infinity), keyOf: (x) => x, window: 40 }, async (x) => {
      active.set(x, (active.get(x) ?? 0) + 1);
      worst.set(x, Math.max(worst.get(x) ?? 0, active.get(x)!));
      await tick();
      active.set(x, active.get(x)! - 1);
    });
    expect(worst.get('host')).toBe(1);
    expect(worst.get('file')).toBe(5);
  });

  it('a rejected task rejects the whole, after the running ones end; the source is closed', async () => {
    let closed = false;
    async function* source(): AsyncGenerator<number> {
      try {
        for (let i = 0; ; i++) yield i;
      } finally {
        closed = true;
      }
    }
    await expect(
      runStreaming(source(), { concurrency: 2, perKey: Infinity, keyOf: () => '', window: 8 }, async (i) => {
        await tick();
        if (i === 5) throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(closed).toBe(true);
  });
});
