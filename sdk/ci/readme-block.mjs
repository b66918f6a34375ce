// Prints the first fenced code block of a language after a README's "## Quick start" heading, so CI
// runs the quick start exactly as the README shows it. Usage: node readme-block.mjs README.md js
import fs from 'node:fs';

const [file, lang] = process.argv.slice(2);
const text = fs.readFileSync(file, 'utf8');
const start = text.indexOf('\n## Quick start');
const open = '```' + lang + '\n';
const from = text.indexOf(open, start);
if (start < 0 || from < 0) throw new Error(`${file}: no ${lang} block after "## Quick start"`);
const body = text.slice(from + open.length, text.indexOf('\n```', from + open.length));
process.stdout.write(body + '\n');
