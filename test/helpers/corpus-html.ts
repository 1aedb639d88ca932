/**
 * HTML pulled out of the shared corpus (../shared/corpus): text/html bodies of web archive records and text/html
 * parts of mail and MHTML (quoted-printable and base64 decoded), as latin1 text. Used by the fast tokenizer's fuzzer
 * (src/html/fast-tokenizer.fuzz.test.ts) and the tree simulator's tests.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import libqp from 'libqp';
import { sharedPath } from './shared.ts';

/** Every file under `dir` below 8 MiB, in a stable order. */
function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[])
    .sort()
    .map((f) => `${dir}${f}`)
    .filter((p) => {
      const st = statSync(p);
      return st.isFile() && st.size < 8 << 20;
    });
}

export function corpusHtml(): Array<{ name: string; html: string }> {
  const root = sharedPath('corpus/');
  const out: Array<{ name: string; html: string }> = [];
  for (const path of walk(root)) {
    if (/\.(json|md)$|SHA256SUMS/.test(path)) continue;
    const name = path.slice(root.length);
    if (/\.(warc|arc)(\.gz)?$/.test(path)) {
      let bytes = readFileSync(path);
      if (path.endsWith('.gz')) {
        try {
          bytes = gunzipSync(bytes);
        } catch {
          continue;
        }
      }
      const text = bytes.toString('latin1');
      let k = 0;
      for (const record of text.split(/\r?\n(?=WARC\/1\.\d\r?\n)|\n(?=http:\/\/\S+ \d+\.\d+\.\d+\.\d+ \d{14} )/)) {
        const http = record.search(/HTTP\/1\.[01] \d{3}/);
        if (http === -1) continue;
        const headersEnd = record.indexOf('\r\n\r\n', http);
        if (headersEnd === -1 || !/content-type:\s*text\/html/i.test(record.slice(http, headersEnd))) continue;
        out.push({ name: `${name}#${k++}`, html: record.slice(headersEnd + 4) });
      }
      continue;
    }
    if (path.endsWith('.gz')) continue;
    const text = readFileSync(path, 'latin1');
    if (/\.html?$/i.test(path)) {
      out.push({ name, html: text });
      continue;
    }
    const re = /Content-Type:\s*text\/html[^\n]*\n(?:[ \t][^\n]*\n)*([\s\S]*?)(?:\r?\n\r?\n)([\s\S]*?)(?=\r?\n--[^\r\n]{4,}|$)/gi;
    let k = 0;
    for (const m of text.matchAll(re)) {
      const headers = m[1]!;
      let body = m[2]!;
      if (/quoted-printable/i.test(headers)) body = libqp.decode(body).toString('latin1');
      else if (/base64/i.test(headers)) {
        try {
          body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('latin1');
        } catch {
          continue;
        }
      }
      if (body.length > 0) out.push({ name: `${name}#${k++}`, html: body });
    }
    if (k === 0 && /<html|<body|<div|<p>/i.test(text)) out.push({ name: `${name}#raw`, html: text });
  }
  return out;
}
