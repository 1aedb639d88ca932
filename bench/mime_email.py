"""Python's email over the same messages, for bench/mime.ts: the job a Python user writes in place of ours, each
message parsed (BytesParser) and serialized again (BytesGenerator), under policy compat32 (what
email.message_from_bytes and the mailbox module use by default, and the fastest) or policy.default. Each job is
the whole process, from reading its input to writing its output, so that it is measured as our command is.

  python3 bench/mime_email.py mbox POLICY FILE OUT          # an mbox, split by mailbox.mbox, written to OUT
  python3 bench/mime_email.py eml POLICY OUT FILE...        # one message per file, all written to OUT
  python3 bench/mime_email.py measure CMD ARG...            # runs CMD; prints its whole-process usage as JSON:
                                                            # {user, sys, cpu, wall (seconds), maxRssKiB}
POLICY: compat32 or default.
"""
import json
import mailbox
import os
import subprocess
import sys
import time
from email import policy
from email.generator import BytesGenerator
from email.parser import BytesParser

POLICIES = {'compat32': policy.compat32, 'default': policy.default}


def mbox_job(pol, path, out_path):
    box = mailbox.mbox(path, create=False)
    parser = BytesParser(policy=pol)
    with open(out_path, 'wb') as out:
        for key in box.keys():
            raw = box.get_bytes(key, from_=True)
            nl = raw.index(b'\n') + 1
            out.write(raw[:nl])
            BytesGenerator(out, mangle_from_=False, policy=pol).flatten(parser.parsebytes(raw[nl:]))


def eml_job(pol, out_path, files):
    parser = BytesParser(policy=pol)
    with open(out_path, 'wb') as out:
        for p in files:
            with open(p, 'rb') as f:
                raw = f.read()
            BytesGenerator(out, mangle_from_=False, policy=pol).flatten(parser.parsebytes(raw))


def measure(cmd):
    """The child's user and system CPU over all its threads (wait4), its wall time and peak RSS."""
    t0 = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t0
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode not in (0, 1):
        # 1: our command ran, with warnings; anything else is a failed run, not a measurement.
        sys.exit(f'{cmd[0]} exited with {child.returncode}')
    print(json.dumps({'user': usage.ru_utime, 'sys': usage.ru_stime, 'cpu': usage.ru_utime + usage.ru_stime, 'wall': wall, 'maxRssKiB': usage.ru_maxrss}))


def main():
    mode = sys.argv[1]
    if mode == 'measure':
        measure(sys.argv[2:])
    elif mode == 'mbox':
        mbox_job(POLICIES[sys.argv[2]], sys.argv[3], sys.argv[4])
    elif mode == 'eml':
        eml_job(POLICIES[sys.argv[2]], sys.argv[3], sys.argv[4:])
    else:
        sys.exit(__doc__)


main()
