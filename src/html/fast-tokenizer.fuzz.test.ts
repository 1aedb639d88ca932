/**
 * Differential fuzzing of the fast tokenizer (fast-tokenizer.ts) against parse5's tokenizer, both driving parse5's
 * tree builder: grammar-generated documents that mix every tokenizer state, fed whole, at every two-chunk split,
 * one unit at a time and in seeded random chunks; HTML pulled out of the mail corpus (../shared/corpus), whole and
 * in random chunks; and the rewriter's output with either tokenizer. Deterministic (seeded); `FUZZ_SEED=n` and
 * `FUZZ_SCALE=k` widen a run, `FUZZ_REPORT=1` logs every difference found instead of failing on the first.
 * (The harness is shared with fast-tokenizer.test.ts: test/helpers/tokenizer-harness.ts.)
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Token } from 'parse5';
import { randomChunks, seededRandom } from '../../test/helpers/chunks.ts';
import { corpusHtml } from '../../test/helpers/corpus-html.ts';
import { sharedPath } from '../../test/helpers/shared.ts';
import { comparable, driverEvents, eventDifference, rewriteWith } from '../../test/helpers/tokenizer-harness.ts';
import type { Rewritten } from '../../test/helpers/tokenizer-harness.ts';
import { FastTokenizerDriver } from './fast-tokenizer.ts';

const SEED = Number(process.env['FUZZ_SEED'] ?? 7151);
const SCALE = Number(process.env['FUZZ_SCALE'] ?? 4);
const REPORT = process.env['FUZZ_REPORT'] === '1';

/** The fast driver under test; `FUZZ_DRIVER=path` fuzzes a patched copy instead (to look past a known difference). */
let Fast: typeof FastTokenizerDriver = FastTokenizerDriver;
beforeAll(async () => {
  const path = process.env['FUZZ_DRIVER'];
  if (path !== undefined) Fast = ((await import(/* @vite-ignore */ path)) as { FastTokenizerDriver: typeof FastTokenizerDriver }).FastTokenizerDriver;
});

/** The first difference between the fast driver fed `chunks` and parse5 fed the whole input, or null. */
const difference = (chunks: readonly string[]): string | null => eventDifference(chunks, (h) => new Fast(h));

/**
 * The rewriter's output, references and warnings, less their lines and columns: parse5 miscounts lines after a
 * character reference followed by CR ("&\r"), and the fast tokenizer's are checked on their own (lineError).
 */
function rewriteDifference(chunks: readonly string[]): string | null {
  const noLines = (r: Rewritten): string => JSON.stringify({ ...r, warnings: r.warnings.map((w) => w.replace(/ \d*:\d*$/, '')) }, (k, v: unknown) => (k === 'line' || k === 'column' ? undefined : v));
  const a = noLines(rewriteWith([chunks.join('')], 'parse5'));
  const b = noLines(rewriteWith(chunks, 'fast'));
  if (a === b) return null;
  let i = 0;
  while (a[i] === b[i]) i++;
  return `rewrite differs at ${i}: fast …${b.slice(Math.max(0, i - 60), i + 60)}… | parse5 …${a.slice(Math.max(0, i - 60), i + 60)}…`;
}

/**
 * The first difference, text aside, between the fast driver's events for a handler that hears text throughout and
 * for one whose hearsText says false from its `heard`-th answer on (the driver then skips text the tree builder
 * ignores either way: classified), or null.
 */
function deafDifference(chunks: readonly string[], heard: number): string | null {
  const notText = (lines: readonly string[]): string[] => comparable(lines).filter((l) => l !== 'text');
  const all = notText(driverEvents(chunks, (h) => new Fast(h)).out);
  let asked = 0;
  const deaf = notText(driverEvents(chunks, (h) => new Fast({ ...h, hearsText: () => asked++ < heard })).out);
  const i = all.findIndex((l, k) => deaf[k] !== l);
  if (i === -1 && all.length === deaf.length) return null;
  const at = i === -1 ? all.length : i;
  return `deaf after ${heard}: event ${at} is ${deaf[at] ?? '(none)'}, want ${all[at] ?? '(none)'}`;
}

