/**
 * Bounded concurrency with a per-host limit, for a batch of URLs: at most `concurrency` tasks run at once, and at
 * most `perHost` of them for one host. A task waiting for a busy host does not hold a slot, so one slow host
 * cannot starve the others (undici's per-origin queue would hold the slot).
 */
export interface ScheduleOptions<T> {
  readonly concurrency: number;
  readonly perHost: number;
  /** The host a task goes to (its URL's host, with port); tasks with the same key share the per-host limit. */
  readonly hostOf: (item: T) => string;
}

/** Runs `task` for every item, in order of arrival as slots free up; resolves when all have settled. */
export async function runScheduled<T>(items: readonly T[], options: ScheduleOptions<T>, task: (item: T, index: number) => Promise<void>): Promise<void> {
  const pending = items.map((item, index) => ({ item, index, host: options.hostOf(item) }));
  const activeByHost = new Map<string, number>();
  let active = 0;
  return new Promise<void>((resolve, reject) => {
    const pump = (): void => {
      if (pending.length === 0 && active === 0) return resolve();
      for (let i = 0; i < pending.length && active < options.concurrency; ) {
        const next = pending[i]!;
        const onHost = activeByHost.get(next.host) ?? 0;
        if (onHost >= options.perHost) {
          i++;
          continue;
        }
        pending.splice(i, 1);
        active++;
        activeByHost.set(next.host, onHost + 1);
        task(next.item, next.index).then(
          () => {
            active--;
            activeByHost.set(next.host, (activeByHost.get(next.host) ?? 1) - 1);
            pump();
          },
          reject,
        );
      }
    };
    pump();
  });
}
