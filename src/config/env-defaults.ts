/** The defaults of the settings that are phrases: the system prompt, the spoken answers, the wait phrase. */

export const DEFAULT_SYSTEM_PROMPT =
  'You are a helpful voice assistant. Answer briefly and naturally, in plain sentences ' +
  'without markdown, lists or emoji, because your answer is read aloud.';

/**
 * What counts as a plain yes, or no, to a call awaiting approval (TOOL_CONFIRM_YES,
 * TOOL_CONFIRM_NO): in the languages the bundled eSpeak voices follow (English, Italian, Spanish,
 * French, German, Portuguese), as one list since an answer is matched whole, whatever its language.
 */
export const DEFAULT_CONFIRM_YES = [
  'yes',
  'yeah',
  'yep',
  'sure',
  'sure thing',
  'ok',
  'okay',
  'go ahead',
  'do it',
  'confirm',
  'confirmed',
  'correct',
  "that's right",
  'right',
  'absolutely',
  'of course',
  'sì',
  'si',
  'certo',
  'va bene',
  'procedi',
  'confermo',
  'esatto',
  'sí',
  'claro',
  'vale',
  'de acuerdo',
  'adelante',
  'confirmo',
  'oui',
  "d'accord",
  'vas-y',
  'allez-y',
  'bien sûr',
  'je confirme',
  'ja',
  'genau',
  'klar',
  'in ordnung',
  'mach das',
  'bestätigt',
  'sim',
  'pode',
  'está bem',
  'com certeza',
];
export const DEFAULT_CONFIRM_NO = [
  'no',
  'nope',
  'nah',
  "don't",
  'do not',
  "don't do it",
  'cancel',
  'cancel that',
  'stop',
  'wait',
  'never mind',
  'annulla',
  'lascia stare',
  'aspetta',
  'cancela',
  'espera',
  'déjalo',
  'non',
  'annule',
  'attends',
  'laisse tomber',
  'nein',
  'abbrechen',
  'warte',
  'lass es',
  'não',
  'nao',
  'cancelar',
  'deixa',
];

/** SPEECH_TOOL_WAIT_PHRASE by default: in the languages the bundled eSpeak voices follow. */
export const DEFAULT_TOOL_WAIT_PHRASES: Record<string, string> = {
  en: 'One moment.',
  it: 'Un momento.',
  es: 'Un momento.',
  fr: 'Un instant.',
  de: 'Einen Moment.',
  pt: 'Um momento.',
};

/** SPEECH_TOOL_STILL_PHRASE's default: said while calls go on running for long. */
export const DEFAULT_TOOL_STILL_PHRASES: Record<string, string> = {
  en: 'Still working on it, thank you for waiting.',
  it: "Ci sto ancora lavorando, grazie dell'attesa.",
  es: 'Sigo con ello, gracias por esperar.',
  fr: 'Je m’en occupe toujours, merci de patienter.',
  de: 'Ich bin noch dabei, danke für Ihre Geduld.',
  pt: 'Ainda estou verificando, obrigado por aguardar.',
};

/** SPEECH_UNCLEAR_PHRASE's default: said before a question asked again, its answer not taken. */
export const DEFAULT_UNCLEAR_PHRASES: Record<string, string> = {
  en: "Sorry, I didn't catch that.",
  it: 'Mi scusi, non ho capito.',
  es: 'Perdone, no le he entendido.',
  fr: "Pardon, je n'ai pas compris.",
  de: 'Entschuldigung, das habe ich nicht verstanden.',
  pt: 'Desculpe, não entendi.',
};

/** SPEECH_QUESTION_REPEAT_PHRASE's default: said before a question said again, unanswered. */
export const DEFAULT_QUESTION_REPEAT_PHRASES: Record<string, string> = {
  en: "Sorry, I didn't hear an answer.",
  it: 'Mi scusi, non ho sentito una risposta.',
  es: 'Perdone, no he oído ninguna respuesta.',
  fr: "Pardon, je n'ai pas entendu de réponse.",
  de: 'Entschuldigung, ich habe keine Antwort gehört.',
  pt: 'Desculpe, não ouvi uma resposta.',
};

