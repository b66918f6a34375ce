// The words that name each field concept, in English, German, French, Spanish, Portuguese, Italian, Dutch,
// Japanese and Chinese (simplified and traditional). Kept as data, one list per concept and language, so
// that a language is added by adding words, never by code. The words are the column headers and field
// labels these languages use on shopping, job, news, recipe, event and property pages; they were collected
// by hand and checked against the labels of the real pages in bench/builder-real (no maintained
// multilingual list of field labels exists as a package: translation dictionaries give a word's senses, not
// the short labels pages use). Words are written as on pages; they are compared after normalisation
// (lower case, accents removed: "Größe" and "grosse" are one word), see normalizeWord in naming.ts.
// The first English word of a concept is its default field name. Time of day ('time') is kept apart: its
// values look like dates, but a prompt asking for a date and a time wants two fields.

export type Concept =
  | 'title'
  | 'link'
  | 'image'
  | 'price'
  | 'author'
  | 'date'
  | 'rating'
  | 'description'
  | 'category'
  | 'location'
  | 'company'
  | 'salary'
  | 'reviews'
  | 'sku'
  | 'stock'
  | 'brand'
  | 'tags'
  | 'comments'
  | 'points'
  | 'email'
  | 'phone'
  | 'address'
  | 'year'
  | 'isbn'
  | 'publisher'
  | 'duration'
  | 'status'
  | 'rank'
  | 'quantity'
  | 'reputation'
  | 'area';

export type Language = 'en' | 'de' | 'fr' | 'es' | 'pt' | 'it' | 'nl' | 'ja' | 'zh';

type Words = Partial<Record<Language, string[]>>;

