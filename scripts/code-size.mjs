// Size and history report of the code, read with the TypeScript compiler's own parser: files over 350
// lines and functions over 80 lines in src/ and console/src, and comments in src/, console/src, test/
// and bench/ that cite history (an issue or decision number, a date or time of work, a person or role,
// a document outside the repository) instead of saying what the code does.
// Run: node scripts/code-size.mjs [--list] [root]   (--list prints every such comment; root defaults to .)
// Generated code (src/generated, console/src/api/schema.d.ts) is left out.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const MAX_FILE_LINES = 350;
const MAX_FUNCTION_LINES = 80;
const SIZE_DIRS = ['src', 'console/src'];
const COMMENT_DIRS = ['src', 'console/src', 'test', 'bench'];
const EXTENSIONS = /\.(?:ts|tsx|mts|mjs|js)$/;
const GENERATED = [/^src\/generated\//, /^console\/src\/api\/schema\.d\.ts$/];

/** What a comment citing history looks like; each pattern has a name for the report. */
const HISTORY = [
  ['issue number', /\bissues?\s+#?\d+|(?:^|[\s(])#\d+\b/i],
  ['decision number', /\bD-\d{2,}\b/],
  [
    'date of work',
    /\b(?:as of|since|until|written|measured|decided|changed|added|removed)\s+(?:on\s+)?20\d{2}-\d{2}\b/i,
  ],
  ['time of work', /\b(?:session|sitting)\s+(?:of|at)\s+\d{1,2}:\d{2}\b/i],
  ['person or role', /\b(?:the integrator|the maintainers?|the engineer|the architect|product owner)\b/i],
  [
    'document outside the repository',
    /design\.md|service-spec|(?<!docs\/)ARCHITECTURE\.md|architecture notes|design section|shared\/spec|\bthe spec\b|\bthe issue(?:'s)?\b|\bspec(?:'s|:)|\(spec\b/i,
  ],
];

const args = process.argv.slice(2);
const list = args.includes('--list');
const root = path.resolve(args.find((a) => !a.startsWith('--')) ?? '.');

/** Every source file under `dir` (relative to root), skipping node_modules and generated code. */
function sourceFiles(dir) {
  const out = [];
  const walk = (rel) => {
    const abs = path.join(root, rel);
    if (!fs.existsSync(abs)) return;
    for (const entry of fs.readdirSync(abs, { withFileTypes: true })) {
      const child = path.posix.join(rel, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(child);
      } else if (EXTENSIONS.test(entry.name) && !GENERATED.some((g) => g.test(child))) out.push(child);
    }
  };
  walk(dir);
  return out.sort();
}

function parse(rel) {
  const text = fs.readFileSync(path.join(root, rel), 'utf8');
  const kind = rel.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  return ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true, kind);
}

const lineOf = (file, pos) => file.getLineAndCharacterOfPosition(pos).line + 1;

/** A readable name for a function-like node: its own, or the variable, property or method holding it. */
function functionName(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) {
    return parent.name.getText();
  }
  return '(anonymous)';
}

function longFunctions(file) {
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const lines = lineOf(file, node.getEnd()) - lineOf(file, node.getStart(file)) + 1;
      if (lines > MAX_FUNCTION_LINES) {
        found.push({ name: functionName(node), line: lineOf(file, node.getStart(file)), lines });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Every comment of the file (line and block), with the line it starts on, read around each node. */
function comments(file) {
  const seen = new Map();
  const add = (ranges) => {
    for (const r of ranges ?? []) {
      if (!seen.has(r.pos)) seen.set(r.pos, { line: lineOf(file, r.pos), text: file.text.slice(r.pos, r.end) });
    }
  };
  const visit = (node) => {
    add(ts.getLeadingCommentRanges(file.text, node.getFullStart()));
    add(ts.getTrailingCommentRanges(file.text, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  visit(file);
  add(ts.getLeadingCommentRanges(file.text, file.endOfFileToken.getFullStart()));
  return [...seen.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
}

/** Comments citing history; consecutive line comments are read as one, so a citation may span lines. */
function historyComments(file) {
  const merged = [];
  for (const c of comments(file)) {
    const last = merged.at(-1);
    if (last && c.text.startsWith('//') && last.text.startsWith('//') && c.line === last.endLine + 1) {
      last.text += `\n${c.text}`;
      last.endLine = c.line;
    } else merged.push({ ...c, endLine: c.line + c.text.split('\n').length - 1 });
  }
  const found = [];
  for (const c of merged) {
    const flat = c.text.replace(/^\s*(?:\/\/|\/\*+|\*+\/?)/gm, ' ').replace(/\s+/g, ' ');
    const kinds = HISTORY.filter(([, re]) => re.test(flat)).map(([name]) => name);
    if (kinds.length > 0) found.push({ line: c.line, kinds, text: flat.trim() });
  }
  return found;
}

const bigFiles = [];
const bigFunctions = [];
for (const rel of SIZE_DIRS.flatMap(sourceFiles)) {
  const file = parse(rel);
  const lines = file.getLineAndCharacterOfPosition(file.text.length).line + (file.text.endsWith('\n') ? 0 : 1);
  if (lines > MAX_FILE_LINES) bigFiles.push({ rel, lines });
  for (const f of longFunctions(file)) bigFunctions.push({ rel, ...f });
}
const history = [];
for (const rel of COMMENT_DIRS.flatMap(sourceFiles)) {
  for (const c of historyComments(parse(rel))) history.push({ rel, ...c });
}

console.log(`Files over ${MAX_FILE_LINES} lines (${SIZE_DIRS.join(', ')}): ${bigFiles.length}`);
for (const f of bigFiles.sort((a, b) => b.lines - a.lines)) console.log(`  ${f.lines}\t${f.rel}`);
console.log(`Functions over ${MAX_FUNCTION_LINES} lines (${SIZE_DIRS.join(', ')}): ${bigFunctions.length}`);
for (const f of bigFunctions.sort((a, b) => b.lines - a.lines)) {
  console.log(`  ${f.lines}\t${f.rel}:${f.line} ${f.name}`);
}
console.log(`Comments citing history (${COMMENT_DIRS.join(', ')}): ${history.length}`);
const byKind = new Map();
for (const c of history) for (const k of c.kinds) byKind.set(k, (byKind.get(k) ?? 0) + 1);
for (const [kind, count] of byKind) console.log(`  ${count}\t${kind}`);
if (list) for (const c of history) console.log(`  ${c.rel}:${c.line} [${c.kinds.join(', ')}] ${c.text.slice(0, 160)}`);
