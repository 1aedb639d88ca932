/**
 * Refusing private and loopback addresses (off by default: tests and intranet users need them). The check is
 * made on the address actually connected to — after DNS resolution, in the connector's `lookup`, and on IP
 * literals before connecting — so a public name that resolves to 127.0.0.1 is refused too.
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { buildConnector } from 'undici';
import { undici } from './undici.ts';
import { AbsError } from '../errors.ts';

// IANA special-purpose registries (RFC 6890 and successors): addresses that are not the public internet.
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and broadcast
] as const) PRIVATE.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) PRIVATE.addSubnet(net, prefix, 'ipv6');

/** True for a loopback, private, link-local, multicast or otherwise non-public IP address (v4 or v6). */
export function isPrivateAddress(address: string): boolean {
  const ip = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(ip);
  if (family === 4) return PRIVATE.check(ip, 'ipv4');
  if (family !== 6) return false;
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible forms are judged by their IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (mapped !== undefined) return PRIVATE.check(mapped, 'ipv4');
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (hex !== null) {
    const n = (parseInt(hex[1]!, 16) << 16) | parseInt(hex[2]!, 16);
    return PRIVATE.check([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.'), 'ipv4');
  }
  return PRIVATE.check(ip, 'ipv6');
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

/** undici's connector, with the connect timeout and, when asked, the private-address guard. */
export function createConnector(options: ConnectorOptions): buildConnector.connector {
  if (!options.refusePrivateAddresses) return undici().buildConnector({ timeout: options.connectTimeoutMs });
  const connect = undici().buildConnector({ timeout: options.connectTimeoutMs, lookup: guardedLookup } as buildConnector.BuildOptions);
  return (opts, callback) => {
    // IP literals are connected to without a lookup: check them here.
    if (isIP(opts.hostname.replace(/^\[|\]$/g, '')) !== 0 && isPrivateAddress(opts.hostname)) {
      callback(new AddressRefusedError(opts.hostname, opts.hostname), null);
      return;
    }
    connect(opts, callback);
  };
}
