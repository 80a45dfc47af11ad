/**
 * LLM_CLIENT_CERT_FILE, LLM_CLIENT_KEY_FILE, LLM_CLIENT_KEY_PASSPHRASE: the client certificate the
 * engine shows an LLM server that asks for one (mutual TLS: vLLM's `--ssl-cert-reqs 2`, a gateway
 * checking its callers). Pure but for reading the files: no Nest import.
 */
import { resolve } from 'node:path';
import { loadClientTls, type LoadedClientTls } from '../common/client-tls.js';
import { EnvError, present, type Raw } from './env-values.js';

const LABELS = {
  cert: 'LLM_CLIENT_CERT_FILE',
  key: 'LLM_CLIENT_KEY_FILE',
  passphrase: 'LLM_CLIENT_KEY_PASSPHRASE',
};

/** The certificate and key read and checked; undefined when neither file is set. */
export function llmClientTls(raw: Raw): LoadedClientTls | undefined {
  const cert = present(raw, LABELS.cert);
  const key = present(raw, LABELS.key);
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined || key === undefined)
    throw new EnvError(
      `${cert === undefined ? LABELS.cert : LABELS.key} is not set: LLM_CLIENT_CERT_FILE and LLM_CLIENT_KEY_FILE go together (the certificate shown to the LLM server, and its key)`,
    );
  try {
    return loadClientTls(
      {
        certPath: resolve(cert),
        keyPath: resolve(key),
        passphrase: present(raw, LABELS.passphrase),
      },
      LABELS,
    );
  } catch (error) {
    throw new EnvError((error as Error).message);
  }
}
