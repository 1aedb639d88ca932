#!/usr/bin/env python3
"""The peer: lxml make_links_absolute + serialize, over the given files; prints JSON (bytes, seconds, maxrss).

REPEAT passes, the best printed; with REPEAT 0 it serves passes instead: one pass, and one JSON line, for each
line read on stdin, until stdin ends (bench/engines.ts keeps one such process for all its rounds, so that it
starts no process while the engines' heaps are large: see there).
"""
import json, resource, sys, time
import lxml.html

base = sys.argv[1]
repeat = int(sys.argv[2])
files = sys.argv[3:]
docs = [open(f, 'rb').read() for f in files]
total = sum(len(d) for d in docs)


def one_pass():
    t0 = time.perf_counter()
    for d in docs:
        try:
            tree = lxml.html.document_fromstring(d)
        except Exception:
            continue
        tree.make_links_absolute(base, resolve_base_href=True)
        lxml.html.tostring(tree)
    return time.perf_counter() - t0


def result(seconds):
    return json.dumps({'bytes': total, 'seconds': seconds, 'maxRssKiB': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss})


if repeat == 0:
    for _ in sys.stdin:
        print(result(one_pass()), flush=True)
else:
    print(result(min(one_pass() for _ in range(repeat))))
