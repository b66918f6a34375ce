// The nouns prompts use for the records they want (ingredients, reviews, comments, products...) in the
// languages of concept-words.ts, each under one English word. Pages name their lists in markup with
// English words far more often than in their own language (`li.ingredient`, `div.comment-body`,
// `section#reviews`) while prompts are written in the user's language ("材料", "Kommentare",
// "avis"): a prompt's record noun is compared with the page's names through its English word too.
// Kept as data: a language or a noun is added by adding words. Latin words are compared after
// normalisation (lower case, accents removed) and by stem (topic.ts), so one inflection per word is
// enough; CJK words are compared as written.
import { normalizeWord } from './word-tokens.js';

const RECORD_NOUNS: Record<string, string[]> = {
  ingredient: [
    'zutat',
    'zutaten',
    'ingrédient',
    'ingrediente',
    'ingrediënt',
    'ingredienser',
    'ingrediens',
    '材料',
    '食材',
    '配料',
    '原料',
    '用料',
  ],
  review: [
    'bewertung',
    'rezension',
    'avis',
    'critique',
    'reseña',
    'opinión',
    'avaliação',
    'recensione',
    'beoordeling',
    'recensie',
    'レビュー',
    '口コミ',
    'クチコミ',
    '评论',
    '評論',
    '评价',
    '評價',
  ],
  comment: [
    'kommentar',
    'commentaire',
    'comentario',
    'comentário',
    'commento',
    'reactie',
    'opmerking',
    'コメント',
    '留言',
    '评论',
    '評論',
  ],
  product: [
    'produkt',
    'artikel',
    'produit',
    'producto',
    'produto',
    'prodotto',
    'articolo',
    'product',
    '商品',
    '製品',
    '产品',
    '產品',
  ],
  job: [
    'stelle',
    'stellenangebot',
    'jobangebot',
    'emploi',
    'offre',
    'empleo',
    'vacante',
    'oferta',
    'vaga',
    'emprego',
    'lavoro',
    'offerta',
    'vacature',
    'baan',
    '求人',
    '仕事',
    '职位',
    '職位',
    '工作',
  ],
  article: [
    'artikel',
    'beitrag',
    'nachricht',
    'meldung',
    'article',
    'artículo',
    'noticia',
    'notícia',
    'artigo',
    'articolo',
    'notizia',
    'nieuwsbericht',
    'bericht',
    '記事',
    'ニュース',
    '文章',
    '新闻',
    '新聞',
  ],
  result: [
    'ergebnis',
    'suchergebnis',
    'résultat',
    'resultado',
    'risultato',
    'resultaat',
    'zoekresultaat',
    '結果',
    '検索結果',
    '结果',
    '搜索结果',
  ],
  game: ['spiel', 'partie', 'match', 'partido', 'jogo', 'partita', 'wedstrijd', '試合', '比赛', '比賽'],
  recipe: ['rezept', 'recette', 'receta', 'receita', 'ricetta', 'recept', 'oppskrift', 'レシピ', '食谱', '食譜'],
  listing: [
    'wohnung',
    'angebot',
    'inserat',
    'annonce',
    'logement',
    'anuncio',
    'piso',
    'vivienda',
    'imóvel',
    'annuncio',
    'woning',
    'aanbod',
    '物件',
    '房源',
    '房屋',
  ],
  event: ['veranstaltung', 'termin', 'événement', 'évènement', 'evento', 'evenement', 'イベント', '活动', '活動'],
  person: ['person', 'mitarbeiter', 'personne', 'persona', 'pessoa', 'persoon', 'medewerker', '人物', '人员'],
  member: ['mitglied', 'membre', 'miembro', 'membro', 'lid', 'leden', 'メンバー', '成员', '成員'],
  post: [
    'beitrag',
    'eintrag',
    'message',
    'publication',
    'mensaje',
    'publicación',
    'mensagem',
    'messaggio',
    'bericht',
    '投稿',
    '帖子',
    '貼文',
  ],
  question: ['frage', 'question', 'pregunta', 'pergunta', 'domanda', 'vraag', '質問', '问题', '問題'],
  answer: ['antwort', 'réponse', 'respuesta', 'resposta', 'risposta', 'antwoord', '回答', '答案'],
  episode: ['folge', 'épisode', 'episodio', 'episódio', 'aflevering', 'エピソード', '剧集'],
  step: ['schritt', 'étape', 'paso', 'passo', 'stap', '手順', '步骤', '步驟'],
  player: ['spieler', 'joueur', 'jugador', 'jogador', 'giocatore', 'speler', '選手', '球员', '球員'],
  team: ['mannschaft', 'verein', 'équipe', 'equipo', 'equipe', 'squadra', 'ploeg', 'チーム', '球队', '球隊'],
  book: ['buch', 'livre', 'libro', 'livro', 'boek', '書籍', '图书', '圖書'],
  hotel: ['unterkunft', 'hôtel', 'alojamiento', 'alojamento', 'albergo', 'accommodatie', 'ホテル', '酒店', '飯店'],
  company: [
    'unternehmen',
    'firma',
    'entreprise',
    'société',
    'empresa',
    'azienda',
    'società',
    'bedrijf',
    '会社',
    '企業',
    '公司',
  ],
  story: ['geschichte', 'histoire', 'historia', 'história', 'storia', 'verhaal', 'お話', '物語', '故事'],
  letter: ['leserbrief', 'lettre', 'carta', 'lettera', 'ingezonden', '投書', '来信'],
  quote: ['zitat', 'citation', 'cita', 'citação', 'citazione', 'citaat', '名言', '引用', '语录', '語錄'],
};

/** Every record noun of the lists, in every language (CJK ones split prompts written without spaces). */
export const RECORD_NOUN_WORDS: readonly string[] = Object.values(RECORD_NOUNS).flat();

const ENGLISH_OF = new Map<string, string[]>();
for (const [english, words] of Object.entries(RECORD_NOUNS)) {
  for (const w of [english, ...words]) {
    const key = normalizeWord(w);
    ENGLISH_OF.set(key, [...new Set([...(ENGLISH_OF.get(key) ?? []), english])]);
  }
}

/** The English record nouns a prompt word may stand for ("Zutaten" -> ingredient, "材料" -> ingredient). */
export function englishRecordNouns(word: string): string[] {
  const key = normalizeWord(word);
  const exact = ENGLISH_OF.get(key);
  if (exact) return exact;
  // Latin inflections: "ingrédients", "Kommentare", "recensioni" share the listed word's stem.
  if (/^[a-z]{4,}$/.test(key)) {
    for (const [listed, english] of ENGLISH_OF) {
      if (!/^[a-z]{5,}$/.test(listed)) continue;
      let common = 0;
      while (common < listed.length && common < key.length && listed[common] === key[common]) common++;
      if (common >= Math.min(listed.length, key.length) - 1 && common >= 4 && Math.abs(listed.length - key.length) <= 3)
        return english;
    }
  }
  return [];
}
