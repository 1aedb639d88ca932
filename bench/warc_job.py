#!/usr/bin/env python3
"""The job a crawler user would otherwise write: every HTML response of a .warc.gz with its links made absolute by
lxml (make_links_absolute, the record's WARC-Target-URI as the base), in Python.

It STANDS IN FOR warcio (the Python WARC library such a user would pick, which cannot be installed here): a small
WARC reader of its own on the standard library only, doing what warcio's ArchiveIterator and WARCWriter do for this
job, no more:
  - each gzip member inflated with zlib (a decompressobj per member, input read 16 KiB at a time as warcio reads it),
    the WARC header parsed, the block cut at Content-Length;
  - a `response` record whose HTTP Content-Type is text/html: the HTTP head split off, the payload de-chunked
    (Transfer-Encoding: chunked) and content-decoded (gzip, deflate) as warcio's content_stream() does;
  - lxml.html.document_fromstring on the payload, make_links_absolute(Target-URI, resolve_base_href=True).

Modes:
  scan FILE               the reader alone: every member inflated and its records parsed, nothing else
  read FILE               links made absolute, nothing serialized or written (the read-only job)
  rewrite FILE OUT        a new gzipped WARC written to OUT as a warcio WARCWriter(gzip=True) writes one: every record
                          its own gzip member (zlib level 9, warcio's GzippingWrapper; BENCH_WARC_PY_LEVEL overrides),
                          the rewritten HTML serialized by lxml.html.tostring, its HTTP framing (Content-Encoding,
                          Transfer-Encoding, Content-Length) replaced by the new length, a new record id, and
                          Content-Length, WARC-Block-Digest and WARC-Payload-Digest computed anew (sha1, base32);
                          other records written as they were read, their digests added where missing (ensure_digest)
Prints one JSON line: bytes, seconds, maxRssKiB, records, html (HTML responses made absolute).
"""
import base64
import hashlib
import json
import os
import resource
import sys
import time
import uuid
import zlib

import lxml.html

BLOCK = 16384


def members(f):
    """Each gzip member's inflated bytes, in order."""
    buf = b''
    while True:
        if not buf:
            buf = f.read(BLOCK)
            if not buf:
                return
        d = zlib.decompressobj(31)
        out = []
        while True:
            out.append(d.decompress(buf))
            if d.eof:
                buf = d.unused_data
                break
            buf = f.read(BLOCK)
            if not buf:
                raise EOFError('the input ends inside a gzip member')
        yield b''.join(out)


def records(f):
    """(protocol, [(name, value)], block) of each record; a member may hold several."""
    for data in members(f):
        at = 0
        while at < len(data):
            end = data.find(b'\r\n\r\n', at)
            if end == -1:
                break
            lines = data[at:end].decode('latin-1').split('\r\n')
            fields = []
            for line in lines[1:]:
                name, _, value = line.partition(':')
                fields.append((name, value.strip()))
            length = int(field(fields, 'Content-Length') or 0)
            block = data[end + 4:end + 4 + length]
            yield lines[0], fields, block
            at = end + 4 + length
            while data[at:at + 2] == b'\r\n':
                at += 2


def field(fields, name):
    lower = name.lower()
    for n, v in fields:
        if n.lower() == lower:
            return v
    return None


def dechunk(body):
    out = []
    at = 0
    while True:
        eol = body.find(b'\r\n', at)
        if eol == -1:
            return body
        try:
            size = int(body[at:eol].split(b';')[0], 16)
        except ValueError:
            return body
        if size == 0:
            return b''.join(out)
        out.append(body[eol + 2:eol + 2 + size])
        at = eol + 2 + size + 2


