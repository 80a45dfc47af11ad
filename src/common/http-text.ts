/** Reading what a server sent back, for messages about it. Pure: no Nest import. */

/** A `Content-Type` header's media type (lower case, '' when none) and its charset, if given. */
export function mediaType(contentType: string | null | undefined): {
  type: string;
  charset?: string;
} {
  const [mime = '', ...params] = (contentType ?? '').split(';').map((p) => p.trim());
  const charset = params
    .map((p) => /^charset\s*=\s*"?([^";]+)"?$/i.exec(p)?.[1])
    .find((c) => c !== undefined);
  return { type: mime.toLowerCase(), charset };
}

/** The start of a body quoted in a message: on one line, at most `max` characters. */
export function excerpt(text: string, max = 200): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, max);
}
