/** `{{name}}` placeholders of a start URL (whitespace inside the braces is allowed). */
const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;

/** Distinct placeholder names in order of first appearance. */
export function placeholdersOf(template: string): string[] {
  const names = new Set<string>();
  for (const match of template.matchAll(PLACEHOLDER)) names.add(match[1]);
  return [...names];
}

/** True once the text has passed the scheme and authority of a URL (we are in path, query or fragment). */
function insideUrlPath(textSoFar: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*[/?#]/i.test(textSoFar);
}

/**
 * Replaces placeholders with values, left to right. A value landing in the path, query or fragment is
 * percent-encoded (encodeURIComponent) so it cannot break the URL; a value landing before that
 * (e.g. `{{baseUrl}}/search`) is inserted as is, since it is meant to be URL syntax.
 * A name without a value becomes the empty string and is reported in `missing`.
 */
export function substitutePlaceholders(
  template: string,
  values: Record<string, string | undefined>,
): { text: string; missing: string[] } {
  const missing: string[] = [];
  let text = '';
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    text += template.slice(last, match.index);
    const value = values[match[1]];
    if (value === undefined) {
      if (!missing.includes(match[1])) missing.push(match[1]);
    } else {
      text += insideUrlPath(text) ? encodeURIComponent(value) : value;
    }
    last = match.index + match[0].length;
  }
  text += template.slice(last);
  return { text, missing };
}

/**
 * Replaces placeholders in text that is not a URL (a header, a cookie, a form value, a body): values are
 * inserted as they are. A name without a value becomes the empty string and is reported in `missing`.
 */
export function fillPlaceholders(
  template: string,
  values: Record<string, string | undefined>,
): { text: string; missing: string[] } {
  const missing: string[] = [];
  const text = template.replace(PLACEHOLDER, (_, name: string) => {
    const value = values[name];
    if (value === undefined && !missing.includes(name)) missing.push(name);
    return value ?? '';
  });
  return { text, missing };
}