/** SPEECH_ERROR_PHRASE's default: said when a voice turn failed (the LLM server, the engine). */
export const DEFAULT_ERROR_PHRASES: Record<string, string> = {
  en: 'Sorry, something went wrong on my side. Could you say that again?',
  it: "Mi scusi, c'è stato un problema da parte mia. Può ripetere?",
  es: 'Perdone, ha habido un problema por mi parte. ¿Puede repetirlo?',
  fr: 'Pardon, un problème est survenu de mon côté. Pouvez-vous répéter ?',
  de: 'Entschuldigung, bei mir ist ein Fehler aufgetreten. Können Sie das bitte wiederholen?',
  pt: 'Desculpe, houve um problema do meu lado. Pode repetir?',
};

/** SPEECH_CONFIRM_PHRASE's default: asked for a call awaiting approval that has no prompt. */
export const DEFAULT_CONFIRM_PHRASES: Record<string, string> = {
  en: 'Shall I go ahead?',
  it: 'Procedo?',
  es: '¿Procedo?',
  fr: 'Je continue ?',
  de: 'Soll ich fortfahren?',
  pt: 'Posso prosseguir?',
};

/** SPEECH_HOLD_PHRASE's default: said when the user asks a waiting question to wait. */
export const DEFAULT_HOLD_PHRASES: Record<string, string> = {
  en: 'Sure, take your time.',
  it: 'Certo, faccia con calma.',
  es: 'Claro, tómese su tiempo.',
  fr: 'Bien sûr, prenez votre temps.',
  de: 'Natürlich, lassen Sie sich Zeit.',
  pt: 'Claro, sem pressa.',
};

/** SPEECH_STILL_HERE_PHRASE's default: said when a caller asks whether the agent is there. */
export const DEFAULT_STILL_HERE_PHRASES: Record<string, string> = {
  en: "I'm still here, one moment.",
  it: 'Sono qui, un momento.',
  es: 'Sigo aquí, un momento.',
  fr: 'Je suis là, un instant.',
  de: 'Ich bin noch da, einen Moment.',
  pt: 'Estou aqui, um momento.',
};

/** USER_IDLE_PHRASE's default: what the agent asks a user who has gone quiet. */
export const DEFAULT_IDLE_PHRASES: Record<string, string> = {
  en: 'Are you still there?',
  it: 'È ancora lì?',
  es: '¿Sigue ahí?',
  fr: 'Vous êtes toujours là ?',
  de: 'Sind Sie noch da?',
  pt: 'Ainda está aí?',
};

/** USER_IDLE_GOODBYE's default: what the agent says before it lets a silent user go. */
export const DEFAULT_IDLE_GOODBYES: Record<string, string> = {
  en: "I'll hang up now. Goodbye!",
  it: 'Chiudo la chiamata. Arrivederci!',
  es: 'Voy a colgar. ¡Adiós!',
  fr: 'Je vais raccrocher. Au revoir !',
  de: 'Ich lege jetzt auf. Auf Wiederhören!',
  pt: 'Vou desligar. Adeus!',
};

/** SESSION_MAX_GOODBYE's default: what the agent says when a conversation reaches its time limit. */
export const DEFAULT_LIMIT_GOODBYES: Record<string, string> = {
  en: "We've reached the time limit for this call. Goodbye!",
  it: 'Abbiamo raggiunto il tempo massimo per questa chiamata. Arrivederci!',
  es: 'Hemos llegado al tiempo máximo de esta llamada. ¡Adiós!',
  fr: 'Nous avons atteint la durée maximale de cet appel. Au revoir !',
  de: 'Die maximale Dauer dieses Gesprächs ist erreicht. Auf Wiederhören!',
  pt: 'Chegámos ao tempo máximo desta chamada. Adeus!',
};

/**
 * TWILIO_TRANSFER_UNANSWERED's default: what the agent says when a call it handed over comes back
 * unanswered (busy, no answer, failed).
 */
export const DEFAULT_TRANSFER_UNANSWERED: Record<string, string> = {
  en: 'I am sorry, no one could take your call just now. Is there anything else I can help you with?',
  it: 'Mi dispiace, al momento nessuno può rispondere. Posso aiutarla in qualcos’altro?',
  es: 'Lo siento, ahora mismo nadie ha podido atender su llamada. ¿Puedo ayudarle en algo más?',
  fr: 'Désolé, personne n’a pu prendre votre appel pour le moment. Puis-je vous aider autrement ?',
  de: 'Es tut mir leid, gerade konnte niemand Ihren Anruf annehmen. Kann ich Ihnen sonst helfen?',
  pt: 'Lamento, de momento ninguém pôde atender a sua chamada. Posso ajudar em mais alguma coisa?',
};
