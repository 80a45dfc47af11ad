/**
 * The words a user answers a question with, by language (the session's, and English beside
 * it): numbers, places in a list ("the second"), all or none of a list, how an email address
 * is said. For the languages of TOOL_CONFIRM_YES's default phrases: en, it, es, fr, pt, de.
 * Words are compared folded (`fold`): lower case, accents taken off. Pure: no Nest import.
 */
import { fold } from '../common/plain-words.js';
import { languageCode } from '../common/language-code.js';

/** How a number word adds to the number it is part of. */
export type NumberKind =
  /** 0–19, and a few more said as one word (Spanish "veintitrés"). */
  | 'unit'
  /** 20, 30, … 90 (and the French "dix", which takes a unit after it: "dix-sept"). */
  | 'tens'
  /** A hundred, which multiplies what comes before it ("three hundred", "trecento"). */
  | 'hundred'
  /** 200 … 900 said as one word ("doscientos", "duzentos"). */
  | 'hundreds'
  /** A thousand, a million: multiply all before them. */
  | 'scale'
  /** "and" inside a number ("two hundred and ten", "treinta y dos", "vingt et un"). */
  | 'and'
  /** The decimal point said ("two point five", "due virgola cinque"). */
  | 'point'
  /** A sign before a number ("minus five", "meno cinque"; not "più o meno"). */
  | 'minus';

export interface NumberWord {
  kind: NumberKind;
  value: number;
  /** An indefinite article too ("un tavolo"): a number only when no other is said. */
  article?: boolean;
  /** An "and" that joins a unit to the tens after it (German "und"). */
  unitAndTens?: boolean;
}

export interface AnswerWords {
  numbers: ReadonlyMap<string, NumberWord>;
  /** Whether number words are written together ("ventitré", "dreiundzwanzig"). */
  compounds: boolean;
  /** Whether digits are written "1.250,5" (a decimal comma), not "1,250.5". */
  decimalComma: boolean;
  /** The words for each place from the first on (each form of it). */
  ordinals: readonly (readonly string[])[];
  last: readonly string[];
  all: readonly string[];
  none: readonly string[];
  /** "Or", in the session's language (English's for a language not known here). */
  or: string;
  /** How "@" and "." are said in an email address. */
  at: readonly string[];
  dot: readonly string[];
}

interface Spec {
  /** Words of 0, 1, 2, … (a slash between the forms of one: "uno/un/una"). */
  units: string;
  /** Words of 20, 30, … 90. */
  tens: string;
  /** Words of 21, 22, … 29, when said as one word (Spanish "veintitrés"). */
  twenties?: string;
  hundred: string;
  /** Words of 200, 300, … 900, when said as one word. */
  hundreds?: string;
  thousand: string;
  million: string;
  and: string;
  point: string;
  minus: string;
  or: string;
  articles?: string;
  /** Default true: "1.250,5"; English writes "1,250.5". */
  decimalComma?: boolean;
  /** Whether "and" joins a unit to the tens after it (German "dreiundzwanzig"). */
  unitAndTens?: boolean;
  /** More words, each with its kind and value. */
  extra?: readonly [string, NumberKind, number][];
  compounds?: boolean;
  ordinals: string;
  last: string;
  all: string;
  none: string;
  at: string;
  dot: string;
}

const forms = (list: string) => list.split(' ').map((forms) => forms.split('/').map(fold));

function compile(spec: Spec): AnswerWords {
  const numbers = new Map<string, NumberWord>();
  const put = (words: string, kind: NumberKind, value: number) => {
    for (const word of words.split('/')) numbers.set(fold(word), { kind, value });
  };
  forms(spec.units).forEach((words, n) => put(words.join('/'), 'unit', n));
  forms(spec.tens).forEach((words, n) => put(words.join('/'), 'tens', (n + 2) * 10));
  forms(spec.twenties ?? '').forEach((words, n) => put(words.join('/'), 'unit', n + 21));
  put(spec.hundred, 'hundred', 100);
  forms(spec.hundreds ?? '').forEach((words, n) => put(words.join('/'), 'hundreds', (n + 2) * 100));
  put(spec.thousand, 'scale', 1000);
  put(spec.million, 'scale', 1_000_000);
  for (const word of spec.and.split('/'))
    numbers.set(fold(word), {
      kind: 'and',
      value: 0,
      ...(spec.unitAndTens && { unitAndTens: true }),
    });
  put(spec.point, 'point', 0);
  put(spec.minus, 'minus', 0);
  for (const [words, kind, value] of spec.extra ?? []) put(words, kind, value);
  for (const word of spec.articles?.split('/') ?? [])
    numbers.set(fold(word), { kind: 'unit', value: 1, article: true });
  numbers.delete('');
  const list = (words: string) => words.split('/').map(fold);
  return {
    numbers,
    compounds: spec.compounds ?? false,
    decimalComma: spec.decimalComma ?? true,
    ordinals: forms(spec.ordinals),
    last: list(spec.last),
    all: list(spec.all),
    none: list(spec.none),
    or: spec.or,
    at: list(spec.at),
    dot: list(spec.dot),
  };
}

