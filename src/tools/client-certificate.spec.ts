import { resolve } from 'node:path';
import { clientCertificate } from './client-certificate.js';
import { ToolDefinitionError } from './definition-error.js';

const baseDir = resolve('test/fixtures/tls');
const at = "tools.json: tool #0 'crm'";

describe('clientCertificate', () => {
  it('reads a pair, relative to the tools file, a literal passphrase too', () => {
    const warnings: string[] = [];
    const read = clientCertificate(
      { cert_file: 'client.pem', key_file: 'client-encrypted.key', passphrase: 's3cret-pass' },
      at,
      { baseDir, env: {}, warnings },
    );
    expect(read.cert.toString()).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(read.passphrase).toBe('s3cret-pass');
    expect(read.files).toEqual([
      resolve(baseDir, 'client.pem'),
      resolve(baseDir, 'client-encrypted.key'),
    ]);
    expect(warnings).toEqual([]);
  });

  it('warns of a certificate past its date', () => {
    const warnings: string[] = [];
    clientCertificate({ cert_file: 'expired.pem', key_file: 'expired.key' }, at, {
      baseDir,
      env: {},
      warnings,
    });
    expect(warnings).toEqual([
      `${at}: the client certificate ${resolve(baseDir, 'expired.pem')} expired on Jan  2 00:00:00 2020 GMT: servers will refuse it`,
    ]);
  });

  it('refuses a certificate file that is no certificate, and a passphrase secret that is not set', () => {
    const options = { baseDir, env: {}, warnings: [] };
    expect(() =>
      clientCertificate({ cert_file: 'client.key', key_file: 'client.key' }, at, options),
    ).toThrow(
      new ToolDefinitionError(
        `${at}: field 'client_certificate.cert_file' is no PEM certificate (${resolve(baseDir, 'client.key')})`,
      ),
    );
    expect(() =>
      clientCertificate(
        {
          cert_file: 'client.pem',
          key_file: 'client-encrypted.key',
          passphrase: '${TOOL_SECRET_PASS}',
        },
        at,
        options,
      ),
    ).toThrow(
      `${at}: field 'client_certificate.passphrase' refers to \${TOOL_SECRET_PASS}, which is not set in the environment`,
    );
  });
});
