/**
 * An HTTP tool's `client_certificate`: the certificate and key it shows a server that asks for
 * one (mutual TLS, as internal APIs of banks and public services do), read from files next to the
 * tools file and checked to be a pair when the tools are loaded. Pure but for reading the files:
 * no Nest import.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ToolDefinitionError } from './definition-error.js';
import { resolveSecrets, SECRET_REFERENCE } from './tool-secrets.js';

export interface ClientCertificateInput {
  cert_file: string;
  key_file: string;
  /** The key's passphrase, when it is encrypted: written out, or a `${TOOL_SECRET_…}`. */
  passphrase?: string;
}

/** TLS options of the requests of a tool with a client certificate. */
export interface ClientCertificate {
  cert: Buffer;
  key: Buffer;
  passphrase?: string;
  /** The files read: a renewed certificate (cert-manager, Vault) reloads the tools when watched. */
  files: string[];
}

function read(path: string, field: string, at: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as { code?: string }).code ?? (error as Error).message;
    throw new ToolDefinitionError(
      `${at}: field 'client_certificate.${field}' cannot be read (${path}): ${code}`,
    );
  }
}

/**
 * The certificate and key `input` names (relative to `baseDir`), its passphrase's secret read from
 * `env`. Throws ToolDefinitionError prefixed by `at` when a file cannot be read, is no PEM of its
 * kind, the key cannot be decrypted, or key and certificate are not a pair; an expired certificate
 * is a warning (a server refuses it, but the tools file may be ahead of its renewal).
 */
export function clientCertificate(
  input: ClientCertificateInput,
  at: string,
  {
    baseDir,
    env,
    warnings,
  }: { baseDir: string; env: Record<string, string | undefined>; warnings: string[] },
): ClientCertificate {
  const certPath = resolve(baseDir, input.cert_file);
  const keyPath = resolve(baseDir, input.key_file);
  const cert = read(certPath, 'cert_file', at);
  const key = read(keyPath, 'key_file', at);
  let passphrase = input.passphrase;
  if (passphrase !== undefined) {
    try {
      const secrets = resolveSecrets({ 'client_certificate.passphrase': passphrase }, env);
      passphrase = passphrase.replace(SECRET_REFERENCE, (_, n: string) => secrets[n]!);
    } catch (error) {
      throw new ToolDefinitionError(`${at}: ${(error as Error).message}`);
    }
  }
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    throw new ToolDefinitionError(
      `${at}: field 'client_certificate.cert_file' is no PEM certificate (${certPath})`,
    );
  }
  let privateKey;
  try {
    privateKey = createPrivateKey({ key, ...(passphrase !== undefined && { passphrase }) });
  } catch (error) {
    const encrypted = /ENCRYPTED/.test(key.toString('latin1'));
    throw new ToolDefinitionError(
      encrypted
        ? `${at}: field 'client_certificate.key_file' is encrypted, and ${passphrase === undefined ? "no 'passphrase' is given" : "the 'passphrase' does not decrypt it"} (${keyPath})`
        : `${at}: field 'client_certificate.key_file' is no PEM private key (${keyPath}): ${(error as Error).message}`,
    );
  }
  if (!x509.checkPrivateKey(privateKey))
    throw new ToolDefinitionError(
      `${at}: field 'client_certificate.key_file' is not the key of the certificate ${certPath} (${x509.subject.replace(/\n/g, ', ')})`,
    );
  if (Date.parse(x509.validTo) < Date.now())
    warnings.push(
      `${at}: the client certificate ${certPath} expired on ${x509.validTo}: servers will refuse it`,
    );
  return { cert, key, ...(passphrase !== undefined && { passphrase }), files: [certPath, keyPath] };
}
