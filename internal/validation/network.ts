/**
 * IP addresses, CIDRs and ports as k8s.io/apimachinery/pkg/util/validation and k8s.io/utils/net
 * parse them (Kubernetes 1.24). Addresses are kept as a BigInt plus their family so ranges can be
 * walked with plain arithmetic.
 */
import { isIPv6 } from 'node:net';
import { maxLenError } from './names.ts';

export type IPFamily = 'IPv4' | 'IPv6';

/** supportedPortProtocols of pkg/apis/core/validation (Service and Endpoints ports). */
export const SUPPORTED_PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

/** A parsed address: the number and its family (IPv4-mapped IPv6 counts as IPv4, as in Go). */
export interface ParsedIP {
  family: IPFamily;
  value: bigint;
}

/**
 * netutils.ParseIPSloppy: dotted quads (leading zeros allowed, read as decimal) or IPv6 text.
 * Returns undefined where Go returns nil.
 */
export function parseIP(text: string): ParsedIP | undefined {
  const v4 = parseIPv4(text);
  if (v4 !== undefined) return { family: 'IPv4', value: v4 };
  if (!isIPv6(text) || text.includes('%')) return undefined;
  const value = ipv6ToBigInt(text);
  // ::ffff:a.b.c.d is an IPv4 address to Go (To4() != nil).
  if (value >> 32n === 0xffffn) return { family: 'IPv4', value: value & 0xffffffffn };
  return { family: 'IPv6', value };
}

function parseIPv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let v = 0n;
  for (const p of parts) {
    if (!/^[0-9]{1,3}$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    v = (v << 8n) | BigInt(n);
  }
  return v;
}

function ipv6ToBigInt(text: string): bigint {
  let t = text;
  // A trailing dotted quad becomes two hextets.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(t);
  if (quad) {
    const v = parseIPv4(quad[1]!)!;
    t = t.slice(0, quad.index) + `${(v >> 16n).toString(16)}:${(v & 0xffffn).toString(16)}`;
  }
  const [head, tail] = t.includes('::') ? t.split('::') : [t, undefined];
  const h = head ? head.split(':') : [];
  const tl = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - tl.length).fill('0'), ...tl];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** The canonical text of an address, as Go's net.IP.String() prints it. */
export function formatIP(ip: ParsedIP): string {
  if (ip.family === 'IPv4') return [24n, 16n, 8n, 0n].map((s) => String((ip.value >> s) & 0xffn)).join('.');
  const groups: number[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(Number((ip.value >> s) & 0xffffn));
  // Longest run (≥ 2) of zero groups becomes '::' (RFC 5952), first one on ties.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

/** A parsed CIDR (the network address, prefix length and family). */
export interface ParsedCIDR {
  family: IPFamily;
  base: bigint;
  prefix: number;
  /** Number of addresses in the network. */
  size: bigint;
  /** Canonical text, e.g. "10.0.0.0/24" (Go's IPNet.String()). */
  text: string;
}

/** netutils.ParseCIDRSloppy; host bits are cleared as Go does. Undefined when unparseable. */
export function parseCIDR(text: string): ParsedCIDR | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (!ip || !/^[0-9]{1,3}$/.test(prefixText)) return undefined;
  const family: IPFamily = text.slice(0, slash).includes(':') ? 'IPv6' : 'IPv4';
  const bits = family === 'IPv4' ? 32 : 128;
  const prefix = Number(prefixText);
  if (prefix > bits) return undefined;
  const hostBits = BigInt(bits - prefix);
  const base = (ip.value >> hostBits) << hostBits;
  const cidr = { family, base, prefix, size: 1n << hostBits };
  return { ...cidr, text: `${formatIP({ family, value: base })}/${prefix}` };
}

export const INVALID_IP_MESSAGE = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

/** validation.IsValidIP. */
export function isValidIP(value: string): string[] {
  return parseIP(value) ? [] : [INVALID_IP_MESSAGE];
}

/** validation.InclusiveRangeError. */
export const inclusiveRangeError = (lo: number, hi: number): string => `must be between ${lo} and ${hi}, inclusive`;

/** validation.IsValidPortNum: 1–65535. */
export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

/** validation.IsValidPortName (IANA service names: ≤ 15 chars, [-a-z0-9], one letter, no '--'). */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter or number (a-z, 0-9)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

/**
 * ValidateNonSpecialIP's checks on a parsed address (Endpoints addresses, externalIPs): the
 * messages for unspecified, loopback, link-local unicast and link-local multicast addresses.
 */
export function specialIPErrors(text: string, ip: ParsedIP): string[] {
  const errs: string[] = [];
  const v = ip.value;
  const v4 = ip.family === 'IPv4';
  if (v === 0n) errs.push(`may not be unspecified (${text})`);
  if (v4 ? v >> 24n === 127n : v === 1n) errs.push('may not be in the loopback range (127.0.0.0/8, ::1/128)');
  if (v4 ? v >> 16n === 0xa9fen : v >> 118n === 0x3fan) errs.push('may not be in the link-local range (169.254.0.0/16, fe80::/10)');
  if (v4 ? v >> 8n === 0xe00000n : v >> 120n === 0xffn && ((v >> 112n) & 0xfn) === 2n) errs.push('may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)');
  return errs;
}
