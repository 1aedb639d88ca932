/**
 * XML character data as the rewriters see it: raw text (one unit per byte, see src/encoding/raw-text.ts) decoded
 * with its references, keeping the raw offset of every decoded unit, and text escaped back for XML.
 *
 * https://www.w3.org/TR/xml/#sec-references: the only references a non-validating reader expands without the
 * DTD are the five predefined entities and character references. A value holding any other entity reference
 * (declared in a DTD we do not read) is not decoded: it is left as it is.
 * NOTE: a reference grammar this small is matched here rather than by a library: htmlparser2's tokenizer gives the
 * offsets we need but, with entity decoding on, not the offsets of the decoded characters.
 */
import { appendDecodedRun, decodeRawText } from '../encoding/raw-text.ts';
import type { DecodedText, RawCodec } from '../encoding/raw-text.ts';

const PREDEFINED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', apos: "'", quot: '"' };
const REFERENCE = /&(?:#([0-9]+)|#x([0-9a-fA-F]+)|([A-Za-z_:][-A-Za-z0-9._:]*));/g;

/** A run of character data: text with references, or the inside of a CDATA section (taken literally). */
export interface XmlSegment {
  readonly kind: 'text' | 'cdata';
  /** Absolute raw offsets. */
  readonly start: number;
  readonly end: number;
}

/** Decoded XML text with the absolute raw offset of each unit boundary, and the segment each unit came from. */
export interface DecodedXml extends DecodedText {
  /** The segment (index into the segments given) of the unit at `index`. */
  segmentOf(index: number): number;
}

/**
 * Decodes segments of raw text (`raw` starts at absolute offset `rawStart`). Null if a segment holds an entity
 * reference other than the predefined ones, a malformed character reference, or bytes the codec cannot map.
 */
export function decodeXmlSegments(raw: string, rawStart: number, segments: readonly XmlSegment[], codec: RawCodec): DecodedXml | null {
  // The common case: one run with no reference (or one CDATA section).
  if (segments.length === 1) {
    const seg = segments[0]!;
    const text = raw.slice(seg.start - rawStart, seg.end - rawStart);
    if (seg.kind === 'cdata' || !text.includes('&')) {
      const d = decodeRawText(text, codec);
      if (d === null) return null;
      return { value: d.value, toRaw: (i) => seg.start + d.toRaw(i), undecodable: d.undecodable, segmentOf: () => 0 };
    }
  }
  let value = '';
  const rawAt: number[] = [];
  const segAt: number[] = [];
  const undecodable: number[] = [];
  for (let s = 0; s < segments.length; s++) {
    const seg = segments[s]!;
    const from = seg.start - rawStart;
    const to = seg.end - rawStart;
    const before = rawAt.length;
    const run = (a: number, b: number): boolean => {
      if (b <= a) return true;
      const next = appendDecodedRun(raw, a, b, codec, value, rawAt, undecodable);
      if (next === null) return false;
      value = next;
      return true;
    };
    if (seg.kind === 'cdata') {
      if (!run(from, to)) return null;
    } else {
      let i = from;
      const text = raw.slice(0, to);
      REFERENCE.lastIndex = from;
      for (;;) {
        const amp = text.indexOf('&', i);
        if (amp === -1) break;
        if (!run(i, amp)) return null;
        REFERENCE.lastIndex = amp;
        const m = REFERENCE.exec(text);
        if (m === null || m.index !== amp) return null; // a bare "&" is not well-formed
        let ch: string;
        if (m[3] !== undefined) {
          const p = PREDEFINED[m[3]];
          if (p === undefined) return null;
          ch = p;
        } else {
          const cp = m[1] !== undefined ? parseInt(m[1], 10) : parseInt(m[2]!, 16);
          if (!(cp > 0 && cp <= 0x10ffff) || (cp >= 0xd800 && cp <= 0xdfff)) return null;
          ch = String.fromCodePoint(cp);
        }
        for (let k = 0; k < ch.length; k++) rawAt.push(amp);
        value += ch;
        i = amp + m[0].length;
      }
      if (!run(i, to)) return null;
    }
    for (let k = before; k < rawAt.length; k++) segAt.push(s);
  }
  const end = segments.length === 0 ? 0 : segments[segments.length - 1]!.end - rawStart;
  rawAt.push(end);
  return {
    value,
    toRaw: (index) => rawStart + (rawAt[index] ?? end),
    undecodable,
    segmentOf: (index) => segAt[index] ?? segments.length - 1,
  };
}

/** Escapes text for XML character data: "&", "<" and ">" (so that no "]]>" can appear). */
export function escapeXmlText(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

/** Escapes text for an XML attribute value in the given quotes. */
export function escapeXmlAttribute(text: string, quote: '"' | "'"): string {
  return text.replace(quote === '"' ? /[&<"]/g : /[&<']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '"' ? '&quot;' : '&apos;'));
}

/**
 * The encoding of an XML document: BOM, then the transport charset, then the XML declaration's `encoding`
 * (https://www.w3.org/TR/xml/#sec-guessing), else UTF-8. `head` is the first bytes as latin1 text.
 */
export function xmlDeclarationEncoding(head: string): string | null {
  // https://www.w3.org/TR/xml/#NT-XMLDecl: '<?xml' VersionInfo EncodingDecl? ... at the very start.
  const m = /^<\?xml[ \t\r\n]+version[ \t\r\n]*=[ \t\r\n]*(?:"[^"]*"|'[^']*')[ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*(?:"([A-Za-z][A-Za-z0-9._-]*)"|'([A-Za-z][A-Za-z0-9._-]*)')/.exec(head);
  return m === null ? null : (m[1] ?? m[2]!);
}
