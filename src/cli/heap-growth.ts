/**
 * V8's old generation, for a long run whose live heap stays small and constant (a URL list).
 *
 * After each full collection V8 lets the old generation grow to up to 4× what survived before it collects
 * again, when collecting is cheap (heap-controller: a growing factor from 1.1 to 4.0, picked by GC speed against
 * the mutator's). A URL list keeps ~20 MB live (the scheduler's window, the agent's sockets, the code), yet every
 * request's streams, promises and parse5 objects live across a few scavenges and are promoted, so the old
 * generation swung between ~20 and ~90 MB and the process peaked at 198–221 MiB (bench/batch.ts, 1,000,000
 * URLs). A factor of 2 (`--heap-growing-percent=100`) holds it at 155–160 MiB at the same request rate.
 * Set at run time: V8 reads the flag at every full collection (MemoryController::GrowingFactor), and only this
 * command pays the extra collections: on an mbox stream the same flag cost ~10% of the CPU and saved nothing
 * (its peak is its buffers), so it is not in the CLI's shebang.
 */
import { setFlagsFromString } from 'node:v8';

/** The old generation's growing factor as 1 + percent/100. */
export const URL_LIST_HEAP_GROWING_PERCENT = 100;

export function limitHeapGrowth(percent: number = URL_LIST_HEAP_GROWING_PERCENT): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}