export const CONCEPT_WORDS_BY_LANGUAGE: Record<Concept | 'time', Words> = {
  title: {
    en: ['title', 'name', 'heading', 'headline', 'product', 'subject', 'label'],
    de: ['titel', 'name', 'bezeichnung', 'überschrift', 'schlagzeile', 'produktname'],
    fr: ['titre', 'nom', 'intitulé', 'libellé'],
    es: ['título', 'nombre', 'titular', 'encabezado'],
    pt: ['título', 'nome', 'manchete'],
    it: ['titolo', 'nome', 'intestazione'],
    nl: ['titel', 'naam', 'kop', 'koptekst', 'benaming'],
    ja: [
      'タイトル',
      '名前',
      '名称',
      '商品名',
      '見出し',
      '件名',
      '題名',
      '職種',
      '職種名',
      '品名',
      '作品名',
      '曲名',
      '店名',
      '片名',
    ],
    zh: [
      '标题',
      '標題',
      '名称',
      '名稱',
      '名字',
      '商品名',
      '题目',
      '題目',
      '品名',
      '片名',
      '书名',
      '書名',
      '歌名',
      '店名',
      '作品名',
    ],
  },
  link: {
    en: ['link', 'url', 'href', 'permalink'],
    de: ['verweis', 'adresse_url'],
    fr: ['lien'],
    es: ['enlace', 'vínculo'],
    pt: ['ligação'],
    it: ['collegamento'],
    nl: ['koppeling'],
    ja: ['リンク', 'ＵＲＬ'],
    zh: ['链接', '鏈接', '連結', '网址', '網址'],
  },
  image: {
    en: ['image', 'img', 'photo', 'picture', 'thumbnail', 'thumb', 'cover', 'pic', 'logo'],
    de: ['bild', 'foto', 'vorschaubild'],
    fr: ['photo', 'vignette', 'illustration'],
    es: ['imagen', 'foto', 'miniatura'],
    pt: ['imagem', 'foto', 'miniatura'],
    it: ['immagine', 'foto', 'miniatura'],
    nl: ['afbeelding', 'foto', 'plaatje'],
    ja: ['画像', '写真', 'サムネイル'],
    zh: ['图片', '圖片', '图像', '圖像', '照片', '缩略图'],
  },
  price: {
    en: ['price', 'cost', 'amount', 'fee', 'rent'],
    de: ['preis', 'kosten', 'betrag', 'miete', 'gebühr'],
    fr: ['prix', 'tarif', 'coût', 'montant', 'loyer'],
    es: ['precio', 'coste', 'costo', 'importe', 'tarifa', 'alquiler'],
    pt: ['preço', 'custo', 'valor', 'aluguel', 'aluguer'],
    it: ['prezzo', 'costo', 'importo', 'tariffa', 'affitto'],
    nl: ['prijs', 'kosten', 'bedrag', 'huur', 'tarief'],
    ja: ['価格', '値段', '料金', '税込価格', '販売価格', '家賃', '金額', '税込'],
    zh: ['价格', '價格', '售价', '售價', '价钱', '價錢', '金额', '金額', '租金', '费用', '費用'],
  },
  author: {
    en: ['author', 'writer', 'byline', 'poster', 'user', 'username', 'seller', 'reviewer', 'autor', 'auteur'],
    de: ['autor', 'autorin', 'verfasser', 'verfasserin', 'benutzer', 'nutzer', 'verkäufer'],
    fr: ['auteur', 'auteure', 'rédacteur', 'utilisateur', 'vendeur', 'producteur'],
    es: ['autor', 'autora', 'redactor', 'usuario', 'vendedor'],
    pt: ['autor', 'autora', 'redator', 'usuário', 'utilizador', 'vendedor'],
    it: ['autore', 'autrice', 'redattore', 'utente', 'venditore'],
    nl: ['auteur', 'schrijver', 'gebruiker', 'verkoper'],
    ja: ['著者', '作者', '筆者', '投稿者', '執筆者', 'ユーザー', '出品者'],
    zh: ['作者', '发帖人', '發帖人', '用户', '用戶', '卖家', '賣家', '笔者', '筆者'],
  },
  date: {
    en: ['date', 'published', 'posted', 'updated', 'created', 'day', 'when'],
    de: ['datum', 'tag', 'veröffentlicht', 'erschienen', 'termin'],
    fr: ['date', 'jour', 'publié', 'publication'],
    es: ['fecha', 'día', 'publicado', 'publicación'],
    pt: ['data', 'dia', 'publicado', 'publicação'],
    it: ['data', 'giorno', 'pubblicato', 'pubblicazione'],
    nl: ['datum', 'dag', 'gepubliceerd', 'publicatiedatum'],
    ja: ['日付', '日時', '日', '掲載日', '投稿日', '公開日', '配信日時', '配信日', '発売日', '開催日', '更新日'],
    zh: ['日期', '时间', '時間', '发布时间', '發佈時間', '发表时间', '發表時間', '发布日期', '日子'],
  },
  time: {
    en: ['time'],
    de: ['uhrzeit', 'zeit', 'beginn', 'öffnungszeiten'],
    fr: ['heure', 'horaire', 'horaires'],
    es: ['hora', 'horario'],
    pt: ['hora', 'horário'],
    it: ['ora', 'orario'],
    nl: ['tijd', 'tijden', 'openingstijden', 'aanvang'],
    ja: ['時刻', '時間', '営業時間', '開始時間'],
    zh: ['时刻', '時刻', '营业时间', '營業時間'],
  },
  rating: {
    en: ['rating', 'stars', 'star', 'score', 'rate'],
    de: ['bewertung', 'sterne', 'note', 'wertung'],
    fr: ['note', 'évaluation', 'étoiles', 'score'],
    es: ['valoración', 'calificación', 'puntuación', 'estrellas', 'nota'],
    pt: ['avaliação', 'classificação', 'estrelas', 'nota'],
    it: ['valutazione', 'voto', 'stelle', 'punteggio'],
    nl: ['beoordeling', 'waardering', 'sterren', 'score', 'cijfer'],
    ja: ['評価', '星', 'レーティング', '点数'],
    zh: ['评分', '評分', '评级', '評級', '星级', '星級'],
  },
  description: {
    en: [
      'description',
      'summary',
      'desc',
      'excerpt',
      'blurb',
      'details',
      'detail',
      'text',
      'body',
      'content',
      'snippet',
      'teaser',
    ],
    de: ['beschreibung', 'zusammenfassung', 'text', 'inhalt', 'auszug', 'teaser', 'kurzbeschreibung'],
    fr: ['description', 'résumé', 'texte', 'contenu', 'extrait', 'chapeau'],
    es: ['descripción', 'resumen', 'texto', 'contenido', 'extracto', 'bajada'],
    pt: ['descrição', 'resumo', 'texto', 'conteúdo', 'trecho'],
    it: ['descrizione', 'riassunto', 'sommario', 'testo', 'contenuto', 'estratto'],
    nl: ['beschrijving', 'omschrijving', 'samenvatting', 'tekst', 'inhoud'],
    ja: ['説明', '概要', '本文', '内容', '要約', '詳細'],
    zh: ['描述', '简介', '簡介', '摘要', '内容', '內容', '正文', '说明', '說明'],
  },
  category: {
    en: ['category', 'genre', 'section', 'type', 'kind', 'department'],
    de: ['kategorie', 'rubrik', 'genre', 'art', 'typ', 'ressort'],
    fr: ['catégorie', 'rubrique', 'genre', 'type'],
    es: ['categoría', 'sección', 'género', 'tipo'],
    pt: ['categoria', 'seção', 'secção', 'gênero', 'tipo'],
    it: ['categoria', 'sezione', 'genere', 'tipo'],
    nl: ['categorie', 'rubriek', 'genre', 'soort', 'type'],
    ja: ['カテゴリ', 'カテゴリー', 'ジャンル', '分類', '種類', '雇用形態'],
    zh: ['类别', '類別', '分类', '分類', '类型', '類型', '栏目', '欄目'],
  },
  location: {
    en: ['location', 'city', 'place', 'region', 'country', 'where', 'neighbourhood', 'neighborhood', 'district'],
    de: ['ort', 'stadt', 'standort', 'region', 'land', 'stadtteil', 'bezirk'],
    fr: ['lieu', 'ville', 'localisation', 'région', 'pays', 'quartier'],
    es: ['lugar', 'ciudad', 'ubicación', 'región', 'país', 'localidad', 'barrio'],
    pt: ['local', 'cidade', 'localização', 'região', 'país', 'localidade', 'bairro'],
    it: ['luogo', 'città', 'località', 'regione', 'paese', 'quartiere'],
    nl: ['plaats', 'stad', 'locatie', 'regio', 'land', 'woonplaats', 'wijk', 'buurt'],
    ja: ['場所', '勤務地', '所在地', '地域', '都市'],
    zh: ['地点', '地點', '位置', '城市', '地区', '地區', '工作地点'],
  },
  company: {
    en: ['company', 'employer', 'organization', 'organisation', 'firm'],
    de: ['firma', 'unternehmen', 'arbeitgeber', 'betrieb'],
    fr: ['entreprise', 'société', 'employeur', 'organisation'],
    es: ['empresa', 'compañía', 'empleador', 'organización'],
    pt: ['empresa', 'companhia', 'empregador', 'organização'],
    it: ['azienda', 'società', 'impresa', 'datore'],
    nl: ['bedrijf', 'werkgever', 'onderneming', 'organisatie'],
    ja: ['会社', '会社名', '企業', '企業名', '社名', '雇用主'],
    zh: ['公司', '企业', '企業', '雇主', '单位', '單位', '公司名称'],
  },
  salary: {
    en: ['salary', 'pay', 'wage', 'compensation'],
    de: ['gehalt', 'lohn', 'vergütung', 'stundenlohn'],
    fr: ['salaire', 'rémunération'],
    es: ['salario', 'sueldo', 'remuneración'],
    pt: ['salário', 'remuneração', 'ordenado'],
    it: ['stipendio', 'salario', 'retribuzione'],
    nl: ['salaris', 'loon', 'vergoeding', 'uurloon'],
    ja: ['給与', '給料', '時給', '月給', '年収', '日給'],
    zh: ['薪资', '薪資', '工资', '工資', '薪水', '月薪', '年薪'],
  },
  reviews: {
    en: ['reviews', 'review', 'ratings_count'],
    de: ['rezensionen', 'bewertungen', 'rezension'],
    fr: ['avis', 'critiques'],
    es: ['reseñas', 'opiniones', 'reseña'],
    pt: ['resenhas', 'opiniões', 'análises'],
    it: ['recensioni', 'recensione'],
    nl: ['recensies', 'reviews', 'recensie'],
    ja: ['レビュー', 'レビュー数', '口コミ', 'クチコミ'],
    zh: ['评论数', '評論數', '评价', '評價', '点评', '點評'],
  },
  sku: {
    en: ['sku', 'code', 'id', 'reference', 'ref'],
    de: ['artikelnummer', 'bestellnummer', 'artikelnr'],
    fr: ['référence', 'réf'],
    es: ['referencia', 'código'],
    pt: ['referência', 'código'],
    it: ['codice', 'riferimento'],
    nl: ['artikelnummer', 'referentie', 'code'],
    ja: ['品番', '型番', '商品コード'],
    zh: ['货号', '貨號', '编号', '編號', '型号', '型號'],
  },
  stock: {
    en: ['stock', 'availability', 'available', 'inventory'],
    de: ['lagerbestand', 'verfügbarkeit', 'lieferbar', 'verfügbar', 'bestand'],
    fr: ['stock', 'disponibilité', 'disponible'],
    es: ['existencias', 'disponibilidad', 'disponible'],
    pt: ['estoque', 'disponibilidade', 'disponível'],
    it: ['disponibilità', 'giacenza', 'disponibile', 'magazzino'],
    nl: ['voorraad', 'beschikbaarheid', 'leverbaar', 'beschikbaar'],
    ja: ['在庫', '在庫状況'],
    zh: ['库存', '庫存', '有货', '有貨'],
  },
  brand: {
    en: ['brand', 'maker', 'manufacturer', 'vendor'],
    de: ['marke', 'hersteller'],
    fr: ['marque', 'fabricant'],
    es: ['marca', 'fabricante'],
    pt: ['marca', 'fabricante'],
    it: ['marca', 'marchio', 'produttore'],
    nl: ['merk', 'fabrikant'],
    ja: ['メーカー', 'ブランド', '製造元'],
    zh: ['品牌', '厂商', '廠商', '制造商', '製造商'],
  },
  tags: {
    en: ['tags', 'tag', 'keywords', 'labels'],
    de: ['schlagwörter', 'schlagworte', 'stichwörter'],
    fr: ['étiquettes', 'mots-clés'],
    es: ['etiquetas', 'palabras'],
    pt: ['etiquetas', 'marcadores'],
    it: ['etichette', 'parole'],
    nl: ['trefwoorden', 'labels'],
    ja: ['タグ', 'キーワード'],
    zh: ['标签', '標籤', '关键词', '關鍵詞'],
  },
  comments: {
    en: ['comments', 'comment', 'replies', 'reply'],
    de: ['kommentare', 'kommentar', 'antworten'],
    fr: ['commentaires', 'commentaire', 'réponses'],
    es: ['comentarios', 'comentario', 'respuestas'],
    pt: ['comentários', 'comentário', 'respostas'],
    it: ['commenti', 'commento', 'risposte'],
    nl: ['reacties', 'opmerkingen', 'reactie'],
    ja: ['コメント', '返信', 'コメント数'],
    zh: ['评论', '評論', '留言', '回复', '回覆'],
  },
  points: {
    en: ['points', 'votes', 'upvotes', 'likes', 'karma'],
    de: ['punkte', 'stimmen'],
    fr: ['points', 'votes'],
    es: ['puntos', 'votos'],
    pt: ['pontos', 'votos', 'curtidas'],
    it: ['punti', 'voti'],
    nl: ['punten', 'stemmen'],
    ja: ['ポイント', 'いいね', '得点', '勝ち点'],
    zh: ['积分', '積分', '点赞', '點讚', '票数', '票數'],
  },
  email: {
    en: ['email', 'mail', 'e-mail'],
    de: ['e-mail-adresse', 'e-mailadresse'],
    fr: ['courriel'],
    es: ['correo'],
    pt: ['correio'],
    it: ['posta'],
    nl: ['e-mailadres', 'emailadres'],
    ja: ['メール', 'メールアドレス'],
    zh: ['邮箱', '郵箱', '电子邮件', '電子郵件'],
  },
  phone: {
    en: ['phone', 'telephone', 'tel', 'mobile'],
    de: ['telefon', 'telefonnummer', 'handy', 'mobil'],
    fr: ['téléphone', 'portable'],
    es: ['teléfono', 'móvil'],
    pt: ['telefone', 'celular', 'telemóvel'],
    it: ['telefono', 'cellulare'],
    nl: ['telefoon', 'telefoonnummer', 'mobiel'],
    ja: ['電話', '電話番号', 'ＴＥＬ'],
    zh: ['电话', '電話', '手机', '手機', '联系电话', '聯繫電話'],
  },
  address: {
    en: ['address', 'street'],
    de: ['adresse', 'anschrift', 'straße'],
    fr: ['adresse', 'rue'],
    es: ['dirección', 'domicilio', 'calle'],
    pt: ['endereço', 'morada', 'rua'],
    it: ['indirizzo', 'via'],
    nl: ['adres', 'straat'],
    ja: ['住所', 'アドレス'],
    zh: ['地址', '住址'],
  },
  year: {
    en: ['year'],
    de: ['jahr', 'baujahr'],
    fr: ['année', 'an'],
    es: ['año'],
    pt: ['ano'],
    it: ['anno'],
    nl: ['jaar', 'bouwjaar'],
    ja: ['年', '年式'],
    zh: ['年份', '年度'],
  },
  isbn: { en: ['isbn'] },
  publisher: {
    en: ['publisher', 'press', 'imprint'],
    de: ['verlag', 'quelle', 'herausgeber'],
    fr: ['éditeur', 'source'],
    es: ['editorial', 'fuente'],
    pt: ['editora', 'fonte'],
    it: ['editore', 'fonte'],
    nl: ['uitgever', 'bron'],
    ja: ['出版社', '配信元', '提供元', '出典'],
    zh: ['出版社', '来源', '來源', '出处', '出處'],
  },
  duration: {
    en: ['duration', 'length', 'runtime'],
    de: ['dauer', 'laufzeit', 'zubereitungszeit'],
    fr: ['durée', 'temps'],
    es: ['duración', 'tiempo'],
    pt: ['duração', 'tempo'],
    it: ['durata', 'tempo'],
    nl: ['duur', 'looptijd', 'bereidingstijd'],
    ja: ['所要時間', '調理時間', '再生時間'],
    zh: ['时长', '時長', '用时', '用時', '烹饪时间'],
  },
  status: {
    en: ['status', 'state'],
    de: ['zustand'],
    fr: ['statut', 'état'],
    es: ['estado'],
    pt: ['estado', 'situação'],
    it: ['stato'],
    nl: ['toestand'],
    ja: ['状態', 'ステータス'],
    zh: ['状态', '狀態'],
  },
  rank: {
    en: ['rank', 'ranking', 'position', 'rang', 'platz'],
    de: ['rang', 'platz', 'platzierung', 'position'],
    fr: ['rang', 'classement', 'place'],
    es: ['puesto', 'posición', 'clasificación'],
    pt: ['posição', 'classificação', 'lugar'],
    it: ['posizione', 'classifica', 'piazzamento'],
    nl: ['rang', 'plaats', 'positie', 'klassering'],
    ja: ['順位', 'ランキング', '順番'],
    zh: ['排名', '名次', '排行'],
  },
  quantity: {
    en: ['quantity', 'qty'],
    de: ['menge', 'anzahl', 'portionen', 'stückzahl'],
    fr: ['quantité', 'portions'],
    es: ['cantidad', 'porciones', 'raciones'],
    pt: ['quantidade', 'porções'],
    it: ['quantità', 'porzioni'],
    nl: ['hoeveelheid', 'aantal', 'porties'],
    ja: ['分量', '数量', '量', '個数', '人数'],
    zh: ['用量', '数量', '數量', '份量', '分量'],
  },
  reputation: {
    en: ['reputation'],
    de: ['reputation', 'ansehen', 'ruf'],
    fr: ['réputation'],
    es: ['reputación'],
    pt: ['reputação'],
    it: ['reputazione'],
    nl: ['reputatie'],
    ja: ['評判', '信用'],
    zh: ['声望', '聲望', '信誉', '信譽'],
  },
  area: {
    en: ['area', 'size', 'surface', 'sqm', 'footage'],
    de: ['fläche', 'wohnfläche', 'nutzfläche', 'grundstücksfläche', 'quadratmeter'],
    fr: ['surface', 'superficie'],
    es: ['superficie', 'metros'],
    pt: ['área', 'metragem'],
    it: ['superficie', 'metratura', 'metri'],
    nl: ['oppervlakte', 'woonoppervlakte', 'woonoppervlak'],
    ja: ['面積', '専有面積', '広さ', '床面積'],
    zh: ['面积', '面積', '建筑面积', '建築面積'],
  },
};

