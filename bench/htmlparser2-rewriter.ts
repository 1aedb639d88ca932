/**
 * The peer a user writes instead of absolutize (issue 23): forty lines on htmlparser2's `Parser` that make the
 * usual URL attributes absolute with `new URL(value, base)` and serialize the document again from the events.
 * Not byte-faithful, and that is its point: quoting, character references, case and whitespace inside tags come
 * out as htmlparser2 understood them, no document encoding, no CSS, no microsyntax but a naive srcset split, and
 * its tree building is not a browser's. bench/engines.ts runs it beside the SAX floor and absolutize.
 */
import { escapeAttribute, escapeText } from 'entities';
import { Parser } from 'htmlparser2';

const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'poster', 'cite', 'data', 'background', 'longdesc', 'manifest', 'icon']);
const SRCSET_ATTRIBUTES = new Set(['srcset', 'imagesrcset']);
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const RAW_TEXT = new Set(['script', 'style']);

function absolute(value: string, base: string): string {
  const v = value.trim();
  if (v === '' || v.startsWith('#')) return value;
  try {
    return new URL(v, base).href;
  } catch {
    return value;
  }
}

/** Rewrites `html` (a string) against `baseUrl`; returns the new document. */
export function htmlparser2Rewrite(html: string, baseUrl: string): string {
  let base = baseUrl;
  let out = '';
  let rawText = false;
  const parser = new Parser({
    onopentag(name, attribs) {
      if (name === 'base' && attribs['href'] !== undefined) base = absolute(attribs['href'], base);
      out += `<${name}`;
      for (const [key, value] of Object.entries(attribs)) {
        let v = value;
        if (URL_ATTRIBUTES.has(key)) v = absolute(value, base);
        else if (SRCSET_ATTRIBUTES.has(key)) {
          v = value.split(',').map((candidate) => {
            const [url = '', ...descriptors] = candidate.trim().split(/\s+/);
            return [absolute(url, base), ...descriptors].join(' ');
          }).join(', ');
        }
        out += ` ${key}="${escapeAttribute(v)}"`;
      }
      out += '>';
      rawText = RAW_TEXT.has(name);
    },
    ontext(text) {
      out += rawText ? text : escapeText(text);
    },
    onclosetag(name, isImplied) {
      rawText = false;
      if (!VOID.has(name) && !isImplied) out += `</${name}>`;
    },
    oncomment(data) {
      out += `<!--${data}-->`;
    },
    onprocessinginstruction(_name, data) {
      out += `<${data}>`;
    },
  });
  parser.end(html);
  return out;
}
