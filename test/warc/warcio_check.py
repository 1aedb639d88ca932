"""Reads a WARC file with warcio itself (bench/vendor/warcio, 1.8.1 unchanged), as `warcio check` does: every record
iterated with check_digests=True and its content read to the end. Prints one JSON line per record (offset and length
as an index gives them, id, type, target URI (an ARC record's URL), whether its digests held: true, false, or null
when warcio checked none, and warcio's problems), then a summary line with the record count, or the error that
stopped warcio.

    python3 warcio_check.py FILE
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'bench', 'vendor'))

from warcio.archiveiterator import ArchiveIterator  # noqa: E402

count = 0
error = None
with open(sys.argv[1], 'rb') as f:
    it = ArchiveIterator(f, check_digests=True)
    try:
        for record in it:
            stream = record.content_stream()
            while stream.read(1 << 20):
                pass
            count += 1
            print(json.dumps({
                # Where an index (CDX) says the record is, as warcio's indexer and pywb's give it: the offset and
                # length of its gzip member, or of the record in an uncompressed file.
                'offset': it.get_record_offset(),
                'length': it.get_record_length(),
                'id': record.rec_headers.get_header('WARC-Record-ID'),
                'type': record.rec_type,
                # An ARC record's URL is its header's first field (warcio names it 'uri').
                'uri': record.rec_headers.get_header('WARC-Target-URI') or record.rec_headers.get_header('uri'),
                'passed': record.digest_checker.passed,
                'problems': list(record.digest_checker.problems),
            }))
    except Exception as e:  # warcio's ArchiveLoadFailed, or a decoding error it raises on a broken stream
        error = '%s: %s' % (type(e).__name__, e)
print(json.dumps({'records': count, 'error': error}))
