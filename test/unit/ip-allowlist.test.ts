import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { AllowlistEntryError, compileAllowlist, normaliseAllowlistEntry, parseClientIp } from '../../server/services/ip-allowlist.js';

describe('normaliseAllowlistEntry', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    [' 203.0.113.7 ', '203.0.113.7'],
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['203.0.113.7/32', '203.0.113.7'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8::/32', '2001:db8::/32'],
    ['::1', '::1'],
    ['::/0', '::/0'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::ffff:10.0.0.0/104', '10.0.0.0/8'],
    ['::ffff:cb00:7107', '203.0.113.7'],
  ])('accepts %s as %s', (entry, expected) => {
    expect(normaliseAllowlistEntry(entry)).toBe(expected);
  });

  it.each([
    ['', 'empty'],
    ['localhost', 'not an IPv4'],
    ['256.1.1.1', 'not an IPv4'],
    ['127.1', 'not an IPv4'],
    ['0x7f.0.0.1', 'not an IPv4'],
    ['1.2.3.4.5', 'not an IPv4'],
    ['10.0.0.0/33', 'prefix length must be 0 to 32'],
    ['10.0.0.0/', 'prefix length'],
    ['10.0.0.0/-1', 'prefix length'],
    ['10.0.0.0/8/8', 'prefix length'],
    ['2001:db8::/129', 'prefix length must be 0 to 128'],
    ['10.1.2.3/8', 'did you mean 10.0.0.0/8'],
    ['2001:db8::1/32', 'did you mean 2001:db8::/32'],
    ['fe80::1%eth0', 'not an IPv4'],
    ['2001:db8:::1', 'not an IPv4'],
    ['::ffff:10.0.0.0/64', 'at least 96'],
  ])('rejects %j naming the entry', (entry, reason) => {
    let error: unknown;
    try {
      normaliseAllowlistEntry(entry);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AllowlistEntryError);
    expect((error as Error).message).toContain(`'${entry}'`);
    expect((error as Error).message).toContain(reason);
  });
});

describe('parseClientIp', () => {
  it('reads IPv4, IPv6, IPv4-mapped IPv6, bracketed and zoned forms', () => {
    expect(parseClientIp('198.51.100.4')?.toString()).toBe('198.51.100.4');
    expect(parseClientIp('::ffff:198.51.100.4')?.toString()).toBe('198.51.100.4');
    expect(parseClientIp('[2001:db8::5]')?.kind()).toBe('ipv6');
    expect(parseClientIp('fe80::1%eth0')?.kind()).toBe('ipv6');
    expect(parseClientIp('')).toBeNull();
    expect(parseClientIp('unknown')).toBeNull();
    expect(parseClientIp('127.1')).toBeNull();
  });
});

describe('compileAllowlist', () => {
  it('matches single IPv4 addresses exactly', () => {
    const allowed = compileAllowlist(['203.0.113.7']);
    expect(allowed('203.0.113.7')).toBe(true);
    expect(allowed('203.0.113.8')).toBe(false);
  });

  it('matches IPv4 CIDR ranges at their edges', () => {
    const allowed = compileAllowlist(['192.168.4.0/22']);
    expect(allowed('192.168.4.0')).toBe(true);
    expect(allowed('192.168.7.255')).toBe(true);
    expect(allowed('192.168.8.0')).toBe(false);
    expect(allowed('192.168.3.255')).toBe(false);
  });

  it('matches IPv6 addresses and ranges', () => {
    const allowed = compileAllowlist(['2001:db8:1::/48', '2001:db8:ffff::42']);
    expect(allowed('2001:db8:1::1')).toBe(true);
    expect(allowed('2001:db8:1:ffff:ffff:ffff:ffff:ffff')).toBe(true);
    expect(allowed('2001:db8:2::1')).toBe(false);
    expect(allowed('2001:db8:ffff::42')).toBe(true);
    expect(allowed('2001:db8:ffff::43')).toBe(false);
  });

  it('treats IPv4-mapped IPv6 as IPv4 on both sides', () => {
    const v4 = compileAllowlist(['10.0.0.0/8']);
    expect(v4('::ffff:10.20.30.40')).toBe(true);
    expect(v4('::ffff:11.0.0.1')).toBe(false);
    const mappedEntry = compileAllowlist([normaliseAllowlistEntry('::ffff:10.0.0.0/104')]);
    expect(mappedEntry('10.1.2.3')).toBe(true);
    expect(mappedEntry('::ffff:10.1.2.3')).toBe(true);
    expect(mappedEntry('11.1.2.3')).toBe(false);
  });

  it('keeps the families apart: ::/0 admits IPv6 clients only, 0.0.0.0/0 IPv4 clients only', () => {
    const v6all = compileAllowlist(['::/0']);
    expect(v6all('2001:db8::1')).toBe(true);
    expect(v6all('198.51.100.1')).toBe(false);
    expect(v6all('::ffff:198.51.100.1')).toBe(false);
    const v4all = compileAllowlist(['0.0.0.0/0']);
    expect(v4all('198.51.100.1')).toBe(true);
    expect(v4all('2001:db8::1')).toBe(false);
  });

  it('matches loopback in both families and never matches an unparseable address', () => {
    const allowed = compileAllowlist(['127.0.0.1', '::1']);
    expect(allowed('127.0.0.1')).toBe(true);
    expect(allowed('::1')).toBe(true);
    expect(allowed('::ffff:127.0.0.1')).toBe(true);
    expect(allowed('')).toBe(false);
    expect(allowed('127.0.0.1, 10.0.0.1')).toBe(false);
    expect(allowed('not-an-ip')).toBe(false);
  });

  it('matches a link-local client that carries a zone id', () => {
    expect(compileAllowlist(['fe80::/10'])('fe80::1%eth0')).toBe(true);
  });
});

