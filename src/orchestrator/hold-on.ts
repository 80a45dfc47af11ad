/**
 * What a user says to ask a waiting question or approval to wait ("one moment", "let me think",
 * "un attimo", "einen Augenblick"), or to hear it again ("sorry?", "can you repeat that?", "come
 * scusi?", "wie bitte?"): it answers nothing and starts no turn; the question waits on, its time
 * allowed started again (`holdWaits`), asked again only when the user asked to hear it. And what
 * a caller says to acknowledge the agent while its tools run ("okay, thanks"). In the languages of
 * the default yes and no phrases; a word those lists hold ("wait" is a no) is theirs. Pure: no
 * Nest import.
 */
import { compilePhrases, spokenAnswer } from './spoken-answer.js';

const HOLD = [
  // English
  'one moment',
  'a moment',
  'one sec',
  'one second',
  'a second',
  'hold on',
  'hang on',
  'wait a moment',
  'wait a second',
  'let me think',
  'let me check',
  'let me see',
  // Italian
  'un attimo',
  'un momento',
  'un secondo',
  'aspetti',
  'aspetta un attimo',
  'aspetti un attimo',
  'fammi pensare',
  'mi faccia pensare',
  'fammi vedere',
  // Spanish
  'un segundo',
  'espere',
  'espera un momento',
  'espere un momento',
  'déjame pensar',
  'déjeme pensar',
  'déjame ver',
  // French
  'un instant',
  'un moment',
  'une seconde',
  'attendez',
  'laisse-moi réfléchir',
  'laissez-moi réfléchir',
  // Portuguese
  'um momento',
  'um segundo',
  'deixa-me pensar',
  'deixe-me pensar',
  'deixa eu pensar',
  // German
  'moment',
  'einen moment',
  'augenblick',
  'einen augenblick',
  'warten sie',
  'lass mich nachdenken',
  'lassen sie mich nachdenken',
];

const AGAIN = [
  // English ("sorry" alone, a filler elsewhere, asks to hear it again)
  'sorry',
  'pardon',
  'what',
  'excuse me',
  'come again',
  'say again',
  'say that again',
  'repeat',
  'repeat that',
  'can you repeat',
  'can you repeat that',
  'could you repeat',
  'could you repeat that',
  'what did you say',
  'what was that',
  "i didn't catch that",
  "i didn't hear you",
  // Italian
  'come',
  'scusi',
  'scusa',
  'come scusi',
  'ripeti',
  'ripeta',
  'può ripetere',
  'puoi ripetere',
  'non ho capito',
  'non ho sentito',
  'cosa hai detto',
  "cos'ha detto",
  // Spanish
  'cómo',
  'perdón',
  'perdone',
  'qué',
  'repite',
  'repita',
  'puede repetir',
  'puedes repetir',
  'no le he entendido',
  'no te he entendido',
  'no entendí',
  // French
  'comment',
  'quoi',
  'répétez',
  'répète',
  'vous pouvez répéter',
  'pouvez-vous répéter',
  'tu peux répéter',
  "je n'ai pas compris",
  // Portuguese
  'como',
  'desculpe',
  'repete',
  'pode repetir',
  'não entendi',
  // German
  'wie bitte',
  'was',
  'wie',
  'nochmal',
  'noch einmal',
  'wiederholen sie',
  'können sie das wiederholen',
  'ich habe das nicht verstanden',
  'was haben sie gesagt',
];

/**
 * What a caller says to acknowledge the agent while its tools run ("okay", "thanks", "uh-huh"
 * to "One moment."): nothing to answer, and no reason to cut the calls short.
 */
const ACK = [
  // English
  'ok',
  'okay',
  'alright',
  'all right',
  'sure',
  'yes',
  'yeah',
  'yep',
  'right',
  'fine',
  'good',
  'great',
  'perfect',
  'cool',
  'got it',
  'thanks',
  'thank you',
  'no problem',
  'sounds good',
  'take your time',
  'no rush',
  'no hurry',
  'uh huh',
  'mm hmm',
  'mhm',
  'mm',
  'hmm',
  // Italian
  'va bene',
  'grazie',
  'perfetto',
  "d'accordo",
  'certo',
  'sì',
  'bene',
  'ottimo',
  'con calma',
  'fai con calma',
  // Spanish
  'vale',
  'gracias',
  'perfecto',
  'de acuerdo',
  'claro',
  'sí',
  'bien',
  'muy bien',
  'genial',
  'sin prisa',
  // French
  "d'accord",
  'merci',
  'parfait',
  'oui',
  'très bien',
  'entendu',
  'prenez votre temps',
  // German
  'danke',
  'gut',
  'alles klar',
  'ja',
  'prima',
  'super',
  'in ordnung',
  'keine eile',
  // Portuguese
  'obrigado',
  'obrigada',
  'está bem',
  'tá bom',
  'sim',
  'perfeito',
  'sem pressa',
];

/**
 * What a listener says over a speaker to say "go on" ("mm-hmm", "uh-huh"), or only hesitates:
 * no turn of theirs. Not "okay" nor "yeah", which may mean "enough".
 */
const CONTINUE = [
  'uh huh',
  'mm hmm',
  'mhm',
  'mmh',
  'mm',
  'hmm',
  'hm',
  'um',
  'uh',
  'er',
  'erm',
  'ehm',
  'eh',
  'ah',
  'aha',
  'ajá',
  'euh',
  'hum',
  'äh',
  'ähm',
  'ahn',
];

/** What a caller says to ask whether the agent is there, while its tools run ("hello?"). */
const CHECK = [
  'hello',
  'hi',
  'are you there',
  'are you still there',
  'still there',
  'is anyone there',
  'anybody there',
  'pronto',
  'ci sei',
  'ci sei ancora',
  'è ancora lì',
  'è lì',
  'hola',
  'sigues ahí',
  'sigue ahí',
  'está ahí',
  'allô',
  'allo',
  'vous êtes là',
  'vous êtes toujours là',
  'tu es là',
  'hallo',
  'sind sie noch da',
  'sind sie da',
  'bist du noch da',
  'alô',
  'está aí',
  'ainda está aí',
];

/**
 * The holds, the asks to hear it again, the acknowledgements and the check-ins, matched as TOOL_CONFIRM_YES's
 * phrases are: nothing else but fillers around them.
 */
const HOLDS = compilePhrases({ yes: HOLD, no: [] });
const AGAINS = compilePhrases({ yes: AGAIN, no: [] });
const ACKS = compilePhrases({ yes: [...ACK, ...HOLD], no: [] });
const CHECKS = compilePhrases({ yes: CHECK, no: [] });
const CONTINUES = compilePhrases({ yes: CONTINUE, no: [] });

/** Whether `text` only says "go on" ("mm-hmm"), or hesitates ("um"), to a speaker. */
export function continues(text: string): boolean {
  return spokenAnswer(text, CONTINUES) === 'yes';
}

/** Whether `text` only asks whether the agent is there ("hello? are you still there?"). */
export function checksIn(text: string): boolean {
  return spokenAnswer(text, CHECKS) === 'yes';
}

/** Whether `text` only acknowledges the agent ("okay, thanks"), or asks it to take its time. */
export function acknowledges(text: string): boolean {
  return spokenAnswer(text, ACKS) === 'yes';
}

/**
 * Whether `text` only asks the waiting question to wait (`hold`), or to be asked again (`again`).
 */
export function waitAsked(text: string): 'hold' | 'again' | undefined {
  if (spokenAnswer(text, HOLDS) === 'yes') return 'hold';
  if (spokenAnswer(text, AGAINS) === 'yes') return 'again';
  return undefined;
}
