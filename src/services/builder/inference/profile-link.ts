// A link to a person's page on the site: its address names it in the words sites use for their users'
// and authors' pages ("/members/tiberius.123/", "member.php?u=42", "/user_details?userid=…",
// "/profile/ada", "/autor/maria"), whatever the page's class names say. The text of such a link is the
// person: a post's or a review's author. Not a directory's "/people/…" or "/team/…": a person listed
// there is the record itself, named, not an author.

/** Words of an address leading to a person's page, in the languages of the pages met. */
const PROFILE_WORDS = new Set(
  (
    'user users member members profile profiles viewprofile author authors writer writers contributor contributors ' +
    'userid username uid memberid ' +
    'benutzer nutzer mitglied mitglieder profil autor autoren ' +
    'utilisateur utilisateurs membre membres auteur auteurs ' +
    'usuario usuarios miembro miembros perfil autores ' +
    'utente utenti membro membri profilo autore autori ' +
    'gebruiker gebruikers lid leden auteurs ' +
    'uzytkownik profil autor ' +
    'polzovatel'
  ).split(' '),
);

/** The longest text of a person's name in a link. */
const NAME_MAX_LENGTH = 40;

/** The words of an address's path and query keys ("member.php?u=1" -> member, php, u). */
function addressWords(href: string): string[] {
  let url: URL;
  try {
    url = new URL(href, 'http://page.invalid/');
  } catch {
    return [];
  }
  const keys = [...url.searchParams.keys()];
  return `${url.pathname} ${keys.join(' ')}`
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}]+/u)
    .filter((w) => w.length > 0);
}

/** Whether a link with address `href` and text `text` is a person's name leading to their page. */
export function isProfileLink(href: string | undefined, text: string): boolean {
  if (!href || text === '' || text.length > NAME_MAX_LENGTH || /^\d/.test(text)) return false;
  return addressWords(href).some((w) => PROFILE_WORDS.has(w));
}
