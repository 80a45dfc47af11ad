/** A language tag's two-letter code ("pt-BR", "pt_br" are "pt"). Pure: no Nest import. */
export function languageCode(language: string): string {
  return language.toLowerCase().split(/[-_]/)[0]!;
}
