// Cards under a header box, on a small page written here: the box's one heading ("Nos partenaires"),
// beside the empty arrows of its carousel, names the cards as a heading right before them does, so a
// prompt naming them finds them even in the footer; and a card's short paragraph under its heading is
// its description when the prompt asks for one.
import { describe, expect, it } from 'vitest';
import { draftRecords } from '../helpers/draft-records.js';

const card = (name: string, text: string, href: string) =>
  `<li class="item"><a href="${href}"><img src="/img/${name}.png" alt=""></a>
   <div class="body"><h3><a href="${href}">${name}</a></h3><p><a href="${href}">${text}</a></p></div></li>`;

const news = (title: string, text: string) =>
  `<div class="teaser"><h3><a href="/actualites/${title.length}">${title}</a></h3><p>${text}</p></div>`;

const page = `<html><body><header><a href="/">Accueil</a> <a href="/agenda">Agenda</a></header>
  <main><h1>Bienvenue</h1>
    <div class="news">
      ${news('Travaux rue des Lilas', 'La rue des Lilas sera fermée à la circulation du 3 au 14 mars pour la réfection des réseaux.')}
      ${news('Inscriptions scolaires', 'Les inscriptions pour la rentrée prochaine sont ouvertes en mairie et en ligne jusqu’au 30 avril.')}
      ${news('Collecte des déchets verts', 'La collecte reprend chaque lundi à partir du mois d’avril ; pensez à sortir vos sacs la veille.')}
      ${news('Conseil municipal', 'La prochaine séance publique du conseil municipal aura lieu jeudi à 19 heures en salle des fêtes.')}
    </div>
  </main>
  <footer>
    <ul class="nav"><li><h2>Nos partenaires</h2></li><li class="prev"></li><li class="next"></li></ul>
    <div class="partners"><ul>
      ${card('bibliotheque.fr', 'Livres, revues et animations', 'https://bibliotheque.fr/')}
      ${card('piscine-municipale.fr', 'Horaires, tarifs et cours de natation', 'https://piscine-municipale.fr/')}
      ${card('theatre-en-ville.fr', 'Programme de la saison et billetterie', 'https://theatre-en-ville.fr/')}
      ${card('musee-local.fr', 'Collections, expositions et visites guidées', 'https://musee-local.fr/')}
    </ul></div>
    <p>Mentions légales</p></footer></body></html>`;

describe('cards under a header box', () => {
  it('takes the cards the header box names, with the paragraph under each heading as the description', async () => {
    const { records } = await draftRecords(page, 'nom, description et lien de chacun de nos partenaires');
    expect(records).toHaveLength(4);
    expect(records[1]).toEqual({
      nom: 'piscine-municipale.fr',
      description: 'Horaires, tarifs et cours de natation',
      lien: 'https://piscine-municipale.fr/',
    });
  });
});