const SPECS: Record<string, Spec> = {
  en: {
    units:
      'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen',
    tens: 'twenty thirty forty fifty sixty seventy eighty ninety',
    hundred: 'hundred',
    thousand: 'thousand',
    million: 'million/millions',
    and: 'and',
    point: 'point',
    minus: 'minus/negative',
    or: 'or',
    decimalComma: false,
    ordinals: 'first second third fourth fifth sixth seventh eighth ninth tenth',
    last: 'last',
    all: 'all/all of them/everything/every one/each of them/both',
    none: 'none/none of them/nothing/neither',
    at: 'at',
    dot: 'dot',
  },
  it: {
    units:
      'zero uno due tre quattro cinque sei sette otto nove dieci undici dodici tredici quattordici quindici sedici diciassette diciotto diciannove',
    // "vent", "trent", …: as written before "uno" and "otto" ("trentuno", "ventotto").
    tens: 'venti/vent trenta/trent quaranta/quarant cinquanta/cinquant sessanta/sessant settanta/settant ottanta/ottant novanta/novant',
    hundred: 'cento/cent',
    thousand: 'mille/mila',
    million: 'milione/milioni',
    and: 'e',
    point: 'virgola',
    minus: 'meno',
    or: 'o',
    articles: 'un/una/uno',
    compounds: true,
    ordinals:
      'primo/prima secondo/seconda terzo/terza quarto/quarta quinto/quinta sesto/sesta settimo/settima ottavo/ottava nono/nona decimo/decima',
    last: 'ultimo/ultima',
    all: 'tutti/tutte/tutto/tutti quanti/tutte quante/tutti e due/tutte e due/entrambi/entrambe',
    none: 'nessuno/nessuna/niente/nulla/nessuno dei due/nessuna delle due',
    at: 'chiocciola/at',
    dot: 'punto',
  },
  es: {
    units:
      'cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciséis diecisiete dieciocho diecinueve',
    tens: 'veinte treinta cuarenta cincuenta sesenta setenta ochenta noventa',
    hundred: 'cien/ciento',
    hundreds:
      'doscientos/doscientas trescientos/trescientas cuatrocientos/cuatrocientas quinientos/quinientas seiscientos/seiscientas setecientos/setecientas ochocientos/ochocientas novecientos/novecientas',
    thousand: 'mil',
    million: 'millón/millones',
    and: 'y',
    point: 'coma/punto',
    minus: 'menos',
    or: 'o',
    articles: 'un/una',
    twenties:
      'veintiuno/veintiún veintidós veintitrés veinticuatro veinticinco veintiséis veintisiete veintiocho veintinueve',
    ordinals:
      'primero/primera/primer segundo/segunda tercero/tercera/tercer cuarto/cuarta quinto/quinta sexto/sexta séptimo/séptima octavo/octava noveno/novena décimo/décima',
    last: 'último/última',
    all: 'todos/todas/todo/todos ellos/todas ellas/los dos/las dos/ambos/ambas',
    none: 'ninguno/ninguna/nada/ninguno de ellos/ninguna de ellas',
    at: 'arroba',
    dot: 'punto',
  },
  fr: {
    units:
      'zéro un/une deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize',
    tens: 'vingt/vingts trente quarante cinquante soixante septante quatre-vingt/quatre-vingts/huitante/octante nonante',
    hundred: 'cent/cents',
    thousand: 'mille/mil',
    million: 'million/millions',
    and: 'et',
    point: 'virgule',
    minus: 'moins',
    or: 'ou',
    articles: 'un/une',
    // "dix-sept", "soixante-dix-neuf": ten takes a unit after it.
    extra: [['dix', 'tens', 10]],
    ordinals:
      'premier/première deuxième/second/seconde troisième quatrième cinquième sixième septième huitième neuvième dixième',
    last: 'dernier/dernière',
    all: "tous/toutes/tout/tous les deux/toutes les deux/tous d'entre eux",
    none: 'aucun/aucune/rien/aucun des deux/aucune des deux',
    at: 'arobase/arrobase/at',
    dot: 'point',
  },
  pt: {
    units:
      'zero um/uma dois/duas três quatro cinco seis sete oito nove dez onze doze treze catorze/quatorze quinze dezesseis/dezasseis dezessete/dezassete dezoito dezenove/dezanove',
    tens: 'vinte trinta quarenta cinquenta sessenta setenta oitenta noventa',
    hundred: 'cem/cento',
    hundreds:
      'duzentos/duzentas trezentos/trezentas quatrocentos/quatrocentas quinhentos/quinhentas seiscentos/seiscentas setecentos/setecentas oitocentos/oitocentas novecentos/novecentas',
    thousand: 'mil',
    million: 'milhão/milhões',
    and: 'e',
    point: 'vírgula',
    minus: 'menos',
    or: 'ou',
    articles: 'um/uma',
    ordinals:
      'primeiro/primeira segundo/segunda terceiro/terceira quarto/quarta quinto/quinta sexto/sexta sétimo/sétima oitavo/oitava nono/nona décimo/décima',
    last: 'último/última',
    all: 'todos/todas/tudo/os dois/as duas/ambos/ambas',
    none: 'nenhum/nenhuma/nada/nenhum deles/nenhuma delas',
    at: 'arroba',
    dot: 'ponto',
  },
  de: {
    units:
      'null eins/ein zwei/zwo drei vier fünf sechs sieben acht neun zehn elf zwölf dreizehn vierzehn fünfzehn sechzehn siebzehn achtzehn neunzehn',
    tens: 'zwanzig dreißig vierzig fünfzig sechzig siebzig achtzig neunzig',
    hundred: 'hundert',
    thousand: 'tausend',
    million: 'million/millionen',
    and: 'und',
    point: 'komma',
    minus: 'minus',
    or: 'oder',
    articles: 'ein/eine/einen/einem/einer',
    // "drei und zwanzig": a unit, and, its tens.
    unitAndTens: true,
    compounds: true,
    ordinals: ordinalForms('erst zweit dritt viert fünft sechst siebt acht neunt zehnt'),
    last: ordinalForms('letzt'),
    all: 'alle/alles/alle davon/beide',
    none: 'keine/keiner/keins/keines/nichts/keine davon',
    at: 'at/ät',
    dot: 'punkt',
  },
};