/** Collects differences: fails at the first unless FUZZ_REPORT=1 (then logs them, shortest first). */
class Findings {
  readonly found: Array<{ chunks: readonly string[]; what: string }> = [];
  checked = 0;
  constructor(private readonly diff: (chunks: readonly string[]) => string | null = difference) {}

  try(chunks: readonly string[]): boolean {
    this.checked++;
    const what = this.diff(chunks);
    if (what === null) return true;
    const { chunks: small, what: smallWhat } = minimize(chunks, this.diff);
    if (!REPORT) expect.fail(`${JSON.stringify(small)}\n${smallWhat}\n(found as ${JSON.stringify(chunks)})`);
    if (!this.found.some((f) => f.chunks.join('') === small.join(''))) this.found.push({ chunks: small, what: smallWhat });
    return false;
  }

  done(name: string): void {
    if (REPORT) console.log(`${name}: ${this.checked} runs`);
    if (REPORT && this.found.length > 0) {
      this.found.sort((a, b) => a.chunks.join('').length - b.chunks.join('').length);
      console.log(`${name}: ${this.found.length} differences in ${this.checked} runs\n${this.found.slice(0, 30).map((f) => `${JSON.stringify(f.chunks)}\n  ${f.what}`).join('\n')}`);
    }
    expect(this.found).toEqual([]);
  }
}

/** Greedy minimization: drop characters and merge chunks while some difference remains. */
function minimize(chunks: readonly string[], diff: (chunks: readonly string[]) => string | null): { chunks: readonly string[]; what: string } {
  let best = chunks.filter((c) => c.length > 0);
  let what = diff(best)!;
  let budget = 4000;
  for (let changed = true; changed && budget > 0; ) {
    changed = false;
    // Merge neighbouring chunks.
    for (let i = 0; i + 1 < best.length && budget > 0; i++) {
      const next = [...best.slice(0, i), best[i]! + best[i + 1]!, ...best.slice(i + 2)];
      budget--;
      const d = diff(next);
      if (d !== null) {
        best = next;
        what = d;
        changed = true;
        i--;
      }
    }
    // Drop runs of characters, longest first.
    for (const width of [64, 16, 4, 2, 1]) {
      for (let c = 0; c < best.length && budget > 0; c++) {
        for (let k = 0; k < best[c]!.length && budget > 0; ) {
          const piece = best[c]!.slice(0, k) + best[c]!.slice(k + width);
          const next = [...best.slice(0, c), piece, ...best.slice(c + 1)].filter((x) => x.length > 0);
          budget--;
          const d = next.length > 0 ? diff(next) : null;
          if (d !== null) {
            best = next;
            what = d;
            changed = true;
          } else k++;
        }
      }
    }
  }
  return { chunks: best, what };
}

// --- generators ------------------------------------------------------------------------------------------------

const NAMES = ['a', 'p', 'b', 'i', 'script', 'style', 'title', 'textarea', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'plaintext', 'svg', 'math', 'mi', 'mo', 'mtext', 'annotation-xml', 'foreignObject', 'desc', 'table', 'tr', 'td', 'tbody', 'caption', 'colgroup', 'col', 'select', 'option', 'optgroup', 'template', 'frameset', 'frame', 'html', 'head', 'body', 'pre', 'listing', 'img', 'br', 'form', 'input', 'font', 'base', 'link', 'meta', 'div', 'li', 'dd', 'h1', 'button', 'image', 'isindex', 'sarcasm'];
const REFS = ['&amp;', '&amp', '&lt', '&gt;', '&copy', '&copy;', '&notin;', '&notit;', '&not', '&noti', '&#0;', '&#x0;', '&#13;', '&#x0D;', '&#x0a;', '&#10;', '&#9;', '&#32;', '&#x20', '&#12;', '&#128;', '&#x80;', '&#x9F;', '&#xD800;', '&#x110000;', '&#99999999999;', '&#', '&#x', '&#x;', '&#;', '&Tab;', '&NewLine;', '&nbsp;', '&nbsp', '&NotNestedGreaterGreater;', '&x', '&', '&&', '&=', '&amp=', '&ampx', '&lt;=', '&#x41', '&#65a', '&AMP;', '&AMP', '&aacute', '&Aacute;', '&frac12', '&zwnj;'];
const WS = [' ', '\t', '\n', '\r', '\r\n', '\f', '\n\r', '\r\r'];
const ODD = ['\0', '\uD800', '\uDC00', '😀', '\uFFFD', '\u00A0', '\u000B', '\u0001', '\u007F', '\u0085', 'é', 'İ', 'K'];