describe('fast client-address parsing agrees with ipaddr.js', () => {
  const ipaddrBytes = (text: string) => {
    const a = ipaddr.parse(text);
    const u = a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress() ? (a as ipaddr.IPv6).toIPv4Address() : a;
    return u.toByteArray();
  };
  it('on 2 000 random IPv6 addresses in full, compressed and embedded-IPv4 forms', () => {
    let seed = 12345;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    for (let i = 0; i < 2000; i++) {
      const groups = Array.from({ length: 8 }, () => (rnd(3) === 0 ? 0 : rnd(0x10000)));
      const forms = [groups.map((g) => g.toString(16)).join(':'), new ipaddr.IPv6(groups).toRFC5952String()];
      if (i % 4 === 0)
        forms.push(
          `${groups
            .slice(0, 6)
            .map((g) => g.toString(16))
            .join(':')}:${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`,
        );
      for (const form of forms) expect(parseClientIp(form)?.toByteArray(), form).toEqual(ipaddrBytes(form));
    }
  });

  it('on edge forms', () => {
    for (const form of [
      '::',
      '::1',
      '1::',
      '1::8',
      'fe80::',
      '::ffff:0.0.0.0',
      '::ffff:255.255.255.255',
      '::ffff:ffff:ffff',
      '0:0:0:0:0:ffff:1.2.3.4',
      '64:ff9b::1.2.3.4',
      '0.0.0.0',
      '255.255.255.255',
    ]) {
      expect(parseClientIp(form)?.toByteArray(), form).toEqual(ipaddrBytes(form));
    }
  });

  it('matches ranges at every prefix length exactly like ipaddr.js', () => {
    const client = '2001:db8:85a3:8d3:1319:8a2e:370:7348';
    const parsed = ipaddr.IPv6.parse(client);
    for (let bits = 0; bits <= 128; bits++) {
      const network = ipaddr.IPv6.networkAddressFromCIDR(`${client}/${bits}`).toRFC5952String();
      const flipped = [...parsed.toByteArray()];
      const byte = Math.min(15, Math.floor(Math.max(0, bits - 1) / 8));
      flipped[byte] = flipped[byte]! ^ (0x80 >> (Math.max(0, bits - 1) % 8));
      const outside = ipaddr.fromByteArray(flipped).toString();
      const m = compileAllowlist([`${network}/${bits}`]);
      expect(m(client), `${network}/${bits}`).toBe(true);
      expect(m(outside), `${outside} vs ${network}/${bits}`).toBe(bits === 0);
    }
    const v4 = '203.0.113.77';
    for (let bits = 0; bits <= 32; bits++) {
      const network = ipaddr.IPv4.networkAddressFromCIDR(`${v4}/${bits}`).toString();
      expect(compileAllowlist([`${network}/${bits}`])(v4), `${network}/${bits}`).toBe(true);
      expect(compileAllowlist([`${network}/${bits}`])('::ffff:' + v4)).toBe(true);
    }
    expect(compileAllowlist(['203.0.113.0/25'])('203.0.113.128')).toBe(false);
    expect(compileAllowlist(['128.0.0.0/1'])('127.255.255.255')).toBe(false);
    expect(compileAllowlist(['128.0.0.0/1'])('255.255.255.255')).toBe(true);
  });
});
