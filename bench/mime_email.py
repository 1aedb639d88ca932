"""Python's email over the same messages, for bench/mime.ts: each message parsed (BytesParser, policy default)
and serialized again (BytesGenerator), the pass our MIME layer is compared with.

  python3 bench/mime_email.py mbox FILE REPEAT      # an mbox, split by mailbox.mbox
  python3 bench/mime_email.py eml REPEAT FILE...    # one message per file
Prints JSON: {bytes, seconds (best of REPEAT), maxRssKiB, messages}.
"""
import io
import json
import mailbox
import resource
import sys
import time
from email import policy
from email.generator import BytesGenerator
from email.parser import BytesParser


def once(messages):
    parser = BytesParser(policy=policy.default)
    out = 0
    for raw in messages:
        msg = parser.parsebytes(raw)
        buf = io.BytesIO()
        BytesGenerator(buf, mangle_from_=False, policy=policy.default).flatten(msg)
        out += len(buf.getvalue())
    return out


def main():
    mode = sys.argv[1]
    if mode == 'mbox':
        path, repeat = sys.argv[2], int(sys.argv[3])
        box = mailbox.mbox(path, create=False)
        messages = [box.get_bytes(key) for key in box.keys()]
        size = sum(len(m) for m in messages)
    else:
        repeat = int(sys.argv[2])
        messages = [open(p, 'rb').read() for p in sys.argv[3:]]
        size = sum(len(m) for m in messages)
    best = float('inf')
    for _ in range(repeat):
        t0 = time.perf_counter()
        once(messages)
        best = min(best, time.perf_counter() - t0)
    print(json.dumps({'bytes': size, 'seconds': best, 'maxRssKiB': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, 'messages': len(messages)}))


main()