function generator(random: () => number): () => string {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const chance = (p: number): boolean => random() < p;
  const upper = (s: string): string => (chance(0.2) ? s.toUpperCase() : chance(0.1) ? s.replace(/^./, (c) => c.toUpperCase()) : s);
  const ws = (): string => (chance(0.5) ? '' : pick(WS) + (chance(0.3) ? pick(WS) : ''));
  const word = (): string => pick(['x', 'y z', 'abc', '-', '--', '>', '/', '=', '"', "'", '<', '`', '?', '!', ']]>', ']', '<!', '</', ...ODD]);
  const text = (): string => {
    let t = '';
    for (let k = Math.floor(random() * 4); k >= 0; k--) t += pick([word, pick.bind(null, REFS), ws, ws, () => pick(ODD)])();
    return t;
  };
  const name = (): string => {
    let n = upper(pick(NAMES));
    if (chance(0.05)) n += pick(ODD);
    if (chance(0.05)) n = n.slice(0, Math.max(1, Math.floor(random() * n.length)));
    return n;
  };
  const attrName = (): string => pick(['href', 'src', 'HREF', 'title', 'id', 'class', 'xlink:href', 'XLINK:HREF', 'xmlns', 'xmlns:xlink', 'definitionURL', 'encoding', 'type', 'action', 'data', 'srcset', 'style', 'background', 'a"b', "a'b", 'a<b', '=', '=x', 'x\0', 'a/b', 'é', 'data-x', 'href\r', 'src']);
  const value = (): string => {
    let v = '';
    for (let k = Math.floor(random() * 3); k >= 0; k--) v += pick([() => pick(REFS), () => pick(['x', '/a/b?c=1', 'http://x/', ' ', '\r\n', '\r', '\0', '>', '<', '=', '`', '😀', '\uD800', 'text/html', 'application/xhtml+xml', 'hidden', '&amp;', '\'', '"'])])();
    return v;
  };
  const attr = (): string => {
    const n = attrName();
    switch (Math.floor(random() * 6)) {
      case 0:
        return n;
      case 1:
        return `${n}${ws()}=${ws()}"${value().replaceAll('"', '')}"`;
      case 2:
        return `${n}=${ws()}'${value().replaceAll("'", '')}'`;
      case 3:
        return `${n}=${value().replace(/[\s>]/g, '')}`;
      case 4:
        return `${n}=`;
      default:
        return `${n}${ws()}=${ws()}${chance(0.5) ? '"' : "'"}${value()}`; // possibly unterminated
    }
  };
  const tag = (end: boolean): string => {
    let t = `<${end ? '/' : ''}${name()}`;
    for (let k = Math.floor(random() * 4); k > 0; k--) t += (chance(0.85) ? pick([' ', '\n', '\r\n', '\t', '\r', '/', ' /']) : '') + attr();
    t += ws();
    if (chance(0.15)) t += '/';
    if (chance(0.92)) t += '>';
    return t;
  };
  const markup = (): string => {
    switch (Math.floor(random() * 24)) {
      case 0:
        return `<!--${text()}${pick(['-->', '--!>', '->', '--', '-', '', '<!--', '--!', '- ->', '<!-->'])}`;
      case 1:
        return pick(['<!-->', '<!--->', '<!---->', '<!--', '<!-', '<!', '<!---', '<!--!>', '<!----!>', '<!--->x-->']);
      case 2:
        return `<!${upper('doctype')}${ws()}${pick(['html', 'HTML', '', 'svg', '\0'])}${ws()}${pick(['', 'PUBLIC', 'SYSTEM', 'public"x"', 'system\'y\''])}${ws()}${pick(['', '"-//W3C//DTD HTML 4.01//EN"', "'x'", '"unterminated', '"a>b"'])}${ws()}${pick(['', '"http://x"', "'y'"])}${ws()}${pick(['>', '', 'junk>'])}`;
      case 3:
        return `<![CDATA[${text()}${pick([']]>', ']]', ']', '', ']]]>', '] ]>'])}`;
      case 4:
        return `<?${text()}${pick(['>', ''])}`;
      case 5:
        return `</${pick(['', ' ', '\0', '3', '>', '\n', '!', '?', '-', '😀'])}${text()}${pick(['>', ''])}`;
      case 6:
        return pick(['<', '<<', '< ', '<3', '<\0', '<😀', '</', '<!', '<?', '<>', '</>', '<a', '<a ', '<a b', '<a b=', '<a b="', '<a/', '<a b="c"', "<a b='c'", '<a b=c']);
      case 7:
      case 8: {
        // A raw-text element with end-tag lookalikes inside.
        const n = pick(['script', 'style', 'title', 'textarea', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript']);
        let body = '';
        for (let k = Math.floor(random() * 5); k >= 0; k--) {
          body += pick([
            text,
            () => `</${upper(n).slice(0, Math.floor(random() * (n.length + 1)))}${pick(['', 'x', ' ', '/', '>', '\0', '\r', '\t'])}`,
            () => pick(['<!--', '-->', '--', '-', '<script>', '<SCRIPT ', '<script/', '</script', '</script>', '<scripts>', '</scriptx>', '<!-- <script>', '<!--<script>', '--!>', '<!-->', '<!--->', '</>', '<', '</', '<</', '<!-<script>']),
            () => pick(REFS),
          ])();
        }
        const close = chance(0.85) ? `</${upper(n)}${pick(['>', ' >', '/>', '\t>', ' x="</' + n + '>">', '\r\n>', ''])}` : '';
        return `<${upper(n)}${chance(0.2) ? ` ${attr()}` : ''}>${body}${close}`;
      }
      case 9:
        return pick(['<svg>', '<math>', '<svg><foreignObject>', '<math><mi>', '<math><annotation-xml encoding="text/html">', '<math><annotation-xml encoding="TEXT/HTML">', '<svg><desc>', '<svg><title>', '</svg>', '</math>', '<svg><![CDATA[', '<math><mtext>', '<svg><font color=red>', '<svg><b>', '<svg><script>', '<svg><style>']);
      case 10:
        return pick(['<plaintext>', '<table>', '<template>', '</template>', '<select>', '<frameset>', '<noframes>', '<pre>\n', '<textarea>\r\n', '<listing>\r', '<table><tr>', '<caption>', '<colgroup>', '<option>', '<head>', '<body>', '<html>', '</html>', '</body>', '</head>', '<frame>', '</frameset>', '<image>', '<isindex>', '<form>', '</form>', '<input type=hidden>', '<p><table>', '<table><b><table>', '<table><a href=x><table>t', '<b><i><table>x', '</table>']);
      case 11:
      case 12:
        return text();
      case 13:
        return pick(REFS);
      default:
        return tag(chance(0.3));
    }
  };
  return () => {
    let html = '';
    for (let k = Math.floor(random() * 10); k >= 0; k--) html += markup();
    return html;
  };
}

/** Every split of `s` into two chunks. */
function splits(s: string): string[][] {
  const out: string[][] = [];
  for (let i = 1; i < s.length; i++) out.push([s.slice(0, i), s.slice(i)]);
  return out;
}

// --- the corpus --------------------------------------------------------------------------------------------------

/** Every file under `dir` below 8 MiB, in a stable order. */
// --- the tests -----------------------------------------------------------------------------------------------------

describe('fuzz: the fast tokenizer emits what parse5 emits', () => {
  it(`grammar documents: whole, every 2-chunk split, a unit at a time, random chunks (seed ${SEED})`, () => {
    const random = seededRandom(SEED);
    const next = generator(random);
    const f = new Findings();
    for (let n = 0; n < 1500 * SCALE; n++) {
      const html = next();
      if (!f.try([html])) continue;
      if (html.length <= 80) for (const s of splits(html)) if (!f.try(s)) break;
      if (html.length <= 300) f.try(Array.from(html, (_c, i) => html[i]!));
      f.try(randomChunks(html, random, 1 + Math.floor(random() * 6)));
    }
    f.done('grammar');
  }, 120_000);

  it(`prefix × grammar: each document after a context that changes tokenizer and tree modes (seed ${SEED})`, () => {
    const random = seededRandom(SEED + 1);
    const next = generator(random);
    const prefixes = ['<script>', '<style>', '<title>', '<textarea>', '<svg>', '<math>', '<table>', '<select>', '<template>', '<frameset>', '<!DOCTYPE html><html><head>', '<svg><foreignObject>', '<math><annotation-xml encoding="text/html">', '<noscript>', '<pre>', '<script><!--', '<script><!--<script>', '<p>\r', '<a href="'];
    const f = new Findings();
    for (let n = 0; n < 1200 * SCALE; n++) {
      const html = prefixes[Math.floor(random() * prefixes.length)]! + next();
      if (!f.try([html])) continue;
      if (html.length <= 60) for (const s of splits(html)) if (!f.try(s)) break;
      f.try(randomChunks(html, random, 1 + Math.floor(random() * 4)));
    }
    f.done('prefix');
  }, 120_000);

  it('HTML of the mail corpus, whole and in random chunks', () => {
    const docs = corpusHtml();
    if (REPORT) console.log(`corpus: ${docs.length} documents, ${docs.reduce((n, d) => n + d.html.length, 0)} characters`);
    expect(docs.length).toBeGreaterThan(20);
    const random = seededRandom(SEED + 2);
    const f = new Findings();
    for (const { html } of docs) {
      f.try([html]);
      f.try(randomChunks(html, random, 1 + Math.floor(random() * 64)));
      f.try(randomChunks(html, random, 1 + Math.floor(random() * 4096)));
    }
    f.done('corpus');
  }, 120_000);
  it(`short strings over a small alphabet, after each context: whole and at every split (seed ${SEED})`, () => {
    const random = seededRandom(SEED + 5);
    const alphabet = ['<', '/', '!', '-', '>', '?', 'a', 's', '&', '#', 'x', '3', '2', ';', '\r', '\n', ' ', '"', "'", '=', '[', ']', '\0', 'script', 'title', 'CDATA[', 'amp', 'lt', 'DOCTYPE', '\uD83D', '\uDE00'];
    const contexts = ['', '<script>', '<script><!--', '<script><!--<script>', '<title>', '<style>', '<svg>', '<math>', '<plaintext>', '<table>', '<pre>', '<frameset>', '<select>', '<template>'];
    const f = new Findings();
    for (let n = 0; n < 4000 * SCALE; n++) {
      let body = '';
      for (let k = 1 + Math.floor(random() * 10); k > 0; k--) body += alphabet[Math.floor(random() * alphabet.length)];
      const html = contexts[Math.floor(random() * contexts.length)]! + body;
      if (!f.try([html])) continue;
      if (!f.try(Array.from(html, (_c, i) => html[i]!))) continue;
      for (const s of splits(html)) if (!f.try(s)) break;
      // Every 3-chunk split of the short ones.
      if (html.length <= 16 && n % 4 === 0) {
        for (let i = 1; i < html.length; i++) for (let j = i + 1; j < html.length; j++) if (!f.try([html.slice(0, i), html.slice(i, j), html.slice(j)])) break;
      }
    }
    f.done('alphabet');
  }, 120_000);

  it(`text in every insertion mode, between misnested formatting elements and markers (the text tokens the fast tokenizer does not hand over: inertText), whole and at every split (seed ${SEED})`, () => {
    const random = seededRandom(SEED + 9);
    const pieces = [
      'x', ' ', '\n', '\r\n', '&#32;', '&nbsp;', '&Tab;', 'y z', '\0',
      '<b>', '</b>', '<i>', '</i>', '<a href=u>', '</a>', '<font color=red>', '<nobr>', '</nobr>', '<p>', '</p>', '<div>', '</div>',
      '<marquee>', '</marquee>', '<object>', '</object>', '<applet>', '<td>', '</td>', '<th>', '<tr>', '<table>', '</table>', '<caption>', '</caption>',
      '<colgroup>', '<template>', '</template>', '<svg>', '</svg>', '<math>', '<mi>', '<foreignObject>', '<pre>', '<textarea>', '</textarea>', '<listing>',
      '<frameset>', '</frameset>', '<frame>', '<noframes>', '</noframes>', '<head>', '</head>', '<body>', '</body>', '</html>', '<html>', '<script>', '</script>',
      '<title>', '</title>', '<select>', '<option>', '<!--c-->', '<!DOCTYPE html>', '<noscript>', '</noscript>', '<input type=hidden>', '<hr>', '<br>',
    ];
    const f = new Findings();
    for (let n = 0; n < 1500 * SCALE; n++) {
      let html = '';
      for (let k = 2 + Math.floor(random() * 12); k > 0; k--) html += pieces[Math.floor(random() * pieces.length)];
      if (!f.try([html])) continue;
      if (n % 8 === 0) for (const s of splits(html)) if (!f.try(s)) break;
      f.try(randomChunks(html, random, 1 + Math.floor(random() * 6)));
    }
    f.done('inert text');
  }, 120_000);

  it(`a handler that stops hearing text (hearsText) gets every other event as before: grammar documents after each context, and the mail corpus, whole and in random chunks (seed ${SEED})`, () => {
    const random = seededRandom(SEED + 11);
    const next = generator(random);
    const prefixes = ['', '<script>', '<title>', '<textarea>', '<svg>', '<math>', '<table>', '<select>', '<template>', '<frameset>', '<!DOCTYPE html><html><head>', '<pre>', '<p>\r', '<b><i>', '<a href=u><table><td>', '<html><body></body></html>', '<frameset></frameset></html>'];
    let heard = 0;
    const f = new Findings((chunks) => deafDifference(chunks, heard));
    for (let n = 0; n < 800 * SCALE; n++) {
      const html = prefixes[Math.floor(random() * prefixes.length)]! + next();
      heard = Math.floor(random() * 6);
      if (!f.try([html])) continue;
      f.try(randomChunks(html, random, 1 + Math.floor(random() * 6)));
    }
    for (const { html } of corpusHtml()) {
      heard = Math.floor(random() * 40);
      f.try([html]);
      f.try(randomChunks(html, random, 1 + Math.floor(random() * 4096)));
    }
    f.done('deaf');
  }, 120_000);

  it(`attribute values read only after the whole input (decoded when first read, from input dropped since) are those read at once (seed ${SEED})`, () => {
    const random = seededRandom(SEED + 10);
    const next = generator(random);
    /** Every tag's attributes as name=value, read at once (`late` false) or after the last write. */
    const values = (chunks: readonly string[], late: boolean): string[] => {
      const lists: Token.Attribute[][] = [];
      const out: string[] = [];
      const tag = (t: Token.TagToken): void => {
        if (late) lists.push(t.attrs);
        else out.push(t.attrs.map((a) => `${a.name}=${JSON.stringify(a.value)}`).join(' '));
      };
      const driver = new Fast({ onStartTag: tag, onEndTag: tag, onText() {}, onComment() {}, onDoctype() {}, onEof() {} });
      for (const chunk of chunks) driver.write(chunk, false);
      driver.write('', true);
      return late ? lists.map((attrs) => attrs.map((a) => `${a.name}=${JSON.stringify(a.value)}`).join(' ')) : out;
    };
    const fillers = ['x', ' ', '\n', '\r\n', '&amp;'];
    let checked = 0;
    for (let n = 0; n < 40 * SCALE; n++) {
      let html = '';
      while (html.length < (n % 2 === 0 ? 2000 : 150_000)) {
        const piece = next();
        if (/plaintext/i.test(piece)) continue;
        html += `${piece}-->"'>]]></script></style></title></textarea></xmp></iframe></noembed></noframes>-->`;
        html += `<a href="&amp;${n}\r\n&#0;\0" title=&lt;t&gt; class='c&quot;'></a x="&amp;"><b id=b&#x41;>`;
        if (random() < 0.2) html += fillers[Math.floor(random() * fillers.length)]!.repeat(Math.floor(random() * 20_000));
      }
      const chunks = randomChunks(html, random, 1 + Math.floor(random() * 9000));
      expect(values(chunks, true)).toEqual(values(chunks, false));
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  }, 120_000);

  it(`long documents across the 64 KiB buffer drop: generated markup between long runs, in random chunks (seed ${SEED})`, () => {
    const random = seededRandom(SEED + 6);
    const next = generator(random);
    const fillers = ['x', ' ', '\n', '\r\n', '\r', 'ab cd ', '&amp;', '-'];
    const f = new Findings();
    for (let n = 0; n < 12 * SCALE; n++) {
      let html = '';
      while (html.length < 200_000) {
        // Generated markup, then what closes whatever it left open (but <plaintext>), so the rest is tokenized too.
        const piece = next();
        if (/plaintext/i.test(piece)) continue;
        html += `${piece}-->"'>]]></script></style></title></textarea></xmp></iframe></noembed></noframes>-->`;
        if (random() < 0.3) html += fillers[Math.floor(random() * fillers.length)]!.repeat(Math.floor(random() * 20_000));
      }
      if (!f.try([html])) continue;
      f.try(randomChunks(html, random, 1 + Math.floor(random() * 9000)));
      f.try(randomChunks(html, random, 1 + Math.floor(random() * 70_000)));
    }
    f.done('long');
  }, 120_000);

  it(`attribute values and names over a small alphabet (references, NUL, CR, quotes), and tags with 60 to 80 attributes (seed ${SEED})`, () => {
    const random = seededRandom(SEED + 7);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const alphabet = ['&', '#', 'x', 'X', '4', '1', '0', ';', '=', 'amp', 'AMP', 'not', 'in', 'lt', 'nbsp', 'a', 'Z', '\0', '\r', '\n', '\r\n', ' ', '"', "'", '<', '>', '/', '`', '\uD800'];
    const opens = ['<a href="', "<a href='", '<a href=', '<a title="', '<img src=', '<svg><a xlink:href="', '<a ', '<a href ', '<a/', '<a =', '<A HREF = '];
    const closes = ['">', "'>", '>', ' >', '/>', '', '"', "'"];
    const f = new Findings();
    for (let n = 0; n < 6000 * SCALE; n++) {
      let body = '';
      for (let k = 1 + Math.floor(random() * 8); k > 0; k--) body += pick(alphabet);
      const html = `${pick(opens)}${body}${pick(closes)}${random() < 0.5 ? 'x' : ''}`;
      if (!f.try([html])) continue;
      for (const s of splits(html)) if (!f.try(s)) break;
    }
    const names = ['href', 'src', 'a', 'b', 'c', 'HREF', 'Src', 'x\0', 'title', 'data', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'y', 'z'];
    for (let n = 0; n < 300 * SCALE; n++) {
      let html = `<${pick(['a', 'img', 'b', 'svg', 'td', 'html', 'body'])}`;
      for (let k = 60 + Math.floor(random() * 21); k > 0; k--) html += ` ${pick(names)}${random() < 0.5 ? '' : `${k}`}=${random() < 0.7 ? `"v${k}"` : `'&amp;${k}'`}`;
      html += random() < 0.5 ? ` href=last src="last" ${pick(names)}=dup>` : '>';
      f.try([html]);
      f.try(randomChunks(html, random, 1 + Math.floor(random() * 40)));
    }
    f.done('attributes');
  }, 120_000);

  it('html5lib-tests tree-construction inputs after foreign, table, template and CDATA contexts, in random chunks', () => {
    const dir = sharedPath('conformance/html5lib-tests/tree-construction/');
    expect(existsSync(dir), `${dir} (../shared beside the clone)`).toBe(true);
    const random = seededRandom(SEED + 8);
    const contexts = ['<svg>', '<math>', '<svg><![CDATA[', '<math><mi>', '<svg><foreignObject>', '<table>', '<template>', '<select>', '<frameset>', '<svg><![CDATA[&#32;]]>', '<!--', '<textarea>', '\r'];
    const f = new Findings();
    for (const file of readdirSync(dir).filter((x) => x.endsWith('.dat')).sort()) {
      const text = readFileSync(dir + file, 'utf8');
      for (const m of text.matchAll(/(?:^|\n)#data\n([\s\S]*?)\n#(?:errors|new-errors|document-fragment|script-off|script-on|document)/g)) {
        const html = contexts[Math.floor(random() * contexts.length)]! + m[1]!;
        if (!f.try([html])) continue;
        f.try(randomChunks(html, random, 1 + Math.floor(random() * 5)));
      }
    }
    expect(f.checked).toBeGreaterThan(1000);
    f.done('tree-construction in contexts');
  }, 120_000);

  it('the differences found by this fuzzer, minimized', () => {
    const f = new Findings();
    // A character reference in a CDATA section is text, not whitespace: "&#32;" there is five characters.
    for (const html of ['<svg><![CDATA[&#32;]]></svg><frameset>', '<svg><![CDATA[&#32', '<math><![CDATA[&Tab;&NewLine;]]></math><frameset>', '<svg><![CDATA[\0&#9;\0]]>']) {
      f.try([html]);
      for (const s of splits(html)) f.try(s);
    }
    // A start tag without attributes is ignored (<html> in the body) after a formatting element was reconstructed
    // for the table text before it: both tokens' empty attribute lists were one shared array.
    for (const html of ['<table><b><table>t<html>', '<table><i><table>x<head>', '<table><a><table> y<body>', '<table><b><table>t<frameset>']) {
      f.try([html]);
      for (const s of splits(html)) f.try(s);
    }
    f.done('found');
    const g = new Findings(rewriteDifference);
    g.try(['<svg><![CDATA[&#32;]]></svg><frameset><style>@import "a.css";</style>']);
    g.done('found (rewriter)');
  });

  it('pieces of the mail corpus, mutated with generated markup, whole and in random chunks', () => {
    const docs = corpusHtml();
    const random = seededRandom(SEED + 4);
    const pick = (n: number): number => Math.floor(random() * n);
    const next = generator(random);
    const f = new Findings();
    for (let n = 0; n < 300 * SCALE; n++) {
      const page = docs[pick(docs.length)]!.html;
      const start = pick(Math.max(1, page.length - 2000));
      let html = page.slice(start, start + 200 + pick(1800));
      for (let m = 1 + pick(8); m > 0; m--) {
        const at = pick(html.length + 1);
        const what = pick(3);
        if (what === 0) html = html.slice(0, at) + next() + html.slice(at);
        else if (what === 1) html = html.slice(0, at) + html.slice(at + pick(40));
        else html = html.slice(0, at) + html.slice(at, at + pick(60)) + html.slice(at);
      }
      if (!f.try([html])) continue;
      f.try(randomChunks(html, random, 1 + pick(8)));
      f.try(randomChunks(html, random, 1 + pick(300)));
    }
    f.done('mutated');
  }, 120_000);
});

describe('fuzz: the rewriter writes the same with either tokenizer', () => {
  it('the mail corpus and grammar documents, whole and in random chunks', () => {
    const random = seededRandom(SEED + 3);
    const f = new Findings(rewriteDifference);
    for (const { html } of corpusHtml()) {
      f.try([html]);
      f.try(randomChunks(html, random, 1 + Math.floor(random() * 512)));
    }
    const next = generator(random);
    for (let n = 0; n < 800 * SCALE; n++) {
      const html = next();
      f.try([html]);
      f.try(randomChunks(html, random, 1 + Math.floor(random() * 6)));
    }
    f.done('rewrite');
  }, 120_000);
});
