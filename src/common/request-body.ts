import type { IncomingMessage } from 'node:http';

/**
 * How much of a body refused as too large is still read (and let go) before the refusal, and for
 * how long at most: a client still sending it then reads the refusal, where a connection closed
 * with its bytes unread is reset (the kernel answers unread data with RST) and the client sees
 * only that. Past these, the connection is closed all the same (a client sending without end).
 */
const LINGER_BYTES = 16 * 1024 * 1024;
const LINGER_MS = 2000;

/** A request's body whole, or `undefined` once it passes `max` bytes (the rest read and let go). */
export async function requestBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Not destroyed on leaving the loop: the rest of a body too large is read below.
  for await (const chunk of req.iterator({ destroyOnReturn: false })) {
    size += (chunk as Buffer).length;
    if (size > max) {
      await letGo(req, LINGER_BYTES, LINGER_MS);
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Reads what is left of `req` and drops it, until its end, `bytes` more, or `ms`. */
function letGo(req: IncomingMessage, bytes: number, ms: number): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let left = bytes;
    const done = () => {
      clearTimeout(timer);
      req.off('readable', onReadable).off('end', done).off('close', done).off('error', done);
      resolve();
    };
    // Read as 'readable' comes (not as 'data': a 'readable' listener left by the loop above would
    // keep the stream from flowing).
    const onReadable = () => {
      for (let chunk: Buffer | null; (chunk = req.read() as Buffer | null) !== null;) {
        left -= chunk.length;
        if (left <= 0) return done();
      }
    };
    const timer = setTimeout(done, ms);
    req.on('readable', onReadable).once('end', done).once('close', done).once('error', done);
    onReadable();
  });
}
