// What files an article page and what only stands around it: the links of its categories or tags (a run
// of short links, "<a>City</a>, <a>Money</a>"), a sidebar's boxes listing the whole site's categories, and
// the site's account menu ("Sign In") that a class for the user may name like an author.
import type { CheerioAPI } from 'cheerio';
import { normalizeText } from './dom-text.js';

/** A section's name is a few words (longer texts are teasers and sentences). */
export const SECTION_MAX_LENGTH = 40;
import type { Element } from './selectors.js';

/**
 * The site's own boxes around a page: its side column (an <aside>, a box classed or named as a sidebar or a
 * widget) and its navigation (a <nav>, a box of that role or classed as one, as a header's "Categories" menu).
 */
const SITE_BOXES =
  'aside, nav, [role="navigation"], [class*="sidebar" i], [id*="sidebar" i], [class*="widget" i], [class*="navigation" i]';

/** Whether an element stands in the site's side column or navigation, not in the page's own content. */
export function inSiteBox($: CheerioAPI, el: Element): boolean {
  // A page's <body> classed for its navigation's style ("standardnavigation-site-navigation") is no box.
  const box = $(el).closest(SITE_BOXES).first();
  return box.length > 0 && !box.is('body, html');
}

/** A box whose text is all in two or more links of a name's length each (categories, tags). */
export function shortLinksOnly(box: ReturnType<CheerioAPI>): boolean {
  const texts = box
    .find('a')
    .toArray()
    .map((a) => normalizeText(box.find(a).text()));
  const bare = (t: string) => t.replace(/[\s,;|·/]+/g, '');
  return (
    texts.length >= 2 &&
    texts.every((t) => t !== '' && t.length <= SECTION_MAX_LENGTH) &&
    bare(texts.join('')) === bare(box.text())
  );
}

/** The site's account menu ("Sign In", "Anmelden", "ログイン"), in the prompts' languages. */
const ACCOUNT_ACTION =
  /^(?:sign ?in|log ?in|sign ?up|register|my account|anmelden|einloggen|registrieren|mein konto|connexion|se connecter|s'identifier|iniciar sesión|entrar|acceder|accedi|registrati|inloggen|aanmelden|ログイン|登录|登入|войти|вход|zaloguj(?: się)?)$/i;

/** Whether a text is an action of the site's account menu: a box classed "user" saying it names no author. */
export function isAccountAction(text: string): boolean {
  return ACCOUNT_ACTION.test(normalizeText(text));
}
