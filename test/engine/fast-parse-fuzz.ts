// Random HTML documents for the fast parse path's differential test: a grammar weighted toward where
// the HTML standard's tree differs from a lenient parser's (tables, p, lists, a, formatting, headings,
// forms, select, raw text, svg, comments, references, attributes, CRLF, whitespace around head and
// body, unclosed and misnested tags). Deterministic for a seed.

export type Random = () => number;

/** mulberry32: small, seedable, good enough to spread documents over the grammar. */
export function rng(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: Random, list: readonly T[]): T => list[Math.floor(r() * list.length)];
const chance = (r: Random, p: number) => r() < p;

const TEXTS = [
  'x',
  'hello world',
  ' ',
  '\n',
  '\r\n',
  '\r',
  '\t',
  'a < b',
  'a <3',
  '1 &amp; 2',
  '&amp',
  '&ampx',
  '&copy2',
  '&notin;',
  '&notit;',
  '&not',
  '&#128;',
  '&#x80;',
  '&#150;',
  '&#0;',
  '&#x110000;',
  '&#65',
  '&nbsp;',
  '&nbsp',
  '&lt;p&gt;',
  '&bogus;',
  '&',
  '&#;',
  '&quot',
  'ü€😀',
  '\u00a0',
  '\f',
];
const ATTR_VALUES = [
  'a',
  'a b',
  '',
  '1 &amp; 2',
  '&amp',
  '&ampx=1',
  '?a=1&b=2',
  '?a=1&copy=2',
  '&copy',
  '&notit',
  '&#128;',
  '&#x41',
  'x"y',
  "x'y",
  'a=b',
  '/x/',
  'é',
];
const ATTR_NAMES = [
  'class',
  'id',
  'href',
  'CLASS',
  'data-x',
  'title',
  'style',
  'xlink:href',
  'viewbox',
  ':x',
  '@click',
];

