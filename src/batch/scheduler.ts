/**
 * The streaming scheduler of every batch (files, directory entries, URLs, manifest lines): items are pulled
 * lazily from an async iterator into a bounded window, and started in arrival order as slots free up, at most
 * `concurrency` at once and at most `perKey` of one key (a URL's host) at once. A key whose work is at its limit
 * waits in a queue of its own, so one slow host never holds a slot another host could use.
 *
 * Cost: O(log k) per item (k = keys with waiting work; a binary heap of ready keys ordered by the arrival index of
 * each key's first waiting item). Memory: at most `window` items read ahead and not finished — it does not grow
 * with the length of the input; a key with nothing running or waiting is forgotten.
 */

export interface SchedulerOptions<T> {
  /** Items running at once. */
  readonly concurrency: number;
  /** Items of one key running at once (Infinity: no per-key limit), or the limit of each key. */
  readonly perKey: number | ((key: string) => number);
  /** The key of an item (a URL's host with port); items of one key share `perKey`. */
  readonly keyOf: (item: T) => string;
  /** Items read ahead of the running ones, at most (BATCH_LIMITS.window). */
  readonly window: number;
}

interface Waiting<T> {
  readonly item: T;
  readonly index: number;
}

/** A key's state: its running count and its waiting items, oldest first (a queue with a moving head). */
interface KeyState<T> {
  readonly limit: number;
  running: number;
  queue: Array<Waiting<T>>;
  head: number;
  /** Whether the key is in the ready heap. */
  inHeap: boolean;
}

/** A binary min-heap of keys by the index of their first waiting item. */
class ReadyHeap<T> {
  private readonly heap: Array<KeyState<T>> = [];

  get size(): number {
    return this.heap.length;
  }

  private rank(k: KeyState<T>): number {
    return k.queue[k.head]!.index;
  }

  push(k: KeyState<T>): void {
    k.inHeap = true;
    const h = this.heap;
    h.push(k);
    for (let i = h.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (this.rank(h[parent]!) <= this.rank(h[i]!)) break;
      [h[parent], h[i]] = [h[i]!, h[parent]!];
      i = parent;
    }
  }

  pop(): KeyState<T> | undefined {
    const h = this.heap;
    const top = h[0];
    if (top === undefined) return undefined;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let least = i;
        if (l < h.length && this.rank(h[l]!) < this.rank(h[least]!)) least = l;
        if (r < h.length && this.rank(h[r]!) < this.rank(h[least]!)) least = r;
        if (least === i) break;
        [h[least], h[i]] = [h[i]!, h[least]!];
        i = least;
      }
    }
    top.inHeap = false;
    return top;
  }
}

/**
 * Runs `task` for every item of `items`; resolves when all have settled. A task that rejects stops the intake
 * and rejects the whole (tasks report their own failures; a rejection is a bug or an interruption).
 */
export async function runStreaming<T>(items: AsyncIterable<T> | Iterable<T>, options: SchedulerOptions<T>, task: (item: T, index: number) => Promise<void>): Promise<void> {
  if (!(options.concurrency >= 1) || !(options.window >= 1) || (typeof options.perKey === 'number' && !(options.perKey >= 1))) throw new RangeError('concurrency, perKey and window must be at least 1');
  const perKey = options.perKey;
  const limitOf = typeof perKey === 'number' ? (): number => perKey : (key: string): number => Math.max(1, perKey(key));
  const iterator = Symbol.asyncIterator in items ? (items as AsyncIterable<T>)[Symbol.asyncIterator]() : (items as Iterable<T>)[Symbol.iterator]();
  const keys = new Map<string, KeyState<T>>();
  const ready = new ReadyHeap<T>();
  let running = 0;
  let held = 0; // items read and not finished (waiting or running)
  let index = 0;
  let exhausted = false;
  let reading = false;
  let failure: { error: unknown } | null = null;

  return new Promise<void>((resolve, reject) => {
    const settleIfDone = (): void => {
      if (failure !== null && running === 0) reject(failure.error);
      else if (failure === null && exhausted && held === 0) resolve();
    };
    const start = (): void => {
      while (failure === null && running < options.concurrency && ready.size > 0) {
        const k = ready.pop()!;
        const next = k.queue[k.head]!;
        k.queue[k.head++] = undefined as unknown as Waiting<T>;
        if (k.head > 1024 && k.head * 2 > k.queue.length) {
          k.queue = k.queue.slice(k.head);
          k.head = 0;
        }
        k.running++;
        running++;
        if (k.head < k.queue.length && k.running < k.limit) ready.push(k);
        const key = options.keyOf(next.item);
        let promise: Promise<void>;
        try {
          promise = task(next.item, next.index);
        } catch (err) {
          promise = Promise.reject(err);
        }
        promise.then(
          () => finish(key, k),
          (err: unknown) => {
            failure ??= { error: err };
            finish(key, k);
          },
        );
      }
    };
    const finish = (key: string, k: KeyState<T>): void => {
      k.running--;
      running--;
      held--;
      if (k.head < k.queue.length) {
        if (!k.inHeap) ready.push(k);
      } else if (k.running === 0) keys.delete(key);
      start();
      read();
      settleIfDone();
    };
    let closed = false;
    const closeSource = (): void => {
      if (closed || exhausted) return;
      closed = true;
      void Promise.resolve(iterator.return?.()).catch(() => {});
    };
    const read = (): void => {
      if (failure !== null && !reading) closeSource();
      if (reading || exhausted || failure !== null) return;
      reading = true;
      void (async () => {
        try {
          while (held < options.window && failure === null) {
            const r = await iterator.next();
            if (r.done === true) {
              exhausted = true;
              break;
            }
            held++;
            const key = options.keyOf(r.value);
            let k = keys.get(key);
            if (k === undefined) {
              k = { limit: limitOf(key), running: 0, queue: [], head: 0, inHeap: false };
              keys.set(key, k);
            }
            k.queue.push({ item: r.value, index: index++ });
            if (!k.inHeap && k.running < k.limit) ready.push(k);
            start();
          }
        } catch (err) {
          failure ??= { error: err };
        } finally {
          reading = false;
        }
        if (failure !== null) closeSource();
        settleIfDone();
      })();
    };
    read();
  });
}
