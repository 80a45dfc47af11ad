/**
 * An HTTP tool's `client_certificate`: the certificate and key it shows a server that asks for
 * one (mutual TLS, as internal APIs of banks and public services do), read from files next to the
 * tools file and checked to be a pair when the tools are loaded. Pure but for reading the files:
 * no Nest import.
 */
import { resolve } from 'node:path';
import { loadClientTls, type LoadedClientTls } from '../common/client-tls.js';
import { ToolDefinitionError } from './definition-error.js';
import { resolveSecrets, SECRET_REFERENCE } from './tool-secrets.js';

export interface ClientCertificateInput {
  cert_file: string;
  key_file: string;
  /** The key's passphrase, when it is encrypted: written out, or a `${TOOL_SECRET_…}`. */
  passphrase?: string;
}

/** TLS options of the requests of a tool with a client certificate. */
export type ClientCertificate = Omit<LoadedClientTls, 'expired'>;

const LABELS = {
  cert: "field 'client_certificate.cert_file'",
  key: "field 'client_certificate.key_file'",
  passphrase: "'passphrase'",
};

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
  let passphrase = input.passphrase;
  try {
    if (passphrase !== undefined) {
      const secrets = resolveSecrets({ 'client_certificate.passphrase': passphrase }, env);
      passphrase = passphrase.replace(SECRET_REFERENCE, (_, n: string) => secrets[n]!);
    }
    const { expired, ...tls } = loadClientTls(
      {
        certPath: resolve(baseDir, input.cert_file),
        keyPath: resolve(baseDir, input.key_file),
        passphrase,
      },
      LABELS,
    );
    if (expired) warnings.push(`${at}: ${expired}`);
    return tls;
  } catch (error) {
    throw new ToolDefinitionError(`${at}: ${(error as Error).message}`);
  }
}