/**
 * The words of a question that ask for a concept without naming it: "who wrote ...", "wann", "où",
 * "¿cuándo?". A field asked for so is named by the concept's default name ("author", "date").
 */
export const QUESTION_WORDS_BY_CONCEPT: Partial<Record<Concept, Words>> = {
  author: {
    en: ['wrote'],
    de: ['schrieb'],
    fr: ['écrit'],
    es: ['escribió'],
    pt: ['escreveu'],
    it: ['scritto', 'scrisse'],
    nl: ['schreef'],
  },
  date: { de: ['wann'], fr: ['quand'], es: ['cuándo'], pt: ['quando'], it: ['quando'], nl: ['wanneer'] },
  location: { de: ['wo'], fr: ['où'], es: ['dónde'], pt: ['onde'], it: ['dove'], nl: ['waar'] },
};

/**
 * Words that never name a field, per language: articles, prepositions, conjunctions, instructions, the
 * words of a question or a request ("welche ... brauche ich", "elenca", "教えてください", "需要哪些") and the
 * nouns of the page or of its records ("article", "Anzeige", "recette", "求人").
 */
export const STOP_WORDS_BY_LANGUAGE: Record<Language, string> = {
  en:
    'a an the and or of for from in on at to with by each every all any its it this that these those their them page pages site website ' +
    'list listing listings item items record records entry entries result results row rows card cards get extract scrape scraping take grab collect ' +
    'want need please also include including fetch give me my i us we our field fields column columns data info information value values ' +
    'article articles post posts product products book books job jobs story stories event events property properties listing course courses ' +
    'only just like would could should can will from into is are be as here there then than every first next one two three make build agent ' +
    'follow open visit detail details via use using per which what who how where when show find return out new number total',
  de:
    'und oder der die das den dem des ein eine einer eines einem jede jeder jedes jeden jedem alle allen aller mit von vom für zu zum zur im in ' +
    'auf aus bei sowie auch ihr ihre ihren sein seine seiner seinen dieser diese dieses zeile zeilen eintrag einträge spalte seite liste ' +
    'artikel artikels anzeige anzeigen beitrag beiträge produkt produkte rezept rezepts rezeptes ergebnis ergebnisse angebot angebote ' +
    'welche welcher welches welchen was wer brauche brauchen benötige benötigen gib zeig zeige nenne nenn auflisten ich mir mich wir uns bitte',
  fr:
    'le la les un une des du de d l et ou chaque pour avec ligne lignes sa son ses leur leurs au aux en dans sur par tous toutes tout toute ' +
    'ce cet cette ces page liste article articles annonce annonces produit produits recette recettes émission résultat résultats ' +
    'quels quelles quel quelle qui donne donnez montre montrez affiche listez je moi nous faut besoin',
  es:
    'el la los las un una unos unas y o e u de del al cada con por para en su sus fila filas todos todas todo toda este esta estos estas ' +
    'página lista artículo artículos anuncio anuncios producto productos receta recetas nota notas partido partidos resultado resultados ' +
    'cuáles cuál qué quién dame dime muestra muéstrame enumera necesito necesitamos yo',
  pt:
    'o a os as um uma uns umas e ou de do da dos das cada com por para em no na nos nas seu sua seus suas todos todas todo toda este esta ' +
    'página lista artigo artigos anúncio anúncios produto produtos receita receitas notícia notícias resultado resultados ' +
    'quais qual quê quem mostra mostre liste preciso precisamos eu',
  it:
    'il lo la i gli le un una uno e o di del della dei degli delle dell nell sull dall all al alla ogni con per in nel nella su sul sulla suo sua suoi sue tutti tutte ' +
    'tutto tutta questo questa riga righe pagina lista articolo articoli annuncio annunci prodotto prodotti ricetta ricette risultato risultati ' +
    'quali quale chi dammi mostra mostrami elenca elenco io',
  nl:
    'de het een en of van voor met in op bij uit elk elke ieder iedere alle al zijn haar hun deze dit die rij rijen pagina lijst artikel ' +
    'artikelen advertentie advertenties product producten recept recepten resultaat resultaten winkel ' +
    'welke welk wat geef toon nodig heb ik mij',
  ja:
    'の と や および 及び ごと 毎 各 全て すべて 全部 この その それぞれ ページ 記事 一覧 レシピ 求人 商品 お話 を は が に で から ' +
    '教えて 教え ください 下さい 必要 どの 何 なに 表示 リスト ほしい 欲しい',
  zh:
    '的 和 与 與 及 以及 或 每 每个 每個 每条 每條 每种 每種 各 所有 全部 这 這 该 該 页面 頁面 列表 文章 新闻 新聞 商品 条 條 ' +
    '这个 這個 那个 那個 需要 哪些 什么 什麼 列出 请 請 给我 給我 显示 顯示 我 食谱 食譜',
};

/** Words after which a word names the records themselves ("each job", "jede Anzeige", "每条留言"). */
export const RECORD_MARKERS_BY_LANGUAGE: Record<Language, string[]> = {
  en: ['each', 'every', 'all', 'per', 'any'],
  de: ['jede', 'jeder', 'jedes', 'jeden', 'jedem', 'alle', 'allen', 'pro'],
  fr: ['chaque', 'tous', 'toutes', 'par'],
  es: ['cada', 'todos', 'todas', 'por'],
  pt: ['cada', 'todos', 'todas', 'por'],
  it: ['ogni', 'ciascun', 'ciascuna', 'tutti', 'tutte', 'per'],
  nl: ['elk', 'elke', 'ieder', 'iedere', 'alle', 'per'],
  ja: ['各', '毎', 'すべての', '全ての'],
  zh: ['每', '每个', '每個', '每条', '每條', '每种', '每種', '各', '所有'],
};
