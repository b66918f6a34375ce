export const SECRET_MASK = '********';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

// A URL inside a message or page: scheme, user-info (optional), host and port.
const URL_AUTHORITY = /\b[a-z][a-z0-9+.-]*:\/\/(?:([^\s"'<>/?#@]*)@)?([^\s"'<>/?#]*)/gi;

/**
 * Builds a function replacing every secret with ********. Secrets also appear URL-encoded
 * (they are substituted into URLs) or HTML-escaped (pages echo them), so those forms are masked too.
 * A secret found strictly inside the host of a URL is left alone: it only happens to be part of a
 * host name, and masking it would garble which URL failed (a host that is entirely a secret is
 * masked). A password in a URL's user-info is always masked.
 */
export function createMasker(secrets: Iterable<string> = []): (text: string) => string {
  const pattern = secretPattern(secrets);
  return (text) => {
    // Without secrets only a URL's user-info password is masked, and user-info needs an '@'.
    if (pattern === null && !text.includes('@')) return text;
    const hosts: Array<[number, number]> = [];
    const passwords: Array<[number, number]> = [];
    for (const m of text.matchAll(URL_AUTHORITY)) {
      const userinfoEnd = m[1] === undefined ? -1 : m.index + m[0].length - m[2].length - 1;
      if (m[1] !== undefined && m[1].includes(':'))
        passwords.push([userinfoEnd - m[1].length + m[1].indexOf(':') + 1, userinfoEnd]);
      hosts.push([m.index + m[0].length - m[2].length, m.index + m[0].length]);
    }
    const ranges: Array<[number, number]> = [...passwords];
    if (pattern) {
      for (const m of text.matchAll(pattern)) {
        const start = m.index;
        const end = start + m[0].length;
        const insideHost = hosts.some(([hs, he]) => start >= hs && end <= he && (start > hs || end < he));
        if (!insideHost) ranges.push([start, end]);
      }
    }
    if (ranges.length === 0) return text;
    ranges.sort((a, b) => a[0] - b[0]);
    let out = '';
    let last = 0;
    for (const [start, end] of ranges) {
      if (end <= last) continue;
      out += text.slice(last, Math.max(last, start)) + SECRET_MASK;
      last = end;
    }
    return out + text.slice(last);
  };
}

function secretPattern(secrets: Iterable<string>): RegExp | null {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (!secret) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(encodeURIComponent(secret).replace(/%20/g, '+'));
    forms.add(encodeURI(secret));
    forms.add(escapeHtml(secret));
  }
  if (forms.size === 0) return null;
  // Longest first, so a secret containing another one is masked whole.
  return new RegExp(
    [...forms]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|'),
    'g',
  );
}
