#!/usr/bin/env python3
"""MIME structure oracle for the differential test (test/mime/differential/): how Python's `email` reads a message.

Python 3 standard library only. Batch mode: every path named (or listed one per line in the file given with
--list) is read as one message; one JSON object per message is printed, one per line, in order.

For each message: every entity (multipart, message/*, leaf), numbered with IMAP-style section paths the way
absolutize's MIME layer numbers them (src/mime/rewriter.ts, pathOf):
  - the top-level entity is "0" when it is a multipart, "1" otherwise;
  - child i (from 1) of a multipart at path P is "i" when P is "0", else "P.i";
  - the message inside a message/* entity at path P is "P" when it is a multipart, else "P.1".
Per entity: content type (policy default, so a missing or broken Content-Type gives the default: text/plain, or
message/rfc822 inside multipart/digest), the parent entity, every header as it was written (name, raw value in
latin-1, folding kept), Content-Base / Content-Location / Snapshot-Content-Location decoded as Python decodes
them (RFC 2047 words; raw UTF-8 per RFC 6532), the defects Python records, and for a leaf its payload after
Content-Transfer-Encoding decoding: as text (latin-1) for text/html, application/xhtml+xml and text/css, as a
SHA-256 otherwise, and its chain of Content-Base / Content-Location values from itself out to the top (innermost
first; the test resolves it against the retrieval URL). A multipart's preamble and epilogue are given as they are.

  python3 scripts/mime-oracle.py [--compat32] FILE...
  python3 scripts/mime-oracle.py [--compat32] --list PATHS.txt

--compat32 parses with policy compat32 instead (the structure is the same parser's; header values differ).
"""
import email
import email.policy
import binascii
import hashlib
import json
import re
import sys

KINDS = {'text/html': 'html', 'application/xhtml+xml': 'html', 'text/css': 'css'}
BASE_HEADERS = ('content-base', 'content-location', 'snapshot-content-location')


def latin1(value):
    """A header value or payload string from the parser (surrogateescaped bytes) as the bytes' latin-1 text."""
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode('latin-1')
    return value.encode('ascii', 'surrogateescape').decode('latin-1') if _ascii_or_escaped(value) else value.encode('utf-8', 'surrogateescape').decode('latin-1')


def _ascii_or_escaped(value):
    try:
        value.encode('ascii', 'surrogateescape')
        return True
    except UnicodeEncodeError:
        return False


def decoded_header(msg, name, compat32):
    """The first `name` header, decoded as Python reads it (None when absent)."""
    if msg.get(name) is None:
        return None
    try:
        if compat32:
            from email.header import decode_header, make_header
            raw = msg.get(name)
            if isinstance(raw, str) and not _ascii_or_escaped(raw):
                return str(raw)
            raw = raw.encode('ascii', 'surrogateescape')
            try:
                text = raw.decode('utf-8')
            except UnicodeDecodeError:
                text = raw.decode('latin-1')
            return str(make_header(decode_header(text))) if '=?' in text else text
        return str(msg[name])
    except Exception as exc:  # a header Python cannot read: say so rather than guess
        return {'error': f'{type(exc).__name__}: {exc}'}


def header_defects(msg, compat32):
    if compat32:
        return []
    out = []
    for name in ('content-type', 'content-transfer-encoding', 'content-location', 'content-base', 'content-disposition'):
        if msg.get(name) is None:
            continue
        try:
            for d in msg[name].defects:
                out.append(f'{name}:{type(d).__name__}')
        except Exception as exc:
            out.append(f'{name}:{type(exc).__name__}')
    return out