/** German ordinals with each ending ("erste", "ersten", "erster", …). */
function ordinalForms(stems: string): string {
  const endings = ['e', 'en', 'er', 'es', 'em'];
  return stems
    .split(' ')
    .map((stem) => endings.map((e) => stem + e).join('/'))
    .join(' ');
}

const COMPILED = new Map<string, AnswerWords>();

/** The answer words of `language` (a tag: "it", "pt-BR") with English's beside them. */
export function answerWords(language = 'en'): AnswerWords {
  const code = SPECS[languageCode(language)] ? languageCode(language) : 'en';
  let words = COMPILED.get(code);
  if (!words) {
    const en = compile(SPECS.en!);
    const own = code === 'en' ? en : compile(SPECS[code]!);
    words = {
      numbers: new Map([...en.numbers, ...own.numbers]),
      compounds: own.compounds,
      decimalComma: own.decimalComma,
      ordinals: en.ordinals.map((forms, i) => [...forms, ...(own.ordinals[i] ?? [])]),
      last: [...new Set([...en.last, ...own.last])],
      all: [...new Set([...en.all, ...own.all])],
      none: [...new Set([...en.none, ...own.none])],
      or: own.or,
      at: [...new Set([...en.at, ...own.at])],
      dot: [...new Set([...en.dot, ...own.dot])],
    };
    COMPILED.set(code, words);
  }
  return words;
}
