import ipaddr from 'ipaddr.js';
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { AxiosRequestConfig } from 'axios';
import { MAX_REDIRECTS } from '../common/redirects.js';
import { globalAgent as httpGlobalAgent } from 'node:http';
import { Agent as HttpsAgent, globalAgent as httpsGlobalAgent } from 'node:https';
import { egressAgents, lookupCheck, tlsOptions, type ClientTls } from '../common/egress.js';

export class BlockedAddressError extends Error {}

/** Only ordinary public unicast addresses; never private, loopback, link-local (metadata) or reserved ones. */
export function isPublicAddress(address: string): boolean {
  return parsed(address)?.range() === 'unicast';
}

/** An address as ipaddr.js reads it (an IPv4-mapped IPv6 address as its IPv4); undefined if invalid. */
function parsed(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  const ip = ipaddr.parse(address);
  return ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()
    ? (ip as ipaddr.IPv6).toIPv4Address()
    : ip;
}

/** What the policy of public addresses only refuses, as refusals say it. */
const PRIVATE = 'private, link-local or reserved';
/** What the policy of the engine's own requests refuses. */
const METADATA = 'where clouds serve instance metadata';

/**
 * A `lookup` for Node's requests that resolves every address of a name (`resolve`: the system's
 * resolver) and refuses the name when any of them is one `allowed` refuses; the connection then
 * goes to an address that was checked, never to a second lookup's answer.
 */
export function guardedLookup(
  allowed: (address: string) => boolean,
  resolve: typeof dnsLookup = dnsLookup,
  kind = PRIVATE,
): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as { address: string; family: number }[];
      const blocked = list.find((a) => !allowed(a.address));
      if (blocked) {
        return callback(
          new BlockedAddressError(
            `refused: ${hostname} resolves to ${blocked.address}, an address this request may not reach (${kind})`,
          ),
          '',
          0,
        );
      }
      // Connect to exactly the address that was checked (no second lookup to rebind).
      if (options.all)
        return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/**
 * Instance-metadata services outside the link-local ranges: AWS's IPv6 endpoint (a unique-local
 * address) and Alibaba Cloud's (in the carrier-grade NAT range).
 */
const METADATA_ADDRESSES = new Set(
  ['fd00:ec2::254', '100.100.100.200'].map((a) => ipaddr.parse(a).toNormalizedString()),
);

/**
 * Where clouds serve instance metadata and credentials: link-local addresses (169.254.0.0/16,
 * fe80::/10; AWS, GCP, Azure, Oracle) and the metadata endpoints outside them.
 */
export function isMetadataAddress(address: string): boolean {
  const ip = parsed(address);
  return ip?.range() === 'linkLocal' || METADATA_ADDRESSES.has(ip?.toNormalizedString() ?? '');
}

/** Refuses `hostname` when it is itself an address the policy forbids (no lookup is made for those). */
export function assertAllowedLiteral(
  hostname: string,
  allowed: (address: string) => boolean,
  kind = PRIVATE,
): void {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !allowed(host))
    throw new BlockedAddressError(
      `refused: ${host} is an address this request may not reach (${kind})`,
    );
}

const notMetadata = (address: string) => !isMetadataAddress(address);
/** Node's lookup signature, which axios's type spells differently but calls the same way. */
const NO_METADATA_LOOKUP = guardedLookup(
  notMetadata,
  dnsLookup,
  METADATA,
) as unknown as AxiosRequestConfig['lookup'];

const METADATA_CHECK = lookupCheck(NO_METADATA_LOOKUP as unknown as LookupFunction);

/** The direct agent of each client certificate (a tool's): its TLS shows it. */
const certificateAgents = new WeakMap<ClientTls, HttpsAgent>();
const certificateAgent = (certificate: ClientTls) => {
  let agent = certificateAgents.get(certificate);
  if (!agent) {
    agent = new HttpsAgent(tlsOptions(certificate));
    certificateAgents.set(certificate, agent);
  }
  return agent;
};

/**
 * axios options that keep a request of the engine's choosing — an HTTP tool's call, an OpenAPI
 * document, a token request — off cloud metadata addresses (see isMetadataAddress), by name or
 * by redirect, at most 3 of them. Throws BlockedAddressError when `url`'s host is itself such an address.
 * Never through a proxy of HTTP_PROXY or HTTPS_PROXY (axios's default), whose address the check
 * would see; through the egress proxy (EGRESS_PROXY) when one is set, each host checked first.
 * With `certificate`, HTTPS servers that ask for a client certificate are shown it: `url`'s host's,
 * not another host a redirect leads to.
 */
export function offMetadata(
  url: string,
  certificate?: ClientTls,
): Pick<
  AxiosRequestConfig,
  'lookup' | 'beforeRedirect' | 'maxRedirects' | 'proxy' | 'httpAgent' | 'httpsAgent'
> {
  assertAllowedLiteral(new URL(url).hostname, notMetadata, METADATA);
  const direct = certificate && { http: httpGlobalAgent, https: certificateAgent(certificate) };
  const agents = egressAgents(certificate ?? METADATA, {
    check: METADATA_CHECK,
    direct,
    tls: certificate,
  });
  const httpsAgent = agents?.https ?? (certificate && certificateAgent(certificate));
  const host = new URL(url).hostname;
  return {
    proxy: false,
    maxRedirects: MAX_REDIRECTS,
    lookup: NO_METADATA_LOOKUP,
    beforeRedirect: (next: { hostname?: string; agents?: object }) => {
      assertAllowedLiteral(next.hostname ?? '', notMetadata, METADATA);
      // Another host is not shown the tool's certificate: the agents of a request without one.
      if (certificate && next.hostname !== host)
        next.agents = egressAgents(METADATA, { check: METADATA_CHECK }) ?? {
          http: httpGlobalAgent,
          https: httpsGlobalAgent,
        };
    },
    ...(agents && { httpAgent: agents.http }),
    ...(httpsAgent && { httpsAgent }),
  };
}
