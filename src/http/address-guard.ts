/**
 * Refusing private and loopback addresses (off by default: tests and intranet users need them). The check is
 * made on the address actually connected to — after DNS resolution, in the connector's `lookup`, and on IP
 * literals before connecting — so a public name that resolves to 127.0.0.1 is refused too.
 *
 * An IPv6 address that carries an IPv4 address (IPv4-mapped, IPv4-compatible, IPv4-translated, NAT64, 6to4,
 * Teredo) is judged by the IPv4 address it carries as well: `::ffff:127.0.0.1`, `::7f00:1`, `64:ff9b::a00:1`
 * and `2002:7f00:1::` all reach (or are translated to) a loopback or private IPv4 host.
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { buildConnector } from 'undici';
import type { Socket } from 'node:net';
import { undici } from './undici.ts';
import { AbsError } from '../errors.ts';
import { skipInterimContinue } from './interim-responses.ts';
import { reportResets } from './connection-reset.ts';
import { normalizeFraming } from './framing.ts';

// IANA IPv4 Special-Purpose Address Registry (RFC 6890 and successors): addresses that are not the public
// internet ("Globally Reachable: False"), plus multicast and the reserved 240/4.
const PRIVATE_V4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network" (RFC 791); 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments (RFC 6890)
  ['192.0.2.0', 24], // TEST-NET-1 (RFC 5737)
  ['192.88.99.0', 24], // 6to4 relay anycast (RFC 7526, deprecated)
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking (RFC 2544)
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved (RFC 1112), and 255.255.255.255 broadcast
] as const) PRIVATE_V4.addSubnet(net, prefix, 'ipv4');

// IANA IPv6 Special-Purpose Address Registry. The IPv4-embedding ranges are handled by `embeddedIpv4`.
const PRIVATE_V6 = new BlockList();
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translated inside a private network
  ['100::', 64], // discard-only (RFC 6666)
  ['2001::', 23], // IETF protocol assignments (RFC 2928); Teredo 2001::/32 is judged below, before this
  ['2001:db8::', 32], // documentation (RFC 3849)
  ['3fff::', 20], // documentation (RFC 9637)
  ['5f00::', 16], // segment routing SIDs (RFC 9602)
  ['fc00::', 7], // unique local (RFC 4193)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (RFC 3879: deprecated, still routed inside sites)
  ['ff00::', 8], // multicast
] as const) PRIVATE_V6.addSubnet(net, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (with a dotted IPv4 tail and a zone allowed), or null. */
export function ipv6Groups(address: string): number[] | null {
  let text = address.replace(/%.*$/, ''); // zone id (fe80::1%eth0)
  if (isIP(text) !== 6) return null;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, null];
  const parse = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  if (tail === null) return left;
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function ipv4(high: number, low: number): string {
  return [high >>> 8, high & 255, low >>> 8, low & 255].join('.');
}

/**
 * The IPv4 addresses an IPv6 address carries, which a packet to it may end up at:
 * - IPv4-mapped `::ffff:0:0/96` (RFC 4291 §2.5.5.2) and IPv4-translated `::ffff:0:0:0/96` (RFC 2765);
 * - IPv4-compatible `::/96` (RFC 4291 §2.5.5.1, deprecated), e.g. `::7f00:1` = `::127.0.0.1`;
 * - NAT64 well-known prefix `64:ff9b::/96` (RFC 6052);
 * - 6to4 `2002::/16` (RFC 3056): the IPv4 address is bits 16–47;
 * - Teredo `2001::/32` (RFC 4380 §4): the server's IPv4 address is bits 32–63, the client's is the last 32
 *   bits with every bit inverted ("obfuscated").
 */
export function embeddedIpv4(groups: readonly number[]): string[] {
  const g = groups;
  const zero = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) return [ipv4(g[6]!, g[7]!)];
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return [ipv4(g[6]!, g[7]!)];
  if (zero(0, 6)) return [ipv4(g[6]!, g[7]!)];
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return [ipv4(g[6]!, g[7]!)];
  if (g[0] === 0x2002) return [ipv4(g[1]!, g[2]!)];
  if (g[0] === 0x2001 && g[1] === 0) return [ipv4(g[2]!, g[3]!), ipv4(g[6]! ^ 0xffff, g[7]! ^ 0xffff)];
  return [];
}

/** True for a loopback, private, link-local, multicast or otherwise non-public IP address (v4 or v6). */
export function isPrivateAddress(address: string): boolean {
  const ip = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(ip.replace(/%.*$/, ''));
  if (family === 4) return PRIVATE_V4.check(ip, 'ipv4');
  if (family !== 6) return false;
  const groups = ipv6Groups(ip)!;
  // `::` and `::1` are IPv4-compatible in form; they are the unspecified and loopback addresses.
  const canonical = groups.map((x) => x.toString(16)).join(':');
  if (PRIVATE_V6.check(canonical, 'ipv6') && !(groups[0] === 0x2001 && groups[1] === 0)) return true;
  const carried = embeddedIpv4(groups);
  if (carried.length > 0) return carried.some((v4) => PRIVATE_V4.check(v4, 'ipv4'));
  return false;
}
/** The error a refused address gives (mapped to `ABS_ERR_HTTP_ADDRESS_REFUSED`). */
export class AddressRefusedError extends AbsError {
  override name = 'AddressRefusedError';
  readonly address: string;
  constructor(host: string, address: string) {
    super(`${host} is a private or loopback address (${address}): refused`, 'ABS_ERR_HTTP_ADDRESS_REFUSED');
    this.address = address;
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `dns.lookup` that fails when any address the name resolves to is private. */
function guardedLookup(hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err !== null) return callback(err, []);
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (bad !== undefined) return callback(new AddressRefusedError(hostname, bad.address) as unknown as NodeJS.ErrnoException, []);
    if (options.all === true) return callback(null, addresses);
    const first = addresses[0];
    if (first === undefined) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}

export interface ConnectorOptions {
  readonly connectTimeoutMs: number;
  readonly refusePrivateAddresses: boolean;
}

/**
 * undici's connector, with the connect timeout, `100 Continue` responses skipped (interim-responses.ts), resets
 * reported as failures (connection-reset.ts), repeated Content-Length read as Chromium reads it (framing.ts) and,
 * when asked, the private-address guard.
 */
export function createConnector(options: ConnectorOptions): buildConnector.connector {
  const connect = options.refusePrivateAddresses
    ? undici().buildConnector({ timeout: options.connectTimeoutMs, lookup: guardedLookup } as buildConnector.BuildOptions)
    : undici().buildConnector({ timeout: options.connectTimeoutMs });
  return (opts, callback) => {
    // IP literals are connected to without a lookup: check them here.
    if (options.refusePrivateAddresses && isIP(opts.hostname.replace(/^\[|\]$/g, '')) !== 0 && isPrivateAddress(opts.hostname)) {
      callback(new AddressRefusedError(opts.hostname, opts.hostname), null);
      return;
    }
    connect(opts, (err, socket) => (err === null ? callback(null, reportResets(skipInterimContinue(normalizeFraming(socket as Socket)))) : callback(err, null)));
  };
}