def describe(data, compat32):
    policy = email.policy.compat32 if compat32 else email.policy.default
    msg = email.message_from_bytes(data, policy=policy)
    entities = []

    def add(m, path, parent):
        ctype = m.get_content_type()
        index = len(entities)
        item = {
            'path': path,
            'type': ctype,
            'parent': parent,
            'headers': [[k, latin1(v)] for k, v in m.raw_items()],
            'defects': [],
        }
        for name in BASE_HEADERS:
            v = decoded_header(m, name, compat32)
            if v is not None:
                item[name] = v
        entities.append(item)
        try:
            _decode_payload(m, item)
        finally:
            # after decoding: get_payload(decode=True) records the base64 defects on the part
            item['defects'] = [type(d).__name__ for d in m.defects] + header_defects(m, compat32)
        if m.is_multipart():
            payload = m.get_payload()
            if ctype.startswith('multipart/') or m.get_content_maintype() == 'multipart':
                item['container'] = 'multipart'
                item['preamble'] = latin1(m.preamble)
                item['epilogue'] = latin1(m.epilogue)
                for i, child in enumerate(payload, 1):
                    add(child, str(i) if path == '0' else f'{path}.{i}', index)
            else:
                item['container'] = 'message'
                # message/*: one encapsulated message (message/delivery-status: several header blocks).
                if len(payload) == 1:
                    inner = payload[0]
                    add(inner, path if inner.is_multipart() and inner.get_content_maintype() == 'multipart' else f'{path}.1', index)
                else:
                    for i, child in enumerate(payload, 1):
                        add(child, f'{path}.{i}', index)

    add(msg, '0' if msg.is_multipart() and msg.get_content_maintype() == 'multipart' else '1', None)
    # For reading by hand: each leaf's Content-Base / Content-Location chain, innermost first.
    for item in entities:
        if 'kind' not in item:
            continue
        chain, at = [], item
        while at is not None:
            layer = {k: at[k] for k in BASE_HEADERS if k in at}
            if layer:
                chain.append(dict(layer, path=at['path']))
            at = entities[at['parent']] if at['parent'] is not None else None
        item['chain'] = chain
    return {'entities': entities}


def _decode_payload(m, item):
    """A leaf's payload after Content-Transfer-Encoding decoding: text for HTML/CSS, a hash otherwise."""
    if m.is_multipart():
        return
    ctype = m.get_content_type()
    kind = KINDS.get(ctype)
    item['kind'] = kind or 'other'
    item['cte'] = str(m.get('content-transfer-encoding', '')).strip().lower()
    item['charset'] = m.get_content_charset()
    try:
        body = m.get_payload(decode=True)
        if item['cte'] == 'quoted-printable':
            raw = m.get_payload(decode=False)
            if isinstance(raw, str) and re.search(r'\r(?!\n)', raw):
                body = qp_decode_lines(latin1(raw).encode('latin-1'))
    except Exception as exc:
        item['payloadError'] = f'{type(exc).__name__}: {exc}'
        body = None
    if body is None:
        raw = m.get_payload()
        body = raw.encode('ascii', 'surrogateescape') if isinstance(raw, str) else b''
    if kind is None:
        item['sha256'] = hashlib.sha256(body).hexdigest()
        item['size'] = len(body)
    else:
        item['text'] = body.decode('latin-1')


def qp_decode_lines(raw):
    """Quoted-printable, line by line, for bodies with bare-CR line endings. Deliberately not Python's: its
    binascii.a2b_qp takes "=" + CR as a soft line break and then skips to the next LF, so with bare-CR line
    endings it drops the rest of the part. Here every CR, LF or CRLF ends a line (RFC 2045 §6.7 rule 5)."""
    out = []
    for content, eol in re.findall(rb'([^\r\n]*)(\r\n|\r|\n|$)', raw):
        stripped = content.rstrip(b' \t')
        if stripped.endswith(b'='):
            out.append(binascii.a2b_qp(stripped[:-1]))
        else:
            out.append(binascii.a2b_qp(content) + eol)
    return b''.join(out)


def main(argv):
    compat32 = '--compat32' in argv
    args = [a for a in argv if a != '--compat32']
    paths = []
    i = 0
    while i < len(args):
        if args[i] == '--list':
            with open(args[i + 1], encoding='utf-8') as f:
                paths.extend(line.rstrip('\n') for line in f if line.strip())
            i += 2
        else:
            paths.append(args[i])
            i += 1
    out = sys.stdout
    for path in paths:
        with open(path, 'rb') as f:
            data = f.read()
        try:
            result = describe(data, compat32)
        except Exception as exc:  # the oracle itself failed on this message: the test reports it
            result = {'error': f'{type(exc).__name__}: {exc}'}
        result['file'] = path
        out.write(json.dumps(result, ensure_ascii=True))
        out.write('\n')


if __name__ == '__main__':
    main(sys.argv[1:])
