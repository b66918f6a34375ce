// Stable selectors for a field inside its record and for the record container on the page.
import type { CheerioAPI } from 'cheerio';
import type { CandidateField } from './candidate.js';
import {
  classStems,
  cssString,
  elementChildren,
  hookSelector,
  isGeneratedClass,
  isElement,
  NAMING_ATTRIBUTES,
  nthOfType,
  pageClasses,
  safeFind,
  signature,
  stableClasses,
  stepSelector,
  type Element,
} from './selectors.js';

/** An element's text, spaces collapsed. */
function textOf(el: Element): string {
  const parts: string[] = [];
  const walk = (n: Element['children'][number]) => {
    if (n.type === 'text') parts.push((n as unknown as { data: string }).data);
    else if (isElement(n)) n.children.forEach(walk);
  };
  el.children.forEach(walk);
  return parts.join('').replace(/\s+/g, ' ').trim();
}

/** No later sibling of the same tag. */
function lastOfType(el: Element): boolean {
  for (let n = el.next; n; n = n.next) if (isElement(n) && n.name === el.name) return false;
  return true;
}

/** The element `levels` steps up from `el`, inside its record `owner` (undefined past it). */
function ancestorAt(el: Element, levels: number, owner: Element | undefined): Element | undefined {
  let p: Element | undefined = el;
  for (let i = 0; i < levels && p; i++) p = isElement(p.parent) && p.parent !== owner ? p.parent : undefined;
  return p;
}

/** The last of its tag among its siblings, after at least one of the same signature. */
function lastAfterAlike(el: Element | undefined): boolean {
  if (!el || !lastOfType(el)) return false;
  for (let n = el.prev; n; n = n.prev) if (isElement(n) && signature(n) === signature(el)) return true;
  return false;
}

/** Candidate relative selectors for a field target, simplest first. */
function selectorOptions(
  targets: Element[],
  member: Element,
  label: string | undefined,
  owners: Element[] = [member],
): string[] {
  const t = targets[0];
  const options: string[] = [];
  const common = (fn: (el: Element) => string[]) => {
    const sets = targets.map((el) => new Set(fn(el)));
    return [...sets[0]].filter((v) => sets.every((s) => s.has(v)));
  };
  const classes = common(stableClasses);
  // Read through its term, before it or after it (a list written value first), not by position.
  if (label && t.name === 'dd')
    options.push(`dt:contains(${cssString(label)}) + dd`, `dd:has(+ dt:contains(${cssString(label)}))`);
  // Opened by its label ("<p>Estado: …</p>" among paragraphs some records lack): read through the label.
  if (label && !/^(?:dd|td|th)$/.test(t.name) && targets.every((el) => textOf(el).startsWith(label)))
    options.push(`${t.name}:contains(${cssString(`${label}:`)})`);
  for (const c of classes) options.push(`${t.name}.${c}`);
  if (classes.length > 1) options.push(`${t.name}.${classes.join('.')}`);
  // Build-generated classes: their stems, where no stable class is shared.
  if (classes.length === 0)
    for (const c of common(classStems)) options.push(`${t.name}[class*=${cssString(`${c}__`)}]`);
  for (const a of NAMING_ATTRIBUTES) {
    const values = common((el) => (el.attribs?.[a] ? [el.attribs[a]] : []));
    for (const v of values) options.push(`${t.name}[${a}=${cssString(v)}]`);
  }
  options.push(t.name);
  const nth = common((el) => [String(nthOfType(el))]);
  if (nth.length > 0) options.push(`${t.name}:nth-of-type(${nth[0]})`);
  // The last of its kind where records hold more or fewer before it (a description after optional lines).
  if (targets.every((el) => lastOfType(el))) options.push(`${t.name}:last-of-type`);
  // Qualified by an ancestor inside the record.
  const base = [...options];
  let levels = 0;
  for (let p = t.parent; p && isElement(p) && p !== member && levels < 3; p = p.parent, levels++) {
    const ps = hookSelector(p);
    for (const b of base.slice(0, 4)) options.push(`${ps} ${b}`, `${ps} > ${b}`);
    // The last of boxes alike where some records hold one and others two ("Reg. $51.66" then
    // "Sale $34.42"): the last one, which is also the only one where there is one.
    const up = levels + 1;
    const at = targets.map((el, i) => ancestorAt(el, up, owners[i]));
    if (at.every((a) => a !== undefined && lastOfType(a)) && at.some(lastAfterAlike))
      for (const b of base.slice(0, 2)) options.push(`${ps}:last-of-type ${b}`);
  }
  // The full path with positions, the last resort.
  const steps: string[] = [];
  for (let p: Element | null = t; p && isElement(p) && p !== member; p = p.parent as Element | null) {
    const pc = stableClasses(p);
    steps.unshift(pc.length > 0 ? stepSelector(p, pc) : `${p.name}:nth-of-type(${nthOfType(p)})`);
  }
  if (steps.length > 0) options.push(`:scope > ${steps.join(' > ')}`);
  return [...new Set(options)];
}

