/** `--refuse-private-addresses`: every special-purpose range, and every IPv6 form that carries an IPv4 address. */
import { describe, expect, it } from 'vitest';
import { embeddedIpv4, ipv6Groups, isPrivateAddress } from './address-guard.ts';

describe('isPrivateAddress: IPv4 special-purpose ranges', () => {
  it.each([
    ['0.0.0.0', true], ['0.1.2.3', true], ['10.1.2.3', true], ['100.64.0.1', true], ['100.127.255.255', true],
    ['100.128.0.1', false], ['127.0.0.1', true], ['127.255.0.9', true], ['169.254.169.254', true],
    ['172.16.0.1', true], ['172.31.255.255', true], ['172.32.0.1', false], ['192.0.0.8', true], ['192.0.2.1', true],
    ['192.88.99.1', true], ['192.168.1.1', true], ['198.18.0.1', true], ['198.19.255.255', true], ['198.20.0.1', false],
    ['198.51.100.7', true], ['203.0.113.9', true], ['224.0.0.1', true], ['239.255.255.250', true], ['240.0.0.1', true],
    ['255.255.255.255', true], ['8.8.8.8', false], ['93.184.215.14', false], ['1.1.1.1', false],
  ])('%s → %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });
});

describe('isPrivateAddress: IPv6', () => {
  it.each([
    // the usual
    ['::', true], ['::1', true], ['[::1]', true], ['0:0:0:0:0:0:0:1', true], ['fe80::1', true], ['fe80::1%eth0', true],
    ['febf::1', true], ['fc00::1', true], ['fd12:3456::1', true], ['ff02::1', true], ['ff05::2', true],
    ['fec0::1', true], ['feff::1', true], // site-local fec0::/10
    ['100::1', true], ['2001:db8::1', true], ['3fff::1', true],
    ['2606:4700::1111', false], ['2a00:1450:4001::200e', false], ['2001:4860:4860::8888', false],
    // IPv4-mapped ::ffff:0:0/96
    ['::ffff:127.0.0.1', true], ['::ffff:7f00:1', true], ['::ffff:10.0.0.1', true], ['::ffff:a9fe:a9fe', true],
    ['::ffff:8.8.8.8', false], ['::ffff:808:808', false], ['[::ffff:127.0.0.1]', true],
    // IPv4-translated ::ffff:0:0:0/96
    ['::ffff:0:7f00:1', true], ['::ffff:0:808:808', false],
    // IPv4-compatible ::/96
    ['::7f00:1', true], ['::127.0.0.1', true], ['::a00:1', true], ['::c0a8:101', true], ['::808:808', false],
    // NAT64 64:ff9b::/96 (by the IPv4 address) and local-use 64:ff9b:1::/48 (always)
    ['64:ff9b::7f00:1', true], ['64:ff9b::127.0.0.1', true], ['64:ff9b::a9fe:a9fe', true], ['64:ff9b::808:808', false],
    ['64:ff9b:1::808:808', true], ['64:ff9b:1:ffff::1', true],
    // 6to4 2002::/16: bits 16–47
    ['2002:7f00:1::', true], ['2002:7f00:1::1', true], ['2002:a00:1:1::5', true], ['2002:c0a8:101::1', true],
    ['2002:808:808::1', false],
    // Teredo 2001::/32: server bits 32–63, client = last 32 bits inverted
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', true], // client 127.0.0.1
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', true], // client 10.0.0.1
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', true], // RFC 4380's example: client 192.0.2.45 (TEST-NET-1)
    ['2001:0:7f00:1:8000:63bf:f7f7:f7f7', true], // server 127.0.0.1
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', false], // server 65.54.227.120, client 8.8.8.8
  ])('%s → %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });

  it('names and garbage are not addresses', () => {
    expect(isPrivateAddress('example.com')).toBe(false);
    expect(isPrivateAddress('')).toBe(false);
    expect(isPrivateAddress('::ffff:999.0.0.1')).toBe(false);
  });
});

describe('embedded IPv4 addresses', () => {
  it.each([
    ['::ffff:1.2.3.4', ['1.2.3.4']],
    ['::1.2.3.4', ['1.2.3.4']],
    ['64:ff9b::1.2.3.4', ['1.2.3.4']],
    ['2002:102:304::', ['1.2.3.4']],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', ['65.54.227.120', '192.0.2.45']],
    ['2606:4700::1111', []],
  ])('%s carries %j', (address, expected) => {
    expect(embeddedIpv4(ipv6Groups(address)!)).toEqual(expected);
  });

  it('parses every spelling into eight groups', () => {
    expect(ipv6Groups('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Groups('1::')).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Groups('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(ipv6Groups('::ffff:10.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0a00, 1]);
    expect(ipv6Groups('fe80::1%eth0')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(ipv6Groups('10.0.0.1')).toBeNull();
  });
});
