#!/usr/bin/env python3
"""Alternating rounds of whole commands, for comparisons the bench does not make itself (a V8 flag, an environment
variable, another build): each round runs every command once, in order; printed per command are the medians of
user and system CPU of the process and its threads (wait4), wall seconds and minor page faults, and for each command
after the first the median of its per-round ratios to the first.

    python3 bench/ab.py ROUNDS 'COMMAND A' 'COMMAND B' ...

For example, a flag on the crawl (docs/performance.md, WARC):
    python3 bench/ab.py 7 'node --max-semi-space-size=4 bin/absolutize.js bench/out/bench-2.warc.gz -o /tmp/a.warc.gz' \
                          'node --max-semi-space-size=4 --minor-ms bin/absolutize.js bench/out/bench-2.warc.gz -o /tmp/b.warc.gz'
(run from the clone with node_modules/.bin first on PATH, as `npm run` puts it).
"""
import resource
import statistics
import subprocess
import sys
import time


def main():
    rounds = int(sys.argv[1])
    commands = sys.argv[2:]
    if rounds < 1 or not commands:
        sys.exit(__doc__)
    runs = [[] for _ in commands]
    for _ in range(rounds):
        for i, command in enumerate(commands):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            done = subprocess.run(command, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if done.returncode != 0:
                sys.exit('%s failed (%d): %s' % (command, done.returncode, done.stderr.decode('utf8', 'replace')[-2000:]))
            user = after.ru_utime - before.ru_utime
            system = after.ru_stime - before.ru_stime
            runs[i].append({'user': user, 'sys': system, 'cpu': user + system, 'wall': wall, 'faults': after.ru_minflt - before.ru_minflt})
    median = statistics.median
    for i, command in enumerate(commands):
        line = '[%d] user %.3f sys %.3f cpu %.3f wall %.3f faults %d' % (i, *(median([r[k] for r in runs[i]]) for k in ('user', 'sys', 'cpu', 'wall', 'faults')))
        if i > 0:
            ratio = lambda k: median([runs[i][n][k] / runs[0][n][k] for n in range(rounds)])  # noqa: E731
            line += '  ratio to [0]: cpu %.3f wall %.3f' % (ratio('cpu'), ratio('wall'))
        print(line, '  ', command)


if __name__ == '__main__':
    main()
