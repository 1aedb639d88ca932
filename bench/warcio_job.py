#!/usr/bin/env python3
"""The job a crawler user would otherwise write, on warcio itself (bench/vendor/warcio, 1.8.1 unchanged): every HTML
response of a .warc.gz with its links made absolute by lxml (make_links_absolute, the record's WARC-Target-URI as the
base), the way warcio's README and its own `recompress` command read and write records.

  - ArchiveIterator over the file: each gzip member inflated, the WARC and HTTP headers parsed;
  - a `response` record whose HTTP Content-Type is text/html: its payload read through content_stream() (de-chunked
    and content-decoded), lxml.html.document_fromstring, make_links_absolute(Target-URI, resolve_base_href=True).

Modes:
  scan FILE               the reader alone: every record iterated (ArchiveIterator reads what is not consumed)
  read FILE               links made absolute, nothing serialized or written (the read-only job)
  rewrite FILE OUT        a new gzipped WARC written to OUT with WARCWriter(gzip=True) (every record its own gzip
                          member at zlib level 9, warcio's GzippingWrapper): the rewritten HTML serialized by
                          lxml.html.tostring into a new record (create_warc_record: a new record id, Content-Length
                          and digests computed anew), its HTTP Content-Encoding and Transfer-Encoding removed and
                          Content-Length set; every other record written as it was read (write_record, which adds
                          digests where missing)
Prints one JSON line: bytes, seconds, maxRssKiB, records, html (HTML responses made absolute).
"""
import os
import sys
import time
from io import BytesIO

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'vendor'))

import lxml.html  # noqa: E402
from warcio.archiveiterator import ArchiveIterator  # noqa: E402
from warcio.warcwriter import WARCWriter  # noqa: E402

from warc_job import finish  # noqa: E402  (bench/, the script's own folder)

# WARC fields a new record gets anew from create_warc_record and the writer.
RENEWED = ('warc-record-id', 'warc-block-digest', 'warc-payload-digest', 'content-length', 'warc-type', 'warc-target-uri')


def is_html(record):
    if record.rec_type != 'response' or record.http_headers is None:
        return False
    return (record.http_headers.get_header('Content-Type') or '').lower().startswith('text/html')


def main():
    mode, path = sys.argv[1], sys.argv[2]
    out = open(sys.argv[3], 'wb') if mode == 'rewrite' else None
    writer = WARCWriter(out, gzip=True) if out is not None else None
    t0 = time.perf_counter()
    n = html = 0
    with open(path, 'rb') as f:
        for record in ArchiveIterator(f):
            n += 1
            if mode == 'scan':
                continue
            doc = None
            if is_html(record):
                uri = record.rec_headers.get_header('WARC-Target-URI')
                try:
                    doc = lxml.html.document_fromstring(record.content_stream().read())
                    doc.make_links_absolute(uri, resolve_base_href=True)
                    html += 1
                except Exception:
                    doc = None
            if writer is None:
                continue
            if doc is None:
                writer.write_record(record)
                continue
            payload = lxml.html.tostring(doc)
            headers = record.http_headers
            headers.remove_header('Content-Encoding')
            headers.remove_header('Transfer-Encoding')
            headers.replace_header('Content-Length', str(len(payload)))
            fields = {name: value for name, value in record.rec_headers.headers if name.lower() not in RENEWED}
            writer.write_record(writer.create_warc_record(uri, 'response', payload=BytesIO(payload), length=len(payload), http_headers=headers, warc_headers_dict=fields))
    finish(out, path, t0, n, html)


if __name__ == '__main__':
    main()
