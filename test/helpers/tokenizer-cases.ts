/**
 * Inputs that move an HTML tokenizer through its edge cases (CR and CRLF, surrogates, NUL, references, comments,
 * script escapes, raw text, foreign content, EOF inside every construct), and long ones that cross a 64 KiB
 * buffer drop: shared by the tests of the fast runs (src/html/tokenizer-driver.test.ts) and of the fast
 * tokenizer (src/html/fast-tokenizer.test.ts).
 */

/** A parse5 source location. */
export interface Location {
  startLine: number;
  startCol: number;
  startOffset: number;
  endLine: number;
  endCol: number;
  endOffset: number;
}

export const EDGES: Record<string, string> = {
  'CR, CRLF and LF in text, attributes and comments':
    'a\r\nb\rc\n\r\nd\n<a href="x\r\ny\n" title=\'p\rq\r\n\'>t\r</a><!-- c\r\nd\re\n -->\n\r\n<p\r\nid=x>',
  'a line feed last before a delimiter': 'text\n<b>x\n\n</b><i title="a\n">\n\n\n&amp;\n',
  'surrogate pairs and lone surrogates': '😀 text 😀😀<img src="😀/a😀" alt=\'😀\'>\uD800x\uDC00y\uD83D<p title="\uDC00z">😀\n😀',
  'NUL in text, attributes, names, comments, script and style': 'a\0b<p title="x\0y" alt=\'\0\' d\0ata=1 x=a\0b>\0<!-- \0 --><scr\0ipt>a\0b</script><style>c\0d</style><P\0>',
  'character references': '&amp; &copy x&#x41;y &nope; <a href="a?b=1&amp;c=2&copy=3&lt" title=\'&lt;&#60;&#0;\'>&gt;</a><title>&amp;x</title><textarea>a&lt;b\n</textarea>',
  'references that decode to whitespace, in head': '<html><head>&#32;&Tab;&NewLine;&#x0a;<title>x</title></head>&#32;<frameset></frameset>',
  'a reference to a carriage return is not whitespace': '<head>&#13;<frameset>',
  'comments with dashes and bangs': '<!-- a -- b --!> <!---><!----><!-- <!-- x --> <!--a-b-c-->text<!--a--!-->b<!--<!-->c',
  'bogus comments': '<?xml version="1.0"?><!x><!><![CDATA[ in html ]]></ 3 ></>x</\n>',
  'script with escapes': '<script>if (a < b) { x = "<!-- <script> </script> -->"; }</script><script><!-- a\n --></script>after<script><!--<script></script>--></script>z',
  'script double escapes': '<script><!--<SCRIPT>x</script>y--></script><script><!--<scripts></script>q<script><!--<script/></script >--!></script>',
  'script end tag lookalikes': '<script>a</scrip></scriptx></script\0></Script\t>b<script>c</SCRIPT/>d<script>e</script x="</script>">f',
  'style, xmp, iframe, noembed, noframes': '<style>a { background: url(x.png) }\n</style><xmp><b>x</b></xmp><iframe><p>y</iframe><noembed>z</noembed><noframes>w</noframes>',
  'foreign content and CDATA': '<svg><style>.a{fill:url(#g)}</style><a xlink:href="x">t</a><![CDATA[ <b> ]]><foreignObject><p title="q">w</p><![CDATA[x]]></foreignObject></svg><math><mi>x</mi><annotation-xml encoding="text/html"><p>y</p></annotation-xml></math>',
  'whitespace then text, then whitespace': '<head>   \n\t\f  <title>t</title>  \n x  y \n </head>\n<body>  \n</body>',
  'pre, listing and textarea newlines': '<pre>\r\n<b>x</b></pre><listing>\n\ny</listing><textarea>\r\nz</textarea><pre>\r</pre>',
  'tables and text': '<table> <tr> x <td> y </td> &#32; </tr><b>z</b></table><table>&#10;<tr></table>',
  'attributes: duplicates, odd names and values': '<a href=x href=y HREF="z" =a "b=1 <c=2 d e= f g=h=i j=\'k\'l m="n"/o/>p<a / href = "q" / >',
  'uppercase tag and attribute names': '<DIV CLASS="a" Data-X=1><A HREF="b">c</A></DIV><SVG VIEWBOX="0 0 1 1"><FOREIGNOBJECT/></SVG>',
  'unterminated tag at EOF': '<p>text<a href="abc\ndef',
  'unterminated comment at EOF': '<p>x<!-- never closed',
  'unterminated bogus comment at EOF': '<p>x<?never closed',
  'unterminated doctype at EOF': '<!DOCTYPE html PUBLIC "-//W3C//DTD',
  'lone < and </ at EOF': 'a<',
  'lone </ at EOF': 'b</',
  'doctypes': '<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01//EN" "http://www.w3.org/TR/html4/strict.dtd"><!doctype x><!DOCTYPE>',
  'quirks doctype and a table after p': '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN"><p><table><tr><td><svg><desc><style>a</style></desc></svg>',
  'plaintext': '<p>x</p><plaintext>a<b>c&amp;\r\nd\0e',
  'rcdata end tag lookalikes': '<title>a</titl b</title x></title><textarea>1</textare</textarea>',
  'template and select': '<template><base href="/x/"><style>a</style></template><select><option><style>b</style><svg><a>c</a></svg></select>',
  // Found by src/html/fast-tokenizer.fuzz.test.ts: a reference in CDATA is literal text, not whitespace.
  'a reference in CDATA is not decoded': '<svg><![CDATA[&#32;]]></svg><frameset><style>@import "a.css";</style>',
  // Found by the fuzz test: an ignored <html> after table text and a reconstructed formatting element.
  'start tags without attributes after formatting reconstruction': '<table><b><table>t<html><p><b><table>u<body><i>',
  'frameset documents': '<frameset><noframes><a href="x">y</a></noframes><style>z</style></frameset><noframes>w</noframes>',
};

export const LONG: Record<string, string> = {
  whitespaceAcrossWaterline: `<p>${' '.repeat(70_000)}\n  text after <b>x</b>${'\n'.repeat(70_000)}y<i>`,
  longAttribute: `<a href="${'x/'.repeat(40_000)}\n${'y'.repeat(40_000)}" title='${'t '.repeat(40_000)}'>z</a>`,
  longComment: `<!--${'- -\n'.repeat(30_000)}-->after`,
  longScript: `<script>${'if (a < b) x++; <!-- y--\n'.repeat(10_000)}</script>`,
  longCrlfText: `<p>${'word\r\n'.repeat(30_000)}</p>\r\n<a href=x>`,
  oneLongLineThenBreaks: `${'<a href=x title="t">y</a>'.repeat(8_000)}\r<b>\r\n<i>\n${'<img src=z>'.repeat(8_000)}\r`,
};
