#!/usr/bin/env python3
"""The peer: lxml make_links_absolute + serialize, over the given files; prints JSON (bytes, seconds, maxrss)."""
import json, resource, sys, time
import lxml.html

base = sys.argv[1]
repeat = int(sys.argv[2])
files = sys.argv[3:]
docs = [open(f, 'rb').read() for f in files]
total = sum(len(d) for d in docs)
best = float('inf')
for _ in range(repeat):
    t0 = time.perf_counter()
    for d in docs:
        try:
            tree = lxml.html.document_fromstring(d)
        except Exception:
            continue
        tree.make_links_absolute(base, resolve_base_href=True)
        lxml.html.tostring(tree)
    best = min(best, time.perf_counter() - t0)
print(json.dumps({'bytes': total, 'seconds': best, 'maxRssKiB': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
