// Evaluated inside Chromium by test/helpers/chromium.ts (read as text, so it is plain JavaScript and is not
// type-checked). Must be one self-contained function expression: no imports, no outer references.
//
// Walks the document (plus iframe srcdoc documents and <template> contents, recursively) and returns one
// record per URL-bearing attribute / URL candidate / CSS url(), with what the browser resolves it to.
//
// Truth, in order of preference:
//   'idl'      a reflected IDL attribute that resolves (a.href, img.src, form.action, object.data, ...)
//   'computed' getComputedStyle (style="" and SVG presentation attributes): Chromium's absolute url()
//   'sheet'    CSSImportRule.styleSheet.href
//   'anchor'   a helper <a> created in the SAME document: setAttribute('href', raw); a.href
//              (document base URL + document encoding, exactly like the browser)
//   'local'    Blink's fragment-only / same-document rule for SVG resource references and CSS url(#id)
//   'empty'    an empty fetching attribute (img src="", iframe src="" …): no URL, must stay empty
//   'verbatim' values that are not URLs to resolve (usemap, itemtype, itemprop, xmlns, xml:base, prefix):
//              the rewriter must leave them alone, so "resolved" is the raw value.
// Absent attributes are not references and are not recorded (e.g. <form> without action).
(() => {
  const NS = {
    html: 'http://www.w3.org/1999/xhtml',
    svg: 'http://www.w3.org/2000/svg',
    math: 'http://www.w3.org/1998/Math/MathML',
  };
  const WS = /[\t\n\f\r ]/;
  const out = [];

  // ---- rule tables -------------------------------------------------------------------------------------
  // kind: idl:<prop> | url | srcset | spaces | commas | verbatim | optional-url
  const cite = { cite: 'idl:cite' };
  const tableBg = { background: 'url' };
  const HTML = {
    a: { href: 'idl:href', ping: 'spaces' },
    area: { href: 'idl:href', ping: 'spaces' },
    link: { href: 'idl:href', imagesrcset: 'srcset' },
    base: { href: 'idl:href' },
    img: {
      src: 'idl:src',
      srcset: 'srcset',
      lowsrc: 'idl:lowsrc',
      dynsrc: 'url',
      longdesc: 'idl:longDesc',
      usemap: 'verbatim',
      href: 'url',
    },
    audio: { src: 'idl:src' },
    video: { src: 'idl:src', poster: 'idl:poster' },
    embed: { src: 'idl:src', pluginspage: 'url', pluginurl: 'url', href: 'url' },
    iframe: { src: 'idl:src', longdesc: 'idl:longDesc' },
    frame: { src: 'idl:src', longdesc: 'idl:longDesc' },
    input: { src: 'idl:src', formaction: 'idl:formAction', usemap: 'verbatim' },
    button: { formaction: 'idl:formAction' },
    script: { src: 'idl:src' },
    source: { src: 'idl:src', srcset: 'srcset' },
    track: { src: 'idl:src' },
    form: { action: 'idl:action' },
    blockquote: cite,
    del: cite,
    ins: cite,
    q: cite,
    object: {
      data: 'idl:data',
      codebase: 'idl:codeBase',
      classid: 'url',
      archive: 'spaces',
      usemap: 'verbatim',
    },
    // No browser runs applets: the truth is HTML 4 §13.4 — code, object and archive are relative to codebase,
    // itself relative to the document base.
    applet: { codebase: 'url', code: 'applet-url', object: 'applet-url', archive: 'applet-commas' },
    body: { background: 'url' },
    table: tableBg,
    thead: tableBg,
    tbody: tableBg,
    tfoot: tableBg,
    tr: tableBg,
    td: tableBg,
    th: tableBg,
    bgsound: { src: 'url' },
    layer: { src: 'url' },
    ilayer: { src: 'url' },
    fig: { src: 'url' },
    overlay: { src: 'url' },
    head: { profile: 'spaces' },
    html: { manifest: 'url' },
    command: { icon: 'url' },
    menuitem: { icon: 'url' },
    isindex: { action: 'url' },
  };
  // On every HTML element (microdata, RDFa, lazy-load conventions, IE data binding).
  const HTML_GLOBAL = {
    itemid: 'url',
    itemtype: 'verbatim',
    itemprop: 'verbatim',
    about: 'url',
    resource: 'url',
    vocab: 'url',
    prefix: 'verbatim',
    datasrc: 'url',
    'data-src': 'url',
    'data-srcset': 'srcset',
    'data-original': 'url',
    'data-lazy-src': 'url',
    'data-lazy-srcset': 'srcset',
    // RDFa allows href/src on any element; elements with their own rule above take precedence.
    href: 'url',
    src: 'url',
  };
  // SVG elements whose href is a *resource reference*: Blink treats "#id" (and any URL equal to the
  // document URL apart from the fragment) as a same-document element reference.
  const SVG_RESOURCE_REF = new Set([
    'use', 'pattern', 'lineargradient', 'radialgradient', 'filter', 'textpath', 'mpath', 'animate', 'set',
    'animatemotion', 'animatetransform', 'animatecolor', 'tref', 'feimage', 'altglyph', 'glyphref',
  ]);
  const SVG_PRESENTATION = [
    'fill', 'stroke', 'clip-path', 'mask', 'filter', 'marker-start', 'marker-mid', 'marker-end', 'cursor',
  ];
  const OPTIONAL_META = /^(og:image(:url|:secure_url)?|og:url|og:audio|og:video|twitter:image(:src)?|msapplication-.*)$/i;

  // ---- helpers -----------------------------------------------------------------------------------------
  const anchors = new Map();
  function anchor(doc, raw) {
    let a = anchors.get(doc);
    if (a === undefined) {
      a = doc.createElementNS(NS.html, 'a');
      anchors.set(doc, a);
    }
    a.setAttribute('href', raw);
    return a.href;
  }
  function stripFragment(u) {
    const i = u.indexOf('#');
    return i === -1 ? u : u.slice(0, i);
  }
  function localOrAbsolute(doc, raw) {
    if (raw.startsWith('#')) return 'local:' + raw;
    const abs = anchor(doc, raw);
    if (stripFragment(abs) === stripFragment(doc.URL)) {
      const i = abs.indexOf('#');
      return 'local:' + (i === -1 ? '' : abs.slice(i));
    }
    return abs;
  }
  function splitSpaces(s) {
    return s.split(/[\t\n\f\r ]+/).filter((t) => t !== '');
  }
  // HTML "parse a srcset attribute": URL = run of non-whitespace (trailing commas stripped), then descriptors.
  function parseSrcset(input) {
    const cands = [];
    let pos = 0;
    const n = input.length;
    for (;;) {
      while (pos < n && (WS.test(input[pos]) || input[pos] === ',')) pos++;
      if (pos >= n) return cands;
      const start = pos;
      while (pos < n && !WS.test(input[pos])) pos++;
      let url = input.slice(start, pos);
      const descriptors = [];
      if (url.endsWith(',')) {
        url = url.replace(/,+$/, '');
      } else {
        let state = 'in';
        let cur = '';
        for (;;) {
          const c = pos < n ? input[pos] : undefined;
          if (state === 'in') {
            if (c !== undefined && WS.test(c)) {
              if (cur !== '') {
                descriptors.push(cur);
                cur = '';
                state = 'after';
              }
            } else if (c === ',') {
              pos++;
              if (cur !== '') descriptors.push(cur);
              break;
            } else if (c === '(') {
              cur += c;
              state = 'paren';
            } else if (c === undefined) {
              if (cur !== '') descriptors.push(cur);
              break;
            } else cur += c;
          } else if (state === 'paren') {
            if (c === ')') {
              cur += c;
              state = 'in';
            } else if (c === undefined) {
              descriptors.push(cur);
              break;
            } else cur += c;
          } else if (c === undefined) {
            break;
          } else if (!WS.test(c)) {
            state = 'in';
            pos--;
          }
          pos++;
        }
      }
      cands.push({ url, descriptors: descriptors.join(' ') });
    }
  }
  // HTML "shared declarative refresh steps" → the URL string, or null when the content has no URL.
  function parseRefresh(input) {
    let pos = 0;
    const n = input.length;
    const skipWs = () => {
      while (pos < n && WS.test(input[pos])) pos++;
    };
    skipWs();
    const digitsStart = pos;
    while (pos < n && input[pos] >= '0' && input[pos] <= '9') pos++;
    if (pos === digitsStart && input[pos] !== '.') return null;
    while (pos < n && ((input[pos] >= '0' && input[pos] <= '9') || input[pos] === '.')) pos++;
    if (pos >= n) return null;
    if (!(input[pos] === ';' || input[pos] === ',' || WS.test(input[pos]))) return null;
    skipWs();
    if (input[pos] === ';' || input[pos] === ',') pos++;
    skipWs();
    if (pos >= n) return null;
    // Chromium (unlike the spec's "jump to skip quotes" from the advanced position) falls back to the
    // whole remainder when "URL" is not followed by "=": content="0;URLx=i.html" navigates to "URLx=i.html".
    const remainder = pos;
    let urlString;
    skipQuotes: {
      const fail = () => {
        pos = remainder;
      };
      if (input[pos] === 'U' || input[pos] === 'u') pos++;
      else break skipQuotes;
      if (input[pos] === 'R' || input[pos] === 'r') pos++;
      else {
        fail();
        break skipQuotes;
      }
      if (input[pos] === 'L' || input[pos] === 'l') pos++;
      else {
        fail();
        break skipQuotes;
      }
      skipWs();
      if (input[pos] === '=') pos++;
      else {
        fail();
        break skipQuotes;
      }
      skipWs();
    }
    let quote = '';
    if (input[pos] === '"' || input[pos] === "'") {
      quote = input[pos];
      pos++;
    }
    urlString = input.slice(pos);
    if (quote !== '') {
      const q = urlString.indexOf(quote);
      if (q !== -1) urlString = urlString.slice(0, q);
    }
    return urlString;
  }
  // Chromium serializes CSS URLs as url("...") with \-escapes; specified values keep the raw string.
  function cssUrls(value) {
    const urls = [];
    const re = /url\(\s*"((?:[^"\\]|\\[\s\S])*)"\s*\)/g;
    let m;
    while ((m = re.exec(value)) !== null) urls.push(m[1].replace(/\\([\s\S])/g, '$1'));
    return urls;
  }
  function elementPath(el, root) {
    const parts = [];
    let node = el;
    while (node !== null && node !== root && node.nodeType === 1) {
      let i = 0;
      for (let s = node.previousElementSibling; s !== null; s = s.previousElementSibling) i++;
      parts.unshift(node.localName + '[' + i + ']');
      node = node.parentNode;
    }
    return parts.join('/');
  }
  function push(prefix, el, root, attribute, index, raw, resolved, via, extra) {
    const path = elementPath(el, root);
    const rec = {
      id: prefix + path + '@' + attribute + (index === null ? '' : '#' + index),
      element: el.localName,
      attribute,
      raw,
      resolved,
      via,
    };
    if (extra) Object.assign(rec, extra);
    out.push(rec);
  }

  // ---- CSS ---------------------------------------------------------------------------------------------
  function cssDeclarationUrls(doc, style, emit) {
    for (let i = 0; i < style.length; i++) {
      const name = style.item(i);
      const urls = cssUrls(style.getPropertyValue(name));
      urls.forEach((u, k) => emit(name, k, u, u.startsWith('#') ? 'local:' + u : anchor(doc, u), u.startsWith('#') ? 'local' : 'anchor'));
    }
  }
  function walkRules(doc, rules, prefix, el, root, rulePath) {
    for (let r = 0; r < rules.length; r++) {
      const rule = rules[r];
      const rp = rulePath + '/' + r;
      if (rule.type === 3 /* IMPORT */) {
        const sheetHref = rule.styleSheet ? rule.styleSheet.href : null;
        push(prefix, el, root, 'sheet' + rp + '/@import', null, rule.href, sheetHref ?? anchor(doc, rule.href), sheetHref ? 'sheet' : 'anchor');
        continue;
      }
      if (rule.type === 10 /* NAMESPACE */) {
        push(prefix, el, root, 'sheet' + rp + '/@namespace', null, rule.namespaceURI, rule.namespaceURI, 'verbatim');
        continue;
      }
      if (rule.style) {
        cssDeclarationUrls(doc, rule.style, (name, k, raw, resolved, via) =>
          push(prefix, el, root, 'sheet' + rp + '/' + name, k, raw, resolved, via),
        );
      }
      if (rule.cssRules) walkRules(doc, rule.cssRules, prefix, el, root, rp);
    }
  }

  // ---- per element -------------------------------------------------------------------------------------
  // Fetching attributes ("valid non-empty URL"): an empty value means "no URL, no fetch" (img src=""
  // stays empty, iframe src="" is about:blank), although the IDL getter returns the document/base URL.
  const FETCH_ATTRS = new Set([
    'img src', 'iframe src', 'frame src', 'script src', 'link href', 'audio src', 'video src', 'source src',
    'track src', 'embed src', 'object data', 'video poster', 'input src',
  ]);
  function handleAttr(doc, el, prefix, root, name, raw, kind, inTemplate) {
    if (el.namespaceURI === NS.html && FETCH_ATTRS.has(el.localName + ' ' + name) && raw.trim() === '') {
      push(prefix, el, root, name, null, raw, 'empty', 'empty', { anchor: anchor(doc, raw) });
      return;
    }
    if (kind.startsWith('idl:')) {
      const prop = kind.slice(4);
      const v = inTemplate ? undefined : el[prop];
      if (typeof v === 'string') push(prefix, el, root, name, null, raw, v, 'idl', { anchor: anchor(doc, raw) });
      else push(prefix, el, root, name, null, raw, anchor(doc, raw), 'anchor');
    } else if (kind === 'url') {
      push(prefix, el, root, name, null, raw, anchor(doc, raw), 'anchor');
    } else if (kind === 'optional-url') {
      push(prefix, el, root, name, null, raw, anchor(doc, raw), 'anchor', { optional: true });
    } else if (kind === 'verbatim') {
      push(prefix, el, root, name, null, raw, raw, 'verbatim');
    } else if (kind === 'srcset') {
      parseSrcset(raw).forEach((c, i) =>
        push(prefix, el, root, name, i, c.url + (c.descriptors ? ' ' + c.descriptors : ''), anchor(doc, c.url), 'anchor', {
          descriptors: c.descriptors,
        }),
      );
    } else if (kind === 'spaces') {
      splitSpaces(raw).forEach((t, i) => push(prefix, el, root, name, i, t, anchor(doc, t), 'anchor'));
    } else if (kind === 'commas') {
      raw
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '')
        .forEach((t, i) => push(prefix, el, root, name, i, t, anchor(doc, t), 'anchor'));
    } else if (kind === 'applet-url' || kind === 'applet-commas') {
      const codebase = el.getAttribute('codebase');
      const base = codebase === null ? doc.baseURI : anchor(doc, codebase);
      const against = (t) => {
        try {
          return new URL(t, base).href;
        } catch {
          return null;
        }
      };
      if (kind === 'applet-url') push(prefix, el, root, name, null, raw, against(raw.trim()), 'html4-codebase');
      else
        raw
          .split(',')
          .map((t) => t.trim())
          .filter((t) => t !== '')
          .forEach((t, i) => push(prefix, el, root, name, i, t, against(t), 'html4-codebase'));
    } else if (kind === 'svg-ref') {
      const r = localOrAbsolute(doc, raw);
      push(prefix, el, root, name, null, raw, r, r.startsWith('local:') ? 'local' : 'anchor');
    }
  }

  function visitElement(doc, el, prefix, root, inTemplate) {
    const ns = el.namespaceURI;
    const ln = el.localName;
    for (const attr of Array.from(el.attributes)) {
      const name = attr.name; // qualified: "xlink:href", "xml:base", "xmlns:xlink"
      const raw = attr.value;
      if (name === 'xmlns' || name.startsWith('xmlns:') || name === 'xml:base') {
        handleAttr(doc, el, prefix, root, name, raw, 'verbatim', inTemplate);
        continue;
      }
      if (name === 'style') {
        if (inTemplate) continue;
        const view = doc.defaultView;
        const computed = view ? view.getComputedStyle(el) : null;
        const style = el.style;
        for (let i = 0; i < style.length; i++) {
          const prop = style.item(i);
          const specified = cssUrls(style.getPropertyValue(prop));
          if (specified.length === 0) continue;
          const fromComputed = computed ? cssUrls(computed.getPropertyValue(prop)) : [];
          specified.forEach((u, k) => {
            let resolved;
            let via;
            if (u.startsWith('#')) {
              resolved = 'local:' + u;
              via = 'local';
            } else if (fromComputed.length === specified.length) {
              resolved = fromComputed[k];
              via = 'computed';
            } else {
              resolved = anchor(doc, u);
              via = 'anchor';
            }
            push(prefix, el, root, 'style/' + prop, k, u, resolved, via, { anchor: anchor(doc, u) });
          });
        }
        continue;
      }
      let kind;
      if (ns === NS.html) {
        const rules = HTML[ln];
        kind = rules !== undefined && Object.prototype.hasOwnProperty.call(rules, name) ? rules[name] : undefined;
        if (kind === undefined && Object.prototype.hasOwnProperty.call(HTML_GLOBAL, name)) kind = HTML_GLOBAL[name];
        if (ln === 'meta' && name === 'content') {
          const equiv = (el.getAttribute('http-equiv') || '').trim().toLowerCase();
          const prop = (el.getAttribute('property') || el.getAttribute('name') || '').trim();
          if (equiv === 'refresh') {
            const u = parseRefresh(raw);
            if (u !== null) push(prefix, el, root, 'content', null, u, anchor(doc, u), 'anchor', { content: raw });
            continue;
          }
          if (OPTIONAL_META.test(prop)) kind = 'optional-url';
        }
        if (ln === 'param' && name === 'value') {
          kind = (el.getAttribute('valuetype') || '').toLowerCase() === 'ref' ? 'url' : undefined;
        }
        if (ln === 'iframe' && name === 'srcdoc') continue; // handled by descend()
      } else if (ns === NS.svg) {
        if (name === 'href' || name === 'xlink:href') {
          kind = SVG_RESOURCE_REF.has(ln.toLowerCase()) ? 'svg-ref' : 'url';
        } else if (SVG_PRESENTATION.includes(name)) {
          if (inTemplate) continue;
          const view = doc.defaultView;
          const computedValue = view ? view.getComputedStyle(el).getPropertyValue(name) : '';
          const fromComputed = cssUrls(computedValue);
          const specified = cssUrls(raw.replace(/url\(\s*([^"'\s)][^)\s]*)\s*\)/g, 'url("$1")').replace(/url\(\s*'([^']*)'\s*\)/g, 'url("$1")'));
          fromComputed.forEach((u, k) => {
            const local = u.startsWith('#');
            push(prefix, el, root, name, k, specified[k] ?? raw, local ? 'local:' + u : u, local ? 'local' : 'computed');
          });
          continue;
        }
      } else if (ns === NS.math) {
        if (name === 'href' || name === 'definitionURL' || name === 'definitionurl') kind = 'url';
        else if (ln === 'mglyph' && name === 'src') kind = 'url';
        else if (ln === 'math' && name === 'altimg') kind = 'url';
      }
      if (kind !== undefined) handleAttr(doc, el, prefix, root, name, raw, kind, inTemplate);
    }

    // img: what the browser actually picked from src/srcset.
    if (ns === NS.html && ln === 'img' && !inTemplate && (el.hasAttribute('src') || el.hasAttribute('srcset'))) {
      push(prefix, el, root, 'currentSrc', null, '', el.currentSrc, 'idl');
    }
    // Element text holding URLs.
    if (ln === 'style' && el.sheet) {
      try {
        walkRules(doc, el.sheet.cssRules, prefix, el, root, '');
      } catch (e) {
        push(prefix, el, root, 'sheet', null, '', 'error:' + e, 'error');
      }
    }
    if (ns === NS.html && ln === 'script') {
      const type = (el.getAttribute('type') || '').trim().toLowerCase();
      if (type === 'importmap' || type === 'speculationrules') {
        let json;
        try {
          json = JSON.parse(el.textContent);
        } catch (e) {
          push(prefix, el, root, type, null, el.textContent, 'invalid-json', 'verbatim');
          json = null;
        }
        if (json !== null && typeof json === 'object') visitJson(doc, el, prefix, root, type, json);
      }
    }
  }

  // Import maps: URL-like specifiers (/, ./, ../) resolve against the base; other keys are bare; scope
  // keys are full URL parses against the base. Speculation rules: "urls" lists resolve against the base.
  function urlLike(doc, s) {
    if (/^(\/|\.\/|\.\.\/)/.test(s)) return anchor(doc, s);
    try {
      return new URL(s).href;
    } catch {
      return null;
    }
  }
  function visitJson(doc, el, prefix, root, type, json) {
    const emit = (path, raw, resolved) => push(prefix, el, root, type + path, null, raw, resolved, 'anchor');
    if (type === 'importmap') {
      const map = (path, m) => {
        if (!m || typeof m !== 'object') return;
        Object.keys(m).forEach((k, i) => {
          emit(path + '/' + i + '/key', k, urlLike(doc, k) ?? 'bare:' + k);
          const v = m[k];
          if (typeof v === 'string') emit(path + '/' + i + '/value', v, urlLike(doc, v) ?? 'invalid:' + v);
        });
      };
      map('/imports', json.imports);
      if (json.scopes && typeof json.scopes === 'object') {
        Object.keys(json.scopes).forEach((scope, i) => {
          emit('/scopes/' + i + '/scope', scope, anchor(doc, scope));
          map('/scopes/' + i, json.scopes[scope]);
        });
      }
      if (json.integrity && typeof json.integrity === 'object') {
        Object.keys(json.integrity).forEach((k, i) => emit('/integrity/' + i, k, urlLike(doc, k) ?? 'bare:' + k));
      }
    } else {
      for (const action of Object.keys(json)) {
        const rules = json[action];
        if (!Array.isArray(rules)) continue;
        rules.forEach((rule, r) => {
          if (rule && Array.isArray(rule.urls)) {
            rule.urls.forEach((u, i) => {
              if (typeof u === 'string') emit('/' + action + '/' + r + '/urls/' + i, u, anchor(doc, u));
            });
          }
        });
      }
    }
  }

  // ---- traversal ---------------------------------------------------------------------------------------
  function walk(doc, rootNode, prefix, inTemplate) {
    const stack = [rootNode];
    const root = rootNode;
    const all = [];
    const collect = (node) => {
      for (let c = node.firstElementChild; c !== null; c = c.nextElementSibling) {
        all.push(c);
        collect(c);
      }
    };
    collect(root);
    void stack;
    for (const el of all) {
      visitElement(doc, el, prefix, root, inTemplate);
      const path = elementPath(el, root);
      if (el.namespaceURI === NS.html && el.localName === 'template' && el.content) {
        // Inert contents: resolved as they will be once instantiated into this document.
        walk(doc, el.content, prefix + path + '{template}/', true);
      }
      if (!inTemplate && el.namespaceURI === NS.html && el.localName === 'iframe' && el.hasAttribute('srcdoc')) {
        const inner = el.contentDocument;
        if (inner && inner.documentElement) {
          push(prefix, el, root, 'srcdoc', null, '', inner.URL + ' base=' + inner.baseURI, 'idl');
          walk(inner, inner, prefix + path + '{srcdoc}/', false);
        } else {
          push(prefix, el, root, 'srcdoc', null, '', 'inaccessible', 'error');
        }
      }
    }
  }
  walk(document, document, '', false);
  return out;
})()