function attrs(r: Random): string {
  let out = '';
  const n = Math.floor(r() * 3);
  for (let i = 0; i < n; i++) {
    const name = pick(r, ATTR_NAMES);
    const value = pick(r, ATTR_VALUES);
    const q = r();
    // No whitespace after a quoted value sometimes, duplicate names sometimes (both are in the lists).
    const sep = chance(r, 0.1) && out.endsWith('"') ? '' : chance(r, 0.1) ? '\n  ' : ' ';
    if (q < 0.1) out += `${sep}${name}`;
    else if (q < 0.55) out += `${sep}${name}="${value.replace(/"/g, '&quot;')}"`;
    else if (q < 0.75) out += `${sep}${name}='${value.replace(/'/g, '&#39;')}'`;
    else if (q < 0.95) out += `${sep}${name}=${value.replace(/[\s"'<>`]/g, '') || 'v'}`;
    else out += `${sep}${name}=${value}`;
  }
  return out;
}

const FLOW = [
  'div',
  'p',
  'span',
  'a',
  'b',
  'i',
  'em',
  'strong',
  'font',
  'nobr',
  'ul',
  'ol',
  'li',
  'dl',
  'dd',
  'dt',
  'h1',
  'h2',
  'h3',
  'table',
  'form',
  'button',
  'select',
  'option',
  'pre',
  'listing',
  'section',
  'article',
  'header',
  'nav',
  'label',
  'object',
  'custom-el',
  'o:p',
  'svg',
  'math',
  'template',
  'noscript',
  'iframe',
  'textarea',
  'script',
  'style',
  'title',
  'xmp',
  'noembed',
  'center',
  'address',
  'figure',
  'details',
  'summary',
  'ruby',
  'rt',
  'caption',
  'tr',
  'td',
];
const VOIDS = ['br', 'img', 'input', 'hr', 'meta', 'link', 'wbr', 'source', 'embed', 'image', 'col'];
const SVG_KIDS = [
  'path',
  'g',
  'lineargradient',
  'clipPath',
  'title',
  'desc',
  'image',
  'use',
  'circle',
  'foreignObject',
  'p',
];
const COMMENTS = [
  '<!--c-->',
  '<!---->',
  '<!-- a -- b -->',
  '<!-->',
  '<!--->',
  '<!-- x --!>',
  '<!-- <!-- -->',
  '<!--[if IE]><p>x</p><![endif]-->',
  '<!-- a --->',
  '<?xml version="1.0"?>',
  '<!bogus>',
  '</ 3>',
  '<![CDATA[x]]>',
  '<!--x',
];

function text(r: Random): string {
  let s = '';
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i++) s += pick(r, TEXTS);
  return s;
}

function rawContent(r: Random, tag: string): string {
  return pick(r, [
    '',
    'var a = 1 < 2 && 3 > 2;',
    'a &amp; b',
    '<b>x</b>',
    '<img src=x>',
    '<!-- x -->',
    '<!--<script>x</script>-->',
    `</${tag}x>`,
    '\nline',
    '.a{color:red}',
    `<p>${tag}</p>`,
  ]);
}

function element(r: Random, depth: number, inSvg: boolean): string {
  if (inSvg) {
    const tag = pick(r, SVG_KIDS);
    if (chance(r, 0.4)) return `<${tag}${attrs(r)}/>`;
    return `<${tag}${attrs(r)}>${depth < 4 && chance(r, 0.5) ? content(r, depth + 1, true) : text(r)}</${tag}>`;
  }
  if (chance(r, 0.12)) return `<${pick(r, VOIDS)}${attrs(r)}${chance(r, 0.2) ? '/' : ''}>`;
  const tag = pick(r, FLOW);
  const open = `<${chance(r, 0.05) ? tag.toUpperCase() : tag}${attrs(r)}>`;
  let inner: string;
  if (['script', 'style', 'title', 'textarea', 'xmp', 'noscript', 'iframe', 'noembed'].includes(tag)) {
    inner = rawContent(r, tag);
  } else if (tag === 'table') {
    inner = table(r, depth);
  } else if (tag === 'select') {
    inner = Array.from({ length: 1 + Math.floor(r() * 3) }, () =>
      pick(r, ['<option>a', '<option>b</option>', '<optgroup label=g><option>c</optgroup>', ' ', '<div>x</div>']),
    ).join('');
  } else if (tag === 'ul' || tag === 'ol') {
    inner = Array.from({ length: 1 + Math.floor(r() * 3) }, () =>
      chance(r, 0.8) ? `<li>${depth < 5 ? content(r, depth + 1, false) : 'x'}</li>` : `<li>${text(r)}`,
    ).join(chance(r, 0.5) ? '\n' : '');
  } else {
    inner = depth < 5 ? content(r, depth + 1, tag === 'svg') : text(r);
  }
  const q = r();
  const close = q < 0.85 ? `</${tag}>` : q < 0.92 ? '' : `</${pick(r, FLOW)}>`;
  return open + inner + close;
}

function table(r: Random, depth: number): string {
  const rows = Array.from({ length: 1 + Math.floor(r() * 3) }, () => {
    const cells = Array.from({ length: 1 + Math.floor(r() * 2) }, () => {
      const c = chance(r, 0.5) ? 'td' : 'th';
      return `<${c}>${depth < 5 ? content(r, depth + 1, false) : text(r)}${chance(r, 0.9) ? `</${c}>` : ''}`;
    }).join(chance(r, 0.3) ? '\n  ' : '');
    return `<tr>${cells}${chance(r, 0.9) ? '</tr>' : ''}`;
  }).join(chance(r, 0.5) ? '\n' : '');
  const q = r();
  const body =
    q < 0.4 ? `<tbody>${rows}</tbody>` : q < 0.8 ? rows : `<thead>${rows}</thead>${chance(r, 0.3) ? 'text' : ''}`;
  return (chance(r, 0.1) ? '<caption>c</caption>' : '') + (chance(r, 0.1) ? '<colgroup><col></colgroup>' : '') + body;
}

function content(r: Random, depth: number, inSvg: boolean): string {
  let s = '';
  const n = Math.floor(r() * 4);
  for (let i = 0; i < n; i++) {
    const q = r();
    if (q < 0.35) s += text(r);
    else if (q < 0.9) s += element(r, depth, inSvg);
    else if (q < 0.95) s += pick(r, COMMENTS);
    else s += `</${pick(r, FLOW)}>`;
  }
  return s;
}

const HEAD_ITEMS = [
  '<meta charset="utf-8">',
  '<title>T &amp; t</title>',
  '<link rel=stylesheet href=a.css>',
  '<script>var x = "</div>";</script>',
  '<style>p{}</style>',
  '<noscript><link rel=x></noscript>',
  '<base href="/">',
  '\n  ',
  '<!--h-->',
  '<div>x</div>',
  '<template>t</template>',
];

export function generateDocument(r: Random): string {
  const ws = () => pick(r, ['', '', '\n', ' \n ', '\r\n']);
  let s = ws();
  s += pick(r, [
    '<!DOCTYPE html>',
    '<!doctype html>',
    '',
    '<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01//EN">',
    '<!DOCTYPE foo>',
  ]);
  s += ws() + (chance(r, 0.1) ? '<!--top-->' : '') + ws();
  if (chance(r, 0.9)) s += `<html${attrs(r)}>`;
  s += ws();
  if (chance(r, 0.1)) s += pick(r, HEAD_ITEMS);
  if (chance(r, 0.9)) s += `<head${chance(r, 0.1) ? attrs(r) : ''}>`;
  for (let i = Math.floor(r() * 4); i > 0; i--) s += pick(r, HEAD_ITEMS);
  if (chance(r, 0.9)) s += '</head>';
  s += ws() + (chance(r, 0.05) ? '<script>late()</script>' : '') + ws();
  if (chance(r, 0.9)) s += `<body${attrs(r)}>`;
  s += content(r, 0, false) + content(r, 0, false);
  if (chance(r, 0.05)) s += '<body class=again>';
  if (chance(r, 0.8)) s += '</body>';
  s += ws();
  if (chance(r, 0.1)) s += pick(r, ['<!--after-->', 'tail', '<p>late</p>', ' ']);
  if (chance(r, 0.7)) s += '</html>';
  s += ws();
  if (chance(r, 0.1)) s += pick(r, ['<!--end-->', 'end', '<div>z</div>']);
  return s;
}
