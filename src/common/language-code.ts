/** A language tag's two-letter code ("pt-BR", "pt_br" are "pt"). Pure: no Nest import. */
export function languageCode(language: string): string {
  return language.toLowerCase().split(/[-_]/)[0]!;
}

/** A language code as sessions and speech take it: `en`, `it`, `pt-br`. */
export const LANGUAGE_CODE = /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i;
