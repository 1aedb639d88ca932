#!/usr/bin/env python3
"""The samples of a `perf record -g` run by thread, each sample classed by what its stack holds (docs/performance.md,
"where the crawl's CPU goes"): V8's compilers, the garbage collector, zlib, SHA-1, CRC-32, else the frame on top.
The first class whose words a stack holds wins, in the order of CLASSES.

    perf record -e cpu-clock -F 2000 -g -o perf.data node --max-semi-space-size=4 bin/absolutize.js CRAWL -o OUT
    perf script -i perf.data -F tid,ip,sym > perf.txt
    python3 bench/perf-classes.py perf.txt [THREADS]      # the THREADS busiest threads (default 2)

(Without --perf-basic-prof JavaScript frames are "[unknown]"; with it the compile cache is not used.)
"""
import collections
import re
import sys

CLASSES = [
    ('Maglev compiling', ('Maglev',)),
    ('TurboFan compiling', ('Turbofan', 'TurboFan', 'compiler::')),
    ('lazy compiling and parsing', ('CompileLazy', 'Compiler::Compile', 'Parser')),
    ('GC', ('Heap::', 'Scavenge', 'MarkCompact', 'ConcurrentMarking', 'Sweep')),
    ('deflate', ('deflate',)),
    ('inflate', ('inflate',)),
    ('SHA-1', ('sha1', 'SHA1')),
    ('CRC-32', ('crc32',)),
    ('deserializing', ('Deserializ',)),
]


def samples(path):
    """(thread id, [frame symbols, innermost first]) for each sample of `perf script -F tid,ip,sym`."""
    current = None
    with open(path, encoding='utf8', errors='replace') as f:
        for line in f:
            head = re.match(r'^\s*(\d+)\s*$', line)
            if head:
                if current:
                    yield current
                current = (int(head.group(1)), [])
            elif line.strip() and current is not None:
                parts = line.strip().split(None, 1)
                current[1].append(parts[1] if len(parts) > 1 else '?')
    if current:
        yield current


def classify(stack):
    joined = ' '.join(stack)
    for name, words in CLASSES:
        if any(w in joined for w in words):
            return name
    return stack[0] if stack else '?'


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    by_thread = collections.defaultdict(collections.Counter)
    for tid, stack in samples(sys.argv[1]):
        by_thread[tid][classify(stack)] += 1
    ranked = sorted(by_thread.items(), key=lambda kv: -sum(kv[1].values()))
    total = sum(sum(c.values()) for _, c in ranked)
    print('%d samples, %d threads' % (total, len(ranked)))
    for tid, counts in ranked[:threads]:
        n = sum(counts.values())
        print('thread %d: %d samples' % (tid, n))
        for name, k in counts.most_common(15):
            print('  %6d %5.1f%%  %s' % (k, 100 * k / n, name[:80]))
    rest = ranked[threads:]
    if rest:
        helpers = collections.Counter()
        for _, counts in rest:
            helpers.update(counts)
        print('the other threads: %d samples' % sum(helpers.values()))
        for name, k in helpers.most_common(8):
            print('  %6d  %s' % (k, name[:80]))


if __name__ == '__main__':
    main()