def http_html(fields, block):
    """(head lines, payload decoded) of a text/html HTTP response, else None."""
    if field(fields, 'WARC-Type') != 'response' or not (field(fields, 'Content-Type') or '').startswith('application/http'):
        return None
    end = block.find(b'\r\n\r\n')
    if end == -1:
        return None
    lines = block[:end].decode('latin-1').split('\r\n')
    headers = [(n, v.strip()) for n, _, v in (line.partition(':') for line in lines[1:])]
    if not (field(headers, 'Content-Type') or '').lower().startswith('text/html'):
        return None
    body = block[end + 4:]
    if 'chunked' in (field(headers, 'Transfer-Encoding') or '').lower():
        body = dechunk(body)
    coding = (field(headers, 'Content-Encoding') or '').lower()
    if coding in ('gzip', 'x-gzip', 'deflate'):
        try:
            body = zlib.decompress(body, 47 if coding != 'deflate' else 15)
        except zlib.error:
            pass
    return lines, headers, body


def absolute(body, base):
    try:
        doc = lxml.html.document_fromstring(body)
    except Exception:
        return None
    doc.make_links_absolute(base, resolve_base_href=True)
    return doc


def sha1(data):
    return 'sha1:' + base64.b32encode(hashlib.sha1(data).digest()).decode('ascii')


def serialize(protocol, fields, block):
    head = protocol + '\r\n' + ''.join(f'{n}: {v}\r\n' for n, v in fields if n.lower() != 'content-length')
    return head.encode('latin-1') + f'Content-Length: {len(block)}\r\n\r\n'.encode('latin-1') + block + b'\r\n\r\n'


def main():
    mode, path = sys.argv[1], sys.argv[2]
    level = int(os.environ.get('BENCH_WARC_PY_LEVEL', '9'))
    out = open(sys.argv[3], 'wb') if mode == 'rewrite' else None
    t0 = time.perf_counter()
    n = html = 0
    with open(path, 'rb') as f:
        for protocol, fields, block in records(f):
            n += 1
            if mode == 'scan':
                continue
            target = (field(fields, 'WARC-Target-URI') or '').strip('<>')
            found = http_html(fields, block)
            doc = None if found is None else absolute(found[2], target)
            if doc is not None:
                html += 1
            if out is None:
                continue
            if doc is not None:
                payload = lxml.html.tostring(doc)
                lines, headers, _ = found
                head = [lines[0]] + [f'{n}: {v}' for n, v in headers if n.lower() not in ('content-encoding', 'transfer-encoding', 'content-length')]
                head.append(f'Content-Length: {len(payload)}')
                block = ('\r\n'.join(head) + '\r\n\r\n').encode('latin-1') + payload
                fields = [(n, v) for n, v in fields if n.lower() not in ('warc-record-id', 'warc-block-digest', 'warc-payload-digest')]
                fields.insert(1, ('WARC-Record-ID', f'<urn:uuid:{uuid.uuid4()}>'))
                fields += [('WARC-Block-Digest', sha1(block)), ('WARC-Payload-Digest', sha1(payload))]
            else:
                if field(fields, 'WARC-Block-Digest') is None:
                    fields = fields + [('WARC-Block-Digest', sha1(block))]
                if field(fields, 'WARC-Payload-Digest') is None and (field(fields, 'Content-Type') or '').startswith('application/http'):
                    end = block.find(b'\r\n\r\n')
                    fields = fields + [('WARC-Payload-Digest', sha1(block[end + 4:] if end != -1 else b''))]
            c = zlib.compressobj(level, zlib.DEFLATED, 31)
            out.write(c.compress(serialize(protocol, fields, block)) + c.flush())
    finish(out, path, t0, n, html)


def finish(out, path, t0, records, html):
    """Closes OUT (if any) and prints the job's JSON line (also bench/warcio_job.py's)."""
    if out is not None:
        out.close()
    seconds = time.perf_counter() - t0
    print(json.dumps({'bytes': os.path.getsize(path), 'seconds': seconds, 'maxRssKiB': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, 'records': records, 'html': html}))


if __name__ == '__main__':
    main()
