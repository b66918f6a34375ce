// Which pages of the real-pages corpus the Builder may be tuned on. The split is by site, so that no
// site of the holdout is ever looked at while tuning, and it is a fixed rule of the site's name, so
// that it cannot drift towards the pages the Builder happens to do well on:
// - the sites of the first development set were tuned on before the split existed: always tuning;
// - every other site: tuning when the first 32 bits of SHA-256("builder-real:" + site), read as a
//   fraction of 2^32, are below TUNING_SHARE, holdout otherwise. The cut is chosen so that, with the
//   development sites in tuning, about 60 % of all sites tune and 40 % are held out.
import { createHash } from 'node:crypto';

/** Sites of the first development set (tuned on already). */
export const DEVELOPMENT_SITES: readonly string[] = [
  'geizhals.at',
  'zzzcg.me',
  'yelp.com',
  'strand90.nl (via a review site)',
  'github.com',
  'bing.com',
  'duckduckgo.com',
  'yandex.com',
  'amazon.de',
  'amazon.com',
  'ebay.de',
  '90min.de',
  'katzen-forum.net',
  'villagersandheroes.com',
  'chip.de',
  'monsterpetsupplies.co.uk',
  'reuters.com',
  'theverge.com',
  'nature.com',
  'heise.de',
  'phys.org',
  'scmp.com',
  'pcgamer.com',
  'salon.com',
  'dw.com',
];

/** Share of the new sites' hash space that goes to tuning. */
export const TUNING_SHARE = 0.35;

export type Split = 'tuning' | 'holdout';

export function splitOf(site: string): Split {
  if (DEVELOPMENT_SITES.includes(site)) return 'tuning';
  const fraction = createHash('sha256').update(`builder-real:${site}`).digest().readUInt32BE(0) / 2 ** 32;
  return fraction < TUNING_SHARE ? 'tuning' : 'holdout';
}
