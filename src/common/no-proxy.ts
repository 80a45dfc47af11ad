/**
 * EGRESS_NO_PROXY: which servers the engine reaches directly when an egress proxy is set.
 * curl's and Go's rules: `*` for every server; a domain (`example.com` or `.example.com`) for it
 * and every name under it; an IP address, or a CIDR range (`10.0.0.0/8`), for a URL naming an
 * address in it (names are not resolved for this); any of them with `:port` for that port only.
 * Pure: no Nest import.
 */
import ipaddr from 'ipaddr.js';

export interface NoProxyRule {
  /** A lower-case domain without its leading dot, or undefined for an address rule. */
  domain?: string;
  /** An address range (a single address is a range of one). */
  range?: [ipaddr.IPv4 | ipaddr.IPv6, number];
  port?: number;
}

/** Every server, direct (`*`). */
export const EVERY_SERVER: NoProxyRule[] = [{ domain: '' }];

const DOMAIN = /^\.?(\*\.)?([a-z0-9_-]+(\.[a-z0-9_-]+)*)\.?$/i;

/** One entry as a rule; throws an Error saying what the entry should be. */
function ruleOf(entry: string): NoProxyRule {
  if (entry === '*') return EVERY_SERVER[0]!;
  // `[::1]:8080`, `10.0.0.1:8080`, `example.com:8080`; an IPv6 address alone has colons of its own.
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  const hostPort = bracketed ? undefined : /^([^:]+):(\d+)$/.exec(entry);
  const host = bracketed?.[1] ?? hostPort?.[1] ?? entry;
  const portText = bracketed?.[2] ?? hostPort?.[2];
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (port < 1 || port > 65535))
    throw new Error(`${JSON.stringify(entry)}: the port must be from 1 to 65535`);
  const withPort = port === undefined ? {} : { port };
  if (/^[\d.:a-f]+\/\d+$/i.test(host)) {
    try {
      return { range: ipaddr.parseCIDR(host), ...withPort };
    } catch {
      throw new Error(`${JSON.stringify(entry)} is no CIDR range (e.g. 10.0.0.0/8, fd00::/8)`);
    }
  }
  if (ipaddr.isValid(host)) {
    const ip = ipaddr.parse(host);
    return { range: [ip, ip.kind() === 'ipv4' ? 32 : 128], ...withPort };
  }
  const domain = DOMAIN.exec(host);
  if (!domain)
    throw new Error(
      `${JSON.stringify(entry)} is no host name, domain, IP address or CIDR range (e.g. .svc.cluster.local, 10.0.0.0/8)`,
    );
  return { domain: domain[2]!.toLowerCase(), ...withPort };
}

/** Comma- or space-separated entries as rules; throws an Error naming the first bad entry. */
export function parseNoProxy(text: string): NoProxyRule[] {
  return text
    .split(/[,\s]+/)
    .filter((entry) => entry !== '')
    .map(ruleOf);
}

/** The address a URL's host names literally, IPv4-mapped IPv6 read as IPv4; undefined for a name. */
function addressOf(host: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = host.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return undefined;
  const ip = ipaddr.parse(bare);
  return ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()
    ? (ip as ipaddr.IPv6).toIPv4Address()
    : ip;
}

function matches(rule: NoProxyRule, host: string, port: number): boolean {
  if (rule.port !== undefined && rule.port !== port) return false;
  if (rule.domain !== undefined) {
    if (rule.domain === '') return true;
    const name = host.toLowerCase().replace(/\.$/, '');
    return name === rule.domain || name.endsWith(`.${rule.domain}`);
  }
  const ip = addressOf(host);
  const [net, bits] = rule.range!;
  return ip !== undefined && ip.kind() === net.kind() && ip.match(net, bits);
}

/** True when a request to `host` on `port` goes straight to its server, not through the proxy. */
export function bypassesProxy(rules: readonly NoProxyRule[], host: string, port: number): boolean {
  return rules.some((rule) => matches(rule, host, port));
}
