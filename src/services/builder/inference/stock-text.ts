// What a shop writes for whether an item can be bought ("In stock", "Out of stock", "Auf Lager",
// "В наличии", "Épuisé", "在庫あり"), in the prompt languages: a field whose values are such phrases
// answers "availability" or "stock" whatever the prompt's language, as nothing else names it (the same
// words on every card are otherwise taken for a button's text and left out). Phrases, not single words
// of the stock concept ("available" alone is also a flat's or a seat's state): the common forms of
// shop pages, with their negations.
const PHRASES = [
  // en
  'in stock',
  'out of stock',
  'only \\d+ left(?: in stock)?',
  'low stock',
  'sold out',
  'available now',
  'not available',
  'currently unavailable',
  'temporarily unavailable',
  'pre-?order',
  '(?:on )?back-?order(?:ed)?',
  // de
  '(?:nicht )?auf lager',
  '(?:sofort |nicht )?lieferbar',
  '(?:nicht )?vorrätig',
  'ausverkauft',
  // fr, es, pt, it
  'en stock',
  '(?:en )?rupture de stock',
  'épuisé',
  'agotado',
  'sin stock',
  'em estoque',
  'sem estoque',
  'esgotado',
  'esaurito',
  'disponibilità immediata',
  '(?:non )?disponibile',
  // nl, sv, pl, cs, tr, id
  '(?:niet )?op voorraad',
  'uitverkocht',
  '(?:finns )?i lager',
  'slut i lager',
  'tillfälligt slut',
  'w magazynie',
  'brak w magazynie',
  'na stanie',
  '(?:není )?skladem',
  'vyprodáno',
  'stokta(?: var| yok)?',
  'tükendi',
  'stok habis',
  // ru
  '(?:нет )?в наличии',
  'под заказ',
  '(?:нет )?на складе',
  'распродано',
  // ja, zh, ko
  '在庫(?:あり|なし|切れ|僅少)',
  '品切れ',
  '売り切れ',
  '有货',
  '缺货',
  '无货',
  '现货',
  '現貨',
  '售罄',
  '재고\\s?(?:있음|없음)',
  '품절',
];

const STOCK = new RegExp(`^\\s*(?:${PHRASES.join('|')})\\s*[.!]?\\s*$`, 'iu');

/** Is the text a shop's phrase for whether the item is in stock? */
export const isStockText = (text: string): boolean => text.length <= 40 && STOCK.test(text);
