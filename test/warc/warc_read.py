"""An independent WARC reader for the tests (test/warc/python-reader.test.ts): Python's zlib, hashlib and
base64 only, no code shared with absolutize. Reads a WARC file (plain, one gzip member per record, or one gzip
stream) and prints one JSON line per record: its id, type, target URI, refers-to, content length, and whether its
WARC-Block-Digest and WARC-Payload-Digest (sha1, base32) hold (null when the record has none). Bytes that are not a
record are skipped to the next "WARC/1." line and reported as a gap. The last line is a summary.

    python3 warc_read.py FILE
"""

import base64
import hashlib
import json
import re
import sys
import zlib

CHUNK = 1 << 16


def units(data):
    """(offset, bytes) of each gzip member, inflated; or the whole file when it is not gzip."""
    if data[:2] != b"\x1f\x8b":
        yield 0, data
        return
    view = memoryview(data)
    pos = 0
    while pos < len(data):
        d = zlib.decompressobj(wbits=31)
        out = []
        at = pos
        while not d.eof:
            if at >= len(data):
                raise ValueError("the file ends inside the gzip member at %d" % pos)
            piece = view[at:at + CHUNK]
            out.append(d.decompress(piece))
            at += len(piece)
        used = at - pos - len(d.unused_data)
        yield pos, b"".join(out)
        pos += used


def sha1_base32(b):
    return "sha1:" + base64.b32encode(hashlib.sha1(b).digest()).decode()


def check(value, b):
    if value is None:
        return None
    label, _, digest = value.partition(":")
    if label.lower() != "sha1":
        return None
    return sha1_base32(b)[5:] == digest.strip().upper()


def records(unit):
    """Every record (header dict, block) and gap (bytes) of an inflated unit."""
    at = 0
    while at < len(unit):
        if not unit.startswith(b"WARC/1.", at):
            nxt = unit.find(b"\nWARC/1.", at)
            end = len(unit) if nxt == -1 else nxt + 1
            yield ("gap", unit[at:end])
            at = end
            continue
        # The header ends at the first empty line (lines end in LF; CRs before it are dropped, as readers do).
        lines = []
        pos = at
        head_end = -1
        while True:
            nl = unit.find(b"\n", pos)
            if nl == -1:
                break
            line = unit[pos:nl].rstrip(b"\r")
            pos = nl + 1
            if line == b"":
                head_end = pos
                break
            lines.append(line.decode("latin-1"))
        if head_end == -1:
            yield ("gap", unit[at:])
            return
        headers = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                headers.setdefault(name.strip().lower(), value.strip())
        try:
            length = int(headers.get("content-length", ""))
        except ValueError:
            yield ("gap", unit[at:head_end])
            at = head_end
            continue
        start = head_end
        block = unit[start:start + length]
        at = start + length
        # The record ends with CRLF CRLF (some writers: LF LF); `trailer` says whether it does.
        trailer = False
        for end in (b"\r\n\r\n", b"\n\n"):
            if unit.startswith(end, at):
                at += len(end)
                trailer = True
                break
        yield ("record", headers, block, len(block) == length, trailer)


def main(path):
    with open(path, "rb") as f:
        data = f.read()
    count = gaps = 0
    for offset, unit in units(data):
        for item in records(unit):
            if item[0] == "gap":
                gaps += 1
                continue
            _, h, block, whole, trailer = item
            count += 1
            payload_ok = None
            if "warc-payload-digest" in h and h.get("content-type", "").lower().startswith("application/http"):
                end = block.find(b"\r\n\r\n")
                if end != -1:
                    payload_ok = check(h["warc-payload-digest"], block[end + 4:])
            print(json.dumps({
                "offset": offset,
                "id": h.get("warc-record-id"),
                "type": h.get("warc-type"),
                "target": h.get("warc-target-uri"),
                "refersTo": h.get("warc-refers-to"),
                "length": len(block),
                "whole": whole,
                "trailer": trailer,
                "unparsed": "x-absolutize-unparsed" in h,
                "block": check(h.get("warc-block-digest"), block),
                "payload": payload_ok,
            }))
    print(json.dumps({"records": count, "gaps": gaps}))


if __name__ == "__main__":
    main(sys.argv[1])
