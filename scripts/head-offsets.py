#!/usr/bin/env python3
"""Where head content ends in the htmlparser-benchmark pages: evidence for MAX_BASE_LOOKAHEAD_BYTES (src/limits.ts)."""
import os, re, statistics, sys

d = sys.argv[1] if len(sys.argv) > 1 else 'node_modules/htmlparser-benchmark/files'
offsets = []
for name in os.listdir(d):
    data = open(os.path.join(d, name), 'rb').read()
    m = re.search(rb'</head\s*>|<body[\s>]', data, re.I)
    if m:
        offsets.append(m.start())
print(f'pages: {len(offsets)}  median: {statistics.median(offsets):.0f} B  max: {max(offsets)} B')
