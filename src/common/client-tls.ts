/**
 * A client certificate (mutual TLS) read from PEM files: the certificate and key shown to a
 * server that asks for one, checked to be a pair when read. Pure but for reading the files: no
 * Nest import.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The certificate and key, as TLS options take them, with the files they were read from. */
export interface LoadedClientTls {
  cert: Buffer;
  key: Buffer;
  passphrase?: string;
  /** The files read: a renewed certificate (cert-manager, Vault) is read again from them. */
  files: string[];
  /** Said when the certificate is past its date (a server refuses it). */
  expired?: string;
}

/** How the errors name the setting of each part (`LLM_CLIENT_CERT_FILE`, a tool's field). */
export interface ClientTlsLabels {
  cert: string;
  key: string;
  passphrase: string;
}

function read(path: string, label: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as { code?: string }).code ?? (error as Error).message;
    throw new Error(`${label} cannot be read (${path}): ${code}`, { cause: error });
  }
}

/**
 * Reads the certificate at `certPath` and the key at `keyPath` (decrypted with `passphrase`).
 * Throws an Error naming the setting (`labels`) when a file cannot be read, is no PEM of its
 * kind, the key cannot be decrypted, or key and certificate are not a pair.
 */
export function loadClientTls(
  { certPath, keyPath, passphrase }: { certPath: string; keyPath: string; passphrase?: string },
  labels: ClientTlsLabels,
): LoadedClientTls {
  const cert = read(certPath, labels.cert);
  const key = read(keyPath, labels.key);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    throw new Error(`${labels.cert} is no PEM certificate (${certPath})`);
  }
  let privateKey;
  try {
    privateKey = createPrivateKey({ key, ...(passphrase !== undefined && { passphrase }) });
  } catch (error) {
    const encrypted = /ENCRYPTED/.test(key.toString('latin1'));
    throw new Error(
      encrypted
        ? `${labels.key} is encrypted, and ${passphrase === undefined ? `no ${labels.passphrase} is given` : `the ${labels.passphrase} does not decrypt it`} (${keyPath})`
        : `${labels.key} is no PEM private key (${keyPath}): ${(error as Error).message}`,
      { cause: error },
    );
  }
  if (!x509.checkPrivateKey(privateKey))
    throw new Error(
      `${labels.key} is not the key of the certificate ${certPath} (${x509.subject.replace(/\n/g, ', ')})`,
    );
  return {
    cert,
    key,
    ...(passphrase !== undefined && { passphrase }),
    files: [certPath, keyPath],
    ...(Date.parse(x509.validTo) < Date.now() && {
      expired: `the client certificate ${certPath} expired on ${x509.validTo}: servers will refuse it`,
    }),
  };
}
