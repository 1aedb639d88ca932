"""The mbox oracle for test/mime/differential/archive.test.ts (issue 20): for each mbox path given, how Python's
`mailbox.mbox` and a port of mutt's mbox rule split it, as JSON lines.

  python3 scripts/mbox-oracle.py FILE...
  -> {"python": [<message bytes, base64>...], "mutt": [<message bytes, base64>...],
      "structure": [[<content types of each Python message, walked>], ...]}

mutt's rule (mutt/mbox.c mbox_parse_mailbox, mutt/from.c is_from), ported: a line that `is_from` accepts starts a
message (no empty line needed before it). After a message's header, a `Content-Length` n > 0 is checked: the body
starts at offset b; the line at b + n + 1 must begin with "From " (or b + n + 1 is the end of the file); then
reading goes on from there (nothing inside the length splits), else the length is ignored. stdlib only.
"""
import base64
import email
import email.policy
import json
import mailbox
import re
import sys

DAYS = ('sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat')
MONTHS = ('jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec')


def is_day_name(s):
    return len(s) > 3 and s[3:4] in (' ', '\t') and s[:3].lower() in DAYS


def next_word(s):
    s = re.sub(r'^\S*', '', s, count=1)
    return s.lstrip(' \t')


def is_from(line):
    """mutt's is_from (from.c): "From ", an optional return path, then a ctime-like date."""
    if not line.startswith('From '):
        return False
    s = line[5:].lstrip(' \t')
    if not s:
        return False
    if not is_day_name(s):
        if s.startswith('"'):
            p = 1
            while p < len(s) and s[p] != '"':
                p += 2 if s[p] == '\\' else 1
            if p >= len(s):
                return False
            p += 1
            rest = s[p:]
        else:
            m = re.match(r'\S+', s)
            rest = s[m.end():] if m else ''
        if not rest:
            return False
        if rest.lower().startswith(' at '):  # pipermail: "From foo at bar.com Tue Feb ..."
            rest = next_word(rest[4:].lstrip(' \t'))
            rest = ' ' + rest if rest else ''
        s = rest.lstrip(' \t')
        if not s or not is_day_name(s):
            return False
    s = next_word(s)  # the weekday
    if not s or s[:3].lower() not in MONTHS:
        return False
    s = next_word(s)
    if not s or not re.match(r'\d', s):
        return False
    s = next_word(s)
    if not s or not re.match(r'\d+:\d+', s):
        return False
    s = next_word(s)
    if not s:
        return False
    if s[0].isalpha() or s[0] in '+-':
        s = next_word(s)
        if not s:
            return False
        if s[0].isalpha():
            s = next_word(s)
            if not s:
                return False
    return re.match(r'\d+', s) is not None


def mutt_split(data):
    """Offsets of the messages mutt reads, as (start, end) pairs."""
    size = len(data)
    starts = []
    pos = 0
    lines_end = []
    while pos < size:
        nl = data.find(b'\n', pos)
        end = size if nl == -1 else nl + 1
        line = data[pos:end].decode('latin-1').rstrip('\r\n')
        if is_from(line):
            starts.append(pos)
            # The header: up to the first empty line.
            h = end
            length = None
            while h < size:
                nl2 = data.find(b'\n', h)
                hend = size if nl2 == -1 else nl2 + 1
                hl = data[h:hend]
                if hl.strip(b'\r\n') == b'':
                    h = hend
                    break
                m = re.match(rb'(?i)content-length:\s*(\d+)', hl)
                if m and length is None:
                    length = int(m.group(1))
                h = hend
            body = h
            if length is not None and length > 0:
                tmploc = body + length + 1
                if 0 < tmploc < size:
                    if data[tmploc:tmploc + 5] == b'From ':
                        pos = tmploc
                        continue
                elif tmploc == size:
                    pos = tmploc
                    continue
            pos = body
            continue
        pos = end
    return [(s, (starts[k + 1] if k + 1 < len(starts) else size)) for k, s in enumerate(starts)]


def main():
    for path in sys.argv[1:]:
        with open(path, 'rb') as f:
            data = f.read()
        box = mailbox.mbox(path, create=False)
        python = []
        structure = []
        for key in box.iterkeys():
            raw = box.get_bytes(key, from_=True)
            python.append(base64.b64encode(raw).decode())
            msg = email.message_from_bytes(box.get_bytes(key), policy=email.policy.compat32)
            structure.append([p.get_content_type() for p in msg.walk()])
        box.close()
        mutt = [base64.b64encode(data[s:e]).decode() for s, e in mutt_split(data)]
        print(json.dumps({'python': python, 'mutt': mutt, 'structure': structure}))


main()