/** The first selector that finds exactly the aligned element in (nearly) every record. */
export function chooseSelector(
  $: CheerioAPI,
  members: Element[],
  targets: Map<Element, Element>,
  label: string | undefined,
  needsAttr?: string,
): string | undefined | null {
  const withTarget = members.filter((m) => targets.has(m));
  const exemplars = withTarget.map((m) => targets.get(m) as Element);
  if (exemplars.every((t, i) => t === withTarget[i])) return undefined; // the container itself
  const without = members.filter((m) => !targets.has(m));
  const look = (e: Element) => `${signature(e)}<${isElement(e.parent) ? signature(e.parent) : ''}`;
  const looks = new Set(exemplars.slice(0, 30).map(look));
  const fits = (option: string): boolean | null => {
    let hits = 0;
    // Stop as soon as the option has missed more records than the 5% it may miss.
    let misses = 0;
    for (const m of withTarget) {
      const found = safeFind(m, option, needsAttr ? Infinity : 1);
      if (found === null) return null;
      const first = needsAttr ? found.find((e) => !!e.attribs?.[needsAttr]) : found[0];
      if (first === targets.get(m) && (needsAttr === undefined || found[0] === first)) hits++;
      else if (++misses > withTarget.length * 0.05) break;
    }
    if (hits < withTarget.length * 0.95) return false;
    // A record lacking the aligned element may hold the same element elsewhere (a title wrapped in one
    // more div): what the option finds there counts as a stray only when it looks different.
    const strays = without.filter((m) => {
      const found = safeFind(m, option, 1)?.[0];
      return found !== undefined && (!looks.has(look(found)) || struckOut(found, m));
    }).length;
    return without.length === 0 || strays <= without.length * 0.3;
  };
  const sample = exemplars.slice(0, 30);
  for (const option of selectorOptions(sample, withTarget[0], label, withTarget.slice(0, 30)))
    if (fits(option)) return option;
  // Nothing stable finds it in every record (records laid out in two mirrored ways): a class the site's
  // build generated does, on this build of the site (the draft's notes say so).
  for (const option of generatedFieldOptions(sample, withTarget.slice(0, 30))) if (fits(option)) return option;
  return null;
}

/** The classes of `el` a build generated, those a selector can name as they are. */
function generatedClassesOf(el: Element): string[] {
  return pageClasses(el).filter((c) => isGeneratedClass(c) && /^[A-Za-z][\w-]*$/.test(c));
}

/**
 * Selectors naming the classes a build generated that the targets, or their ancestors inside the
 * record, carry alike ("div.c488ecc > span").
 */
function generatedFieldOptions(targets: Element[], owners: Element[]): string[] {
  const common = (els: Array<Element | undefined>) => {
    if (els.some((e) => e === undefined)) return [];
    const sets = (els as Element[]).map((e) => new Set(generatedClassesOf(e)));
    return [...sets[0]].filter((c) => sets.every((set) => set.has(c)));
  };
  const t = targets[0];
  const options = common(targets).map((c) => `${t.name}.${c}`);
  for (let up = 1; up <= 2; up++) {
    const at = targets.map((el, i) => ancestorAt(el, up, owners[i]));
    const first = at[0];
    if (!first) break;
    for (const c of common(at).slice(0, 2))
      options.push(up === 1 ? `${first.name}.${c} > ${t.name}` : `${first.name}.${c} ${t.name}`);
  }
  return options.slice(0, 4);
}

