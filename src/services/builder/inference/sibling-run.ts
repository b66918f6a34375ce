// Records without a wrapper of their own: runs of sibling elements under one parent, each started by a
// repeated element (`<h3>title</h3><p>date</p><p>text</p><h3>...`). The definition reads such a record
// from its starting element: the starter is the list's element, and each later part of the run is the
// k-th following sibling, kept only while no other starter comes between (an XPath the engine runs).
import type { CheerioAPI } from 'cheerio';
import { textContent } from 'domutils';
import type { CandidateField } from './candidate.js';
import { isSkipped, normalizeText } from './dom-text.js';
import { conceptOfValues } from './naming.js';
import { elementChildren, signature, stableClasses, type Element } from './selectors.js';

/** Parts of a run read as fields, after the starter. */
const MAX_RUN_FIELDS = 6;
/** Starters needed for a run of records. */
const MIN_RUNS = 3;
/** Share of the runs whose part at one position has the same markup, for that position to be a field. */
const MIN_SAME_PART = 0.8;
const HEADING = /^h[1-6]$/;
/** Text holding a letter of any script. */
const NAME_LIKE = /\p{L}/u;
/** Separators between the parts of a run, never a part. */
const SEPARATORS = new Set(['br', 'hr']);

export interface SiblingRuns {
  /** The elements that start each record. */
  starters: Element[];
  /** The siblings after each starter, up to the next starter (separators left out). */
  runs: Element[][];
}

const partsOf = (parent: Element) => elementChildren(parent).filter((c) => !SEPARATORS.has(c.name));
const PART = '*[not(self::br or self::hr)]';

/**
 * The runs started by the members, when the members are siblings of one parent that start records: a
 * heading, or the parent's first part repeated, each followed by parts of other markup. Null otherwise
 * (members that are records by themselves, or spread over several parents).
 */
export function siblingRunsOf(members: Element[]): SiblingRuns | null {
  if (members.length < MIN_RUNS) return null;
  const parent = members[0].parent as Element | null;
  if (!parent || members.some((m) => m.parent !== parent)) return null;
  const parts = partsOf(parent);
  // The definition counts parts by position: a script or template among them would shift the count.
  if (parts.some(isSkipped)) return null;
  const starterSignature = signature(members[0]);
  const heading = HEADING.test(members[0].name);
  if (!heading && (parts[0] !== members[0] || signature(parts[0]) !== starterSignature)) return null;
  // A record opens with its name: starters that are mostly blank or bare figures (the amounts before
  // ingredient lines) are one value of records laid out otherwise, not what starts them.
  if (!heading && members.filter((m) => NAME_LIKE.test(normalizeText(textContent(m)))).length < members.length * 0.8)
    return null;
  const isStarter = new Set(members);
  // Another element of the starter's tag inside a run would end the run as the definition reads it.
  if (parts.some((p) => !isStarter.has(p) && p.name === members[0].name)) return null;
  const runs: Element[][] = [];
  let current: Element[] | null = null;
  for (const part of parts) {
    if (isStarter.has(part)) runs.push((current = []));
    else if (current) current.push(part);
  }
  // The last run ends where the others do: what follows it is the end of the list (a pager, a note).
  const longest = Math.max(0, ...runs.slice(0, -1).map((r) => r.length));
  runs[runs.length - 1] = runs[runs.length - 1].slice(0, longest);
  // Starters followed by nothing are records by themselves, already a list of their own.
  if (runs.filter((r) => r.length > 0).length < runs.length * 0.7) return null;
  return { starters: members, runs };
}

/** The XPath of a run's k-th part (from 1), read from the starter: none when another starter comes first. */
export function runPartXPath(starterTag: string, k: number): string {
  const between = k > 1 ? `[not(preceding-sibling::${PART}[position() < ${k}][self::${starterTag}])]` : '';
  return `following-sibling::${PART}[${k}][not(self::${starterTag})]${between}`;
}

/** The fields of the runs' parts, position by position while the parts at a position share their markup. */
export function runFields($: CheerioAPI, { runs, starters }: SiblingRuns, firstOrder: number): CandidateField[] {
  const fields: CandidateField[] = [];
  const tag = starters[0].name;
  const longest = Math.min(MAX_RUN_FIELDS, Math.max(0, ...runs.map((r) => r.length)));
  for (let k = 1; k <= longest; k++) {
    const present = runs.flatMap((r, i) => (r.length >= k ? [i] : []));
    const parts = present.map((i) => runs[i][k - 1]);
    const counts = new Map<string, number>();
    for (const p of parts) counts.set(signature(p), (counts.get(signature(p)) ?? 0) + 1);
    const [, same] = [...counts].sort((a, b) => b[1] - a[1])[0];
    if (same < parts.length * MIN_SAME_PART) break;
    const values = parts.map((p) => normalizeText($(p).text()));
    if (values.every((v) => v === '')) continue;
    const first = parts[0];
    const hints = stableClasses(first);
    const concept = conceptOfValues(values);
    fields.push({
      key: `run:${k}`,
      kind: 'text',
      xpath: runPartXPath(tag, k),
      transform: 'trim',
      coverage: present.length / runs.length,
      samples: values.slice(0, 5),
      ...(concept ? { concept } : {}),
      hints,
      ownHints: hints,
      tag: first.name,
      depth: 1,
      averageLength: values.reduce((n, v) => n + v.length, 0) / Math.max(1, values.length),
      order: firstOrder + k,
      present,
    });
  }
  return fields;
}

/** The text of each record: its starter and the parts of its run. */
export function runTexts($: CheerioAPI, { runs, starters }: SiblingRuns): string[] {
  return starters.map((s, i) => normalizeText([s, ...runs[i]].map((e) => $(e).text()).join(' ')));
}
