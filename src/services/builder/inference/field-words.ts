// Words for fields that name no concept of concept-words.ts (they need no value shape of their own),
// in the languages of the prompts, each group one meaning: a prompt's "eenheid" is a page's `span.unit`,
// its "rival" a column headed "Opponent". Pages label and class their values in English or in their own
// language, whatever the prompt's language is. Kept as data: a word is added to a group, a meaning as
// a group. Words are compared after normalisation (lower case, accents removed).
import { normalizeWord } from './word-tokens.js';

const GROUPS: string[][] = [
  [
    'subheadline',
    'subtitle',
    'standfirst',
    'dek',
    'untertitel',
    'unterzeile',
    'sous-titre',
    'chapeau',
    'subtítulo',
    'entradilla',
    'sottotitolo',
    'ondertitel',
    'サブタイトル',
    '副标题',
    '副標題',
  ],
  ['artist', 'künstler', 'artiste', 'artista', 'kunstenaar', 'アーティスト', '歌手', '艺术家', '藝術家'],
  [
    'producer',
    'produzent',
    'producteur',
    'productor',
    'produtor',
    'produttore',
    'producent',
    'プロデューサー',
    '制作人',
  ],
  ['unit', 'einheit', 'unité', 'unidad', 'unidade', 'unità', 'eenheid', '単位', '单位', '單位'],
  [
    'opponent',
    'gegner',
    'adversaire',
    'rival',
    'adversario',
    'adversário',
    'avversario',
    'tegenstander',
    '対戦相手',
    '对手',
    '對手',
  ],
  ['result', 'ergebnis', 'résultat', 'resultado', 'risultato', 'uitslag', 'resultaat', '結果', '结果', '比分'],
  [
    'venue',
    'spielort',
    'austragungsort',
    'lieu',
    'salle',
    'recinto',
    'sede',
    'luogo',
    'locatie',
    '会場',
    '场馆',
    '場館',
  ],
  ['team', 'mannschaft', 'équipe', 'equipo', 'equipe', 'squadra', 'ploeg', 'チーム', '球队', '球隊'],
  ['player', 'spieler', 'joueur', 'jugador', 'jogador', 'giocatore', 'speler', '選手', '球员', '球員'],
  ['position', 'pos', 'poste', 'posición', 'posição', 'posizione', 'positie', 'ポジション', '位置'],
  ['height', 'körpergröße', 'taille', 'altura', 'altezza', 'lengte', '身長', '身高'],
  ['weight', 'gewicht', 'poids', 'peso', '体重'],
  ['colour', 'color', 'farbe', 'couleur', 'cor', 'colore', 'kleur', '色', '颜色', '顏色'],
  ['calories', 'kalorien', 'calorías', 'calorias', 'calorie', 'calorieën', 'カロリー', '热量', '熱量'],
  [
    'competition',
    'comp',
    'wettbewerb',
    'compétition',
    'competición',
    'competição',
    'competizione',
    'competitie',
    '大会',
    '赛事',
    '賽事',
  ],
  ['goals', 'tore', 'buts', 'goles', 'gols', 'gol', 'doelpunten', '得点', '进球', '進球'],
  [
    'hours',
    'öffnungszeiten',
    'horaires',
    'horario',
    'horário',
    'orario',
    'openingstijden',
    '営業時間',
    '营业时间',
    '營業時間',
  ],
  ['day', 'tag', 'wochentag', 'jour', 'día', 'dia', 'giorno', 'dag', '曜日', '星期'],
  [
    'instructions',
    'zubereitung',
    'préparation',
    'preparación',
    'preparo',
    'preparazione',
    'bereiding',
    '作り方',
    '做法',
  ],
  ['floor', 'etage', 'stockwerk', 'étage', 'planta', 'andar', 'piano', 'verdieping', '階', '楼层', '樓層'],
  ['minute', 'minuto', 'minuut', 'minut', 'minuta', 'spielminute', '分'],
];

const GROUP_OF = new Map<string, number>();
GROUPS.forEach((group, i) => {
  for (const w of group) GROUP_OF.set(normalizeWord(w), i);
});

/** The word and the words of the same meaning in the other languages (normalised). */
export function fieldWordVariants(word: string): string[] {
  const group = GROUP_OF.get(normalizeWord(word));
  return group === undefined ? [word] : [word, ...GROUPS[group].map(normalizeWord).filter((w) => w !== word)];
}