/** Inside <del>/<s> (an old price) between the element and its record. */
function struckOut(el: Element, member: Element): boolean {
  for (let p = el.parent; p && isElement(p) && p !== member; p = p.parent)
    if (/^(?:del|s|strike)$/.test(p.name)) return true;
  return false;
}

function sameSet(a: Element[], b: Set<Element>): boolean {
  return a.length === b.size && a.every((e) => b.has(e));
}

/** Whole-page queries one group's container selector may cost. */
const MAX_CONTAINER_TRIES = 16;

/** Whole-page queries of selectors naming a generated class, after those. */
const MAX_GENERATED_TRIES = 5;

/** Data attributes tried as a hook of the records. */
const MAX_DATA_HOOKS = 2;

/** A table row with a data cell of its own (not only header cells). */
function hasDataCell(row: Element): boolean {
  return row.name === 'tr' && elementChildren(row).some((c) => c.name === 'td');
}

/** The last element of its parent. */
function lastChild(el: Element): boolean {
  return isElement(el.parent) && elementChildren(el.parent).at(-1) === el;
}

/** A selector matching exactly the group's members on the page, or the closest one found. */
export function containerSelector($: CheerioAPI, members: Element[], fields: CandidateField[]): string | null {
  const wanted = new Set(members);
  const sample = members[0];
  const commonClasses = stableClasses(sample).filter((c) => members.every((m) => stableClasses(m).includes(c)));
  const options: string[] = [];
  for (const c of commonClasses) options.push(`${sample.name}.${c}`);
  if (commonClasses.length > 1) options.push(`${sample.name}.${commonClasses.join('.')}`);
  for (const a of ['itemtype', 'itemprop', 'role', 'data-type', 'data-testid', 'data-test']) {
    const v = sample.attribs?.[a];
    if (v && members.every((m) => m.attribs?.[a] === v)) options.push(`${sample.name}[${a}=${cssString(v)}]`);
  }
  const stems = classStems(sample).filter((c) => members.every((m) => classStems(m).includes(c)));
  const own =
    commonClasses.length > 0
      ? `${sample.name}.${commonClasses.join('.')}`
      : stems.length > 0
        ? `${sample.name}${stems.map((c) => `[class*=${cssString(`${c}__`)}]`).join('')}`
        : sample.name;
  // Parent-qualified forms.
  const parentSteps: string[] = [];
  let p = sample.parent;
  for (let depth = 0; p && isElement(p) && depth < 3; depth++, p = p.parent) {
    const id =
      p.attribs?.id && /^[A-Za-z][\w-]*$/.test(p.attribs.id) && !/\d{3,}/.test(p.attribs.id)
        ? `#${p.attribs.id}`
        : null;
    const hook = hookSelector(p);
    const step = id ?? hook;
    parentSteps.unshift(step);
    options.push(`${parentSteps.join(' > ')} > ${own}`);
    if (id || hook !== p.name) options.push(`${step} ${own}`);
    if (id) break;
  }
  options.push(own);
  // A data attribute every member carries, whatever its value (a plugin's `data-tr-ingredient-checkbox`).
  const dataHooks = Object.keys(sample.attribs ?? {}).filter(
    (a) => /^data-[a-z][\w-]*$/.test(a) && members.every((m) => m.attribs?.[a] !== undefined),
  );
  for (const a of dataHooks.slice(0, MAX_DATA_HOOKS)) options.push(`${sample.name}[${a}]`);
  const required = fields.filter((f) => f.coverage === 1 && f.selector).map((f) => f.selector as string);
  let best: { selector: string; score: number } | null = null;
  const strayGenerated: string[] = [];
  // Each try queries the whole page (a `:has` one visits every descendant of every match): a fixed
  // number of tries per group keeps a page of many groups, or of many stray classes, linear.
  let tries = 0;
  const query = (selector: string): Element[] | null => {
    if (tries++ >= MAX_CONTAINER_TRIES) return null;
    try {
      return $(selector).toArray() as Element[];
    } catch {
      return null;
    }
  };
  for (const option of [...new Set(options)]) {
    const matched = query(option);
    if (matched === null) continue;
    if (sameSet(matched, wanted)) return option;
    const extras = matched.filter((e) => !wanted.has(e));
    const hits = matched.length - extras.length;
    if (hits < members.length) continue;
    // Exclude the strays: a class only they carry, or a field they lack. Read once per distinct class
    // attribute: thousands of strays of a few kinds share a few.
    const kinds = new Map<string, Element>();
    for (const e of extras) if (!kinds.has(e.attribs?.class ?? '')) kinds.set(e.attribs?.class ?? '', e);
    const strayClasses = [
      ...new Set(
        [...kinds].flatMap(([cls, e]) =>
          stableClasses(e).concat(cls.split(/\s+/).filter((c) => /^[A-Za-z][\w-]*$/.test(c))),
        ),
      ),
    ];
    const kindTokens = [...kinds.keys()].map((cls) => cls.split(/\s+/));
    const memberTokens = new Set(members.flatMap((m) => (m.attribs?.class ?? '').split(/\s+/)));
    for (const c of strayClasses) {
      if (memberTokens.has(c)) continue;
      if (!kindTokens.every((tokens) => tokens.includes(c))) continue;
      const refined = `${option}:not(.${c})`;
      // A class a build generated, only when nothing stable leaves the strays out (see below).
      if (isGeneratedClass(c)) {
        strayGenerated.push(refined);
        continue;
      }
      const found = query(refined);
      if (found && sameSet(found, wanted)) return refined;
    }
    for (const r of required) {
      // Only when every member has it and some stray lacks it (checked on the elements, not the page).
      if (!extras.slice(0, 30).some((e) => safeFind(e, r, 1)?.length === 0)) continue;
      const refined = `${option}:has(${r})`;
      const found = query(refined);
      if (found && sameSet(found, wanted)) return refined;
    }
    // Rows of header cells only among rows of data (a group's heading row, "2 Portionen" over its
    // ingredients) are no records: the rows holding a data cell are.
    if (members.every((m) => m.name === 'tr' && hasDataCell(m)) && extras.slice(0, 30).every((e) => !hasDataCell(e))) {
      const refined = `${option}:has(> td)`;
      const found = query(refined);
      if (found && sameSet(found, wanted)) return refined;
    }
    // A totals row closing each table, with nothing else to tell it by: the rows but the last.
    if (members.every((m) => !lastChild(m)) && extras.slice(0, 30).every(lastChild)) {
      const refined = `${option}:not(:last-child)`;
      const found = query(refined);
      if (found && sameSet(found, wanted)) return refined;
    }
    const score = hits / matched.length;
    if (!best || score > best.score) best = { selector: option, score };
  }
  // Nothing stable tells the members from the boxes beside them exactly: a class the site's build
  // generated does, on this build of the site (the draft's notes say so, see generatedClassesIn). Their
  // own class first: renamed by a new build, it finds no records, which a Run reports, where a stray's
  // renamed class would let the strays in unseen.
  const ownGenerated = generatedClassesOf(sample).filter((c) => members.every((m) => pageClasses(m).includes(c)));
  const generated = ownGenerated.map((c) => `${sample.name}.${c}`);
  // Or a box around each of them, a build's class its only name (the ingredients' `div.c3f9a1e > ul > li`).
  const steps = [sample.name];
  let around: Element[] = members;
  for (let up = 1; up <= 3; up++) {
    around = around.map((e) => e.parent).filter(isElement);
    if (around.length !== members.length) break;
    const classes = generatedClassesOf(around[0]).filter((c) => around.every((a) => pageClasses(a).includes(c)));
    if (classes.length > 0) generated.push(`${around[0].name}.${classes[0]} > ${steps.join(' > ')}`);
    steps.unshift(around[0].name);
  }
  for (const option of [...generated, ...strayGenerated].slice(0, MAX_GENERATED_TRIES)) {
    try {
      if (sameSet($(option).toArray() as Element[], wanted)) return option;
    } catch {
      // not a selector cheerio reads
    }
  }
  return best && best.score >= 0.8 ? best.selector : null;
}

/** The classes a build generated that a selector names ("div.css-2mx8q1c > a" -> ["css-2mx8q1c"]). */
export function generatedClassesIn(selector: string): string[] {
  return [...selector.matchAll(/\.([A-Za-z_-][\w-]*)/g)].map((m) => m[1]).filter(isGeneratedClass);
}
