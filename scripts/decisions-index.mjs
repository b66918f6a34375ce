// Numbers the entries of docs/decisions.md and writes the index at its top. Idempotent: an entry
// keeps its number and date once it has them; a new one (a `- **Title.**` bullet, for example under
// an appended `## <topic> (issue N)` section) gets the next number and a date, taken from a
// leading `YYYY-MM-DD — ` in its title or else from the commit that last wrote its first line.
// An entry that says "Superseded by D-NNN" is marked so in the index. Run: node scripts/decisions-index.mjs
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const FILE = 'docs/decisions.md';
const START = '<!-- index:start -->';
const END = '<!-- index:end -->';
const text = fs.readFileSync(FILE, 'utf8');
const lines = text.split('\n');

// Dates of the commits that last wrote each line (uncommitted lines: today).
const blameDates = new Map();
try {
  const out = execFileSync('git', ['blame', '--line-porcelain', FILE], { encoding: 'utf8', maxBuffer: 64 << 20 });
  let line = 0;
  let time = null;
  for (const l of out.split('\n')) {
    const head = /^[0-9a-f]{40} \d+ (\d+)/.exec(l);
    if (head) line = Number(head[1]);
    else if (l.startsWith('author-time ')) time = Number(l.slice(12));
    else if (l.startsWith('\t')) blameDates.set(line, new Date(time * 1000).toISOString().slice(0, 10));
  }
} catch {
  // Not a git checkout: new entries get today's date.
}
const today = new Date().toISOString().slice(0, 10);

const NUMBERED = /^- <a id="d-(\d+)"><\/a>\*\*D-\d+ · (\d{4}-\d{2}-\d{2}) · (.+?)\*\*(.*)$/;
const BULLET = /^- \*\*(.+?)\*\*(.*)$/;
let max = 0;
for (const l of lines) {
  const m = NUMBERED.exec(l);
  if (m) max = Math.max(max, Number(m[1]));
}

const entries = [];
let section = '';
let inIndex = false;
const out = [];
lines.forEach((l, i) => {
  if (l === START) inIndex = true;
  if (inIndex) {
    if (l === END) inIndex = false;
    return;
  }
  if (/^##+ /.test(l)) section = l.replace(/^#+ /, '');
  let m = NUMBERED.exec(l);
  if (m) {
    entries.push({ n: Number(m[1]), date: m[2], title: m[3], section, line: out.length });
    out.push(l);
    return;
  }
  m = section ? BULLET.exec(l) : null;
  if (m) {
    let title = m[1];
    let date = blameDates.get(i + 1) ?? today;
    const dated = /^(\d{4}-\d{2}-\d{2}) — (.+)$/.exec(title);
    if (dated) [, date, title] = dated;
    const n = ++max;
    const id = String(n).padStart(3, '0');
    entries.push({ n, date, title, section, line: out.length });
    out.push(`- <a id="d-${id}"></a>**D-${id} · ${date} · ${title}**${m[2]}`);
    return;
  }
  out.push(l);
});

// An entry's body runs to the next entry or heading; "Superseded by D-NNN" in it marks it.
const superseded = new Set();
entries.forEach((e, k) => {
  const endLine = k + 1 < entries.length ? entries[k + 1].line : out.length;
  if (/Superseded by D-\d+/i.test(out.slice(e.line, endLine).join(' '))) superseded.add(e.n);
});

const index = [START, '## Index', ''];
let current = null;
for (const e of entries) {
  if (e.section !== current) {
    current = e.section;
    index.push(`**${current}**`, '');
  }
  const id = String(e.n).padStart(3, '0');
  const title = e.title.replace(/\.$/, '').replace(/`/g, '');
  index.push(`- [D-${id}](#d-${id}) ${e.date} ${title}${superseded.has(e.n) ? ' *(superseded)*' : ''}`);
  const next = entries[entries.indexOf(e) + 1];
  if (!next || next.section !== current) index.push('');
}
index.push(END);

// The index goes after the introduction (before the first section).
const first = out.findIndex((l) => /^## /.test(l));
const intro = out.slice(0, first);
while (intro.at(-1) === '') intro.pop();
const result = [...intro, '', ...index, '', ...out.slice(first)].join('\n');
fs.writeFileSync(FILE, result);
console.log(`${entries.length} entries, ${superseded.size} superseded, highest D-${String(max).padStart(3, '0')}`);
