import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** The answer to a POST: status, and the body as a Node stream (read it, or ask for its text). */
export interface HttpReply {
  status: number;
  ok: boolean;
  body: IncomingMessage;
  text(): Promise<string>;
}

/**
 * POSTs a JSON body with Node's own HTTP client: its streams cost far less per chunk than
 * fetch's web streams, which matters when every token of every session arrives as one chunk.
 * Aborting `signal` destroys the connection.
 */
export function postJson(
  url: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        signal,
      },
      (res) => {
        res.setEncoding('utf8');
        const status = res.statusCode ?? 0;
        resolve({
          status,
          ok: status >= 200 && status < 300,
          body: res,
          text: async () => {
            let text = '';
            for await (const chunk of res) text += chunk as string;
            return text;
          },
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
