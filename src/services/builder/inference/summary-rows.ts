// A statistics table's totals row ("Total", "Gesamt", "Итого", "合計"): the sum of the rows above it, not
// one more record. Told by the word opening its first cell with text, in the prompt languages.
import type { CheerioAPI } from 'cheerio';
import { subtreeText, subtreeTextLength } from './dom-text.js';
import { elementChildren, type Element } from './selectors.js';

const TOTALS =
  /^(?:totals?|grand total|team totals?|gesamt|insgesamt|summe|gesamtsumme|total général|totaux|totale|totales|totaal|totalt|summa|razem|suma|celkem|toplam|jumlah|итого|всего|合計|総計|合计|總計|总计|합계|총계)\s*[:：]?$/iu;

/** Is the row a totals row: its first cell with text says so? */
export function isTotalsRow($: CheerioAPI, row: Element): boolean {
  if (row.name !== 'tr') return false;
  const first = elementChildren(row).find((c) => subtreeTextLength(c) > 0);
  return first !== undefined && TOTALS.test(subtreeText(first));
}
