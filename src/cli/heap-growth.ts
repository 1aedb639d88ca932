/**
 * V8's old generation, for long runs whose live heap stays small and constant: a URL list, a crawl file.
 *
 * After each full collection V8 lets the old generation grow to up to 4× what survived before it collects
 * again, when collecting is cheap (heap-controller: a growing factor from 1.1 to 4.0, picked by GC speed against
 * the mutator's). A URL list keeps ~20 MB live (the scheduler's window, the agent's sockets, the code), yet every
 * request's streams, promises and parse5 objects (~75 KB a URL) live across a few scavenges and are promoted, so
 * the old generation swung between ~20 and ~90 MB, and the pages it freed stayed in V8's page pool: the process
 * peaked at 198–221 MiB within 40,000 requests of a 1,000,000-URL list (bench/batch.ts). With a factor of 2 it
 * sat at 150–170 MiB, but a marking cycle slowed by a busy CPU lets everything allocated during it survive (once
 * 57 MB "live" after a mark-compact) and the heap then doubled from there (217–233 MiB; 232 over the whole list).
 * A factor of 1.5 bounds both: the whole list at 161 MiB with the machine loaded (load average 2–4), ~2,200
 * URLs a second against ~2,400 at a factor of 2 on a loopback server.
 * Set at run time: V8 reads the flag at every full collection (MemoryController::GrowingFactor), and only this
 * command pays the extra collections: on an mbox stream a factor of 2 cost ~10% of the CPU and saved nothing
 * (its peak is its buffers), so it is not in the CLI's shebang.
 */
import { setFlagsFromString } from 'node:v8';

/** The old generation's growing factor as 1 + percent/100 (V8's `--heap-growing-percent`). */
export const URL_LIST_HEAP_GROWING_PERCENT = 50;

/**
 * A WARC or ARC file (`absolutize crawl.warc.gz`): records are independent, so the live heaps (the reader's
 * thread and the rewriting one: the flag is the process's) stay small while the old generations swing. The bench's
 * 45 MB crawl peaked at 250–300 MiB (one run of seven at 327) with V8's own factor, 216–229 MiB with a factor
 * of 2 at the same speed (paired runs under load, bench/warc.ts `ours`; 238–270 MiB on an idle machine, where the
 * reader runs further ahead); a factor of 1.5 gave ~205 MiB under load but cost 15–20%, and no clear gain idle.
 * Once the reader's thread no longer loaded all of undici (src/http/content-type.ts: ~100 modules and ~5 MB less
 * live in each thread), a factor of 3 took 1.03–1.07× less whole-process CPU than 2 (median of 4.56 s against
 * 4.76 s, 5 alternating rounds; the reader's thread ran 7 full collections instead of 12–16, each marking its
 * whole heap on V8's helper threads) at 220–228 MiB against 189–197 (2.5: 4.65 s, 206–217 MiB).
 */
export const WARC_HEAP_GROWING_PERCENT = 200;

export function limitHeapGrowth(percent: number = URL_LIST_HEAP_GROWING_PERCENT): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/**
 * V8's tiering for a WARC run: `--efficiency-mode` ("no latency requirements") holds a function back from TurboFan
 * until 15,000 calls (`--efficiency-mode-delay-turbofan`) instead of 3,000, so that the rewriting thread's hot
 * code is optimized once its type feedback has settled rather than optimized, deoptimized and optimized again:
 * JIT compilation was ~60% of the CPU of V8's helper threads on the bench crawl (`perf record -e cpu-clock`,
 * V8Worker threads), ~18% of the whole process; with these flags the helper threads took 0.6 s instead of ~2 s.
 * (The mode also compiles baseline code and Maglev's on-stack replacement on the JavaScript thread itself, about
 * 4% of the worker's samples: paid for many times over.) `--no-single-threaded-gc-in-background` keeps the
 * garbage collector as it is: efficiency mode would otherwise mark and sweep on the JavaScript threads alone
 * (the worker's heap then reached 113 MB, the process 320–330 MiB). Both flags together: 12–18% less
 * whole-process CPU, wall no worse, peak RSS 205–218 MiB against 222–245 (bench/warc.ts jobs, paired rounds;
 * docs/performance.md); on a 270 MB stream (`bench/warc.ts stream 256`) the same CPU, peak RSS 226–230 MiB
 * against 248–255. V8 reads
 * both as it runs, so set here they are the whole process's from now on.
 */
export const WARC_TIERING_FLAGS = ['--efficiency-mode', '--no-single-threaded-gc-in-background'] as const;

/**
 * V8's tiering for a mail run (an mbox, a MIME message, MHTML): the same efficiency mode as a crawl's. The mbox
 * bench (34 MB, 1,233 messages: HTML, CSS, quoted-printable and base64 parts) compiled 775 functions with Maglev
 * and 109 with TurboFan (`--trace-opt`), ~28% of the whole process's CPU on V8's helper threads (`perf record -e
 * cpu-clock`, V8Worker): the mail path runs through the MIME scanner, headers, codecs, the HTML tokenizer and tree
 * builder and the CSS scanner, each warm for a few hundred milliseconds only. With TurboFan held back those
 * functions stay in Maglev code: 0.79× the whole-process CPU, 1.02× the wall time (medians of 5 alternating
 * rounds, docs/performance.md). V8 reads the flag as it runs, so set before the first byte is read it is the
 * run's.
 */
export const MAIL_TIERING_FLAGS: readonly string[] = ['--efficiency-mode', '--no-single-threaded-gc-in-background'];

/** A mail run's tiering (above). */
export function tuneForMail(): void {
  for (const flag of MAIL_TIERING_FLAGS) setFlagsFromString(flag);
}

/**
 * A WARC or ARC run's heap and tiering settings, for the whole process from the call on. With worker threads,
 * call it once they have loaded (`onThreadsLoaded`), not before they start: every one of these flags changes the
 * hash V8 checks a code cache against (`--max-semi-space-size` does not), so a thread started after it rejected
 * the code cache built into Node for each of its ~150 own modules (`NODE_DEBUG_NATIVE=CODE_CACHE`: 151 rejected,
 * 8 after) and compiled them from source: the rewriting thread took 147–217 ms of CPU to load (median 186)
 * instead of 95–128 (median 110; `process.threadCpuUsage()` when it had loaded, the built command on a 6 MB crawl,
 * seven runs each). The old generation's floor it was started with
 * before (`--initial-old-space-size=32`, read only when a thread starts) no longer changed anything on the bench
 * crawl: 1 full collection in the thread and 169–173 scavenges either way (`--trace-gc`).
 */
export function limitWarcHeap(): void {
  limitHeapGrowth(WARC_HEAP_GROWING_PERCENT);
  for (const flag of WARC_TIERING_FLAGS) setFlagsFromString(flag);
}
