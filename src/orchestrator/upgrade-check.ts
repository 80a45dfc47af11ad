/** What the gateway reads of an upgrade request (its check, its resume token) and of frames. */
import type { IncomingMessage } from 'node:http';
import type { RawData } from 'ws';
import { originAllowed } from '../common/origins.js';
import { upgradeCarriesKey } from '../config/bearer-key.js';

/** ws's check of an upgrade request: `done(false, status, message)` refuses it. */
export type VerifyClient = (
  info: { origin?: string; req: IncomingMessage },
  done: (ok: boolean, status?: number, message?: string) => void,
) => void;

/**
 * With WS_ALLOWED_ORIGINS, a browser's upgrade from another page's origin is refused with HTTP
 * 403 (a client that is no browser sends no Origin); with WS_API_KEY, one without the key with
 * HTTP 401. Undefined when neither is set. `ws` is read at each upgrade: a key rotated in its file
 * (SECRET_FILES_WATCH_SECS) counts at once.
 */
export function upgradeCheck(
  ws: { apiKey: string; allowedOrigins: readonly string[] },
  debug: (message: string) => void,
): VerifyClient | undefined {
  const origins = ws.allowedOrigins;
  if (!ws.apiKey && origins.length === 0) return undefined;
  return ({ origin, req }, done) => {
    if (origins.length > 0 && origin !== undefined && !originAllowed(origins, origin)) {
      debug(`upgrade refused: Origin ${origin.slice(0, 200)} is not in WS_ALLOWED_ORIGINS`);
      return done(false, 403, 'Origin not allowed');
    }
    const key = ws.apiKey;
    if (key && !upgradeCarriesKey(req, key)) return done(false, 401);
    done(true);
  };
}

/** The `resume` query parameter of the upgrade request (`/ws?resume=<token>`). */
export function resumeTokenOf(request: IncomingMessage | undefined): string | undefined {
  const url = new URL(request?.url ?? '/', 'http://engine');
  const token = url.searchParams.get('resume');
  return token ? token : undefined;
}

/** A frame's bytes, however ws hands them over. */
export function bytesOf(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}
