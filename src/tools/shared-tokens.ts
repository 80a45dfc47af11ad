/**
 * OAuth 2.0 tokens shared through Redis by every process and replica sharing it, or without Redis
 * by the processes of ENGINE_PROCESSES (through their primary): one token request per client and
 * token lifetime across the engine, not one per process (identity providers count and bill
 * machine-to-machine tokens). A token is kept encrypted (AES-256-GCM, with a key made from the
 * client's secret): what the shelf holds is of no use to one without the secret. Redis away: each
 * process asks for its own. Pure but for the shelf it is given: no Nest import.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Shelf } from '../cluster/shelf.js';

const PREFIX = 'agent-engine:oauth2:';
/** How long a token given without `expires_in` is shared (each process keeps its own longer). */
const UNDATED_MS = 3_600_000;

interface Kept {
  /** The token's digest: what a refusal names. */
  h: string;
  iv: string;
  tag: string;
  data: string;
  /** When to stop using it (ms since the epoch); null: until refused. */
  exp: number | null;
}

export class SharedTokens {
  constructor(private readonly shelf: Shelf | undefined) {}

  /** The token another process keeps for client `identity` (whose secret is `secret`), if any. */
  async read(
    identity: string,
    secret: string,
  ): Promise<{ token: string; expiresAt: number } | undefined> {
    if (!this.shelf) return undefined;
    try {
      const found = (await this.shelf.entry(keyOf(identity)))?.value;
      if (found === undefined) return undefined;
      const kept = JSON.parse(found) as Kept;
      const decipher = createDecipheriv('aes-256-gcm', cipherKey(identity, secret), b64(kept.iv));
      decipher.setAuthTag(b64(kept.tag));
      const token = Buffer.concat([decipher.update(b64(kept.data)), decipher.final()]).toString();
      return { token, expiresAt: kept.exp ?? Infinity };
    } catch {
      return undefined; // Redis away, or not a token this secret opens: ask for one.
    }
  }

  /** Keeps `token` of client `identity` for the others, until `expiresAt` (Infinity: undated). */
  async keep(identity: string, secret: string, token: string, expiresAt: number): Promise<void> {
    if (!this.shelf) return;
    const ms = Math.floor(Number.isFinite(expiresAt) ? expiresAt - Date.now() : UNDATED_MS);
    if (ms <= 0) return;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', cipherKey(identity, secret), iv);
    const data = Buffer.concat([cipher.update(token), cipher.final()]);
    const kept: Kept = {
      h: digest(token),
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
      exp: Number.isFinite(expiresAt) ? expiresAt : null,
    };
    await this.shelf.set(keyOf(identity), JSON.stringify(kept), ms).catch(() => undefined);
  }

  /** The API refused `token`: no process is given it again (unless a new one is kept already). */
  async drop(identity: string, token: string): Promise<void> {
    await this.shelf?.drop(keyOf(identity), digest(token)).catch(() => undefined);
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex');
const keyOf = (identity: string) => PREFIX + digest(identity).slice(0, 32);
const cipherKey = (identity: string, secret: string) =>
  createHash('sha256').update(`agent-engine oauth2\n${identity}\n${secret}`).digest();
const b64 = (text: string) => Buffer.from(text, 'base64');
