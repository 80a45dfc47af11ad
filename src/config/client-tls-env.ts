/**
 * The client certificates the engine shows servers that ask for one (mutual TLS):
 * LLM_CLIENT_CERT_FILE, LLM_CLIENT_KEY_FILE, LLM_CLIENT_KEY_PASSPHRASE for the LLM server (vLLM's
 * `--ssl-cert-reqs 2`, a gateway checking its callers), and the same three `SPEECH_` settings for
 * the speech servers (STT and TTS). Pure but for reading the files: no Nest import.
 */
import { resolve } from 'node:path';
import { loadClientTls, type LoadedClientTls } from '../common/client-tls.js';
import { EnvError, present, type Raw } from './env-values.js';

/** Whose certificate: its settings, and the servers it is shown to. */
export const CLIENT_TLS = {
  llm: {
    cert: 'LLM_CLIENT_CERT_FILE',
    key: 'LLM_CLIENT_KEY_FILE',
    passphrase: 'LLM_CLIENT_KEY_PASSPHRASE',
    shownTo: 'the LLM server',
  },
  speech: {
    cert: 'SPEECH_CLIENT_CERT_FILE',
    key: 'SPEECH_CLIENT_KEY_FILE',
    passphrase: 'SPEECH_CLIENT_KEY_PASSPHRASE',
    shownTo: 'the speech servers',
  },
} as const;

export type ClientTlsOwner = keyof typeof CLIENT_TLS;

/** The certificate and key read and checked; undefined when neither file is set. */
export function clientTlsEnv(raw: Raw, owner: ClientTlsOwner): LoadedClientTls | undefined {
  const { shownTo, ...labels } = CLIENT_TLS[owner];
  const cert = present(raw, labels.cert);
  const key = present(raw, labels.key);
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined || key === undefined)
    throw new EnvError(
      `${cert === undefined ? labels.cert : labels.key} is not set: ${labels.cert} and ${labels.key} go together (the certificate shown to ${shownTo}, and its key)`,
    );
  try {
    return loadClientTls(
      {
        certPath: resolve(cert),
        keyPath: resolve(key),
        passphrase: present(raw, labels.passphrase),
      },
      labels,
    );
  } catch (error) {
    throw new EnvError((error as Error).message);
  }
}

/** The certificate of the LLM server (LLM_CLIENT_CERT_FILE). */
export const llmClientTls = (raw: Raw) => clientTlsEnv(raw, 'llm');

/** The certificate of the speech servers (SPEECH_CLIENT_CERT_FILE). */
export const speechClientTls = (raw: Raw) => clientTlsEnv(raw, 'speech');
