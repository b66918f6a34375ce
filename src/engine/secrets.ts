export const SECRET_MASK = '********';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * Builds a function replacing every secret with ********. Secrets also appear URL-encoded
 * (they are substituted into URLs) or HTML-escaped (pages echo them), so those forms are masked too.
 */
export function createMasker(secrets: Iterable<string> = []): (text: string) => string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (!secret) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(encodeURIComponent(secret).replace(/%20/g, '+'));
    forms.add(encodeURI(secret));
    forms.add(escapeHtml(secret));
  }
  if (forms.size === 0) return (text) => text;
  // Longest first, so a secret containing another one is masked whole.
  const pattern = new RegExp([...forms].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|'), 'g');
  return (text) => text.replace(pattern, SECRET_MASK);
}
