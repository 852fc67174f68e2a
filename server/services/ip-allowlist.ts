import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * IP allowlists of API keys: parsing (at key creation) and matching (on every request).
 *
 * Accepted entries: an IPv4 address in dotted four-part decimal (`203.0.113.7`), an IPv6 address
 * (`2001:db8::1`), or either as a CIDR range (`10.0.0.0/8`, `2001:db8::/32`). A range whose address has
 * host bits set (`10.1.2.3/8`) is rejected rather than silently widened or narrowed. Non-canonical IPv4
 * forms that some parsers accept (`127.1`, `0x7f.0.0.1`, `017.0.0.1`) and IPv6 zone ids are rejected.
 *
 * IPv4-mapped IPv6 (`::ffff:203.0.113.7`, `::ffff:10.0.0.0/104`) IS IPv4: such entries are stored in
 * their IPv4 form, and a client seen as `::ffff:a.b.c.d` (a dual-stack socket) is matched as `a.b.c.d`.
 * Consequently IPv4 clients match only IPv4 entries: `::/0` means "every IPv6 client", not everyone.
 */

type Addr = ipaddr.IPv4 | ipaddr.IPv6;

export class AllowlistEntryError extends Error {
  override name = 'AllowlistEntryError';
  constructor(
    readonly entry: string,
    reason: string,
  ) {
    super(`'${entry}' is not a valid IP address or CIDR range: ${reason}`);
  }
}

/** Strict address parse; null when `text` is not a canonical IPv4 or a valid IPv6 address. */
function parseAddress(text: string): Addr | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (text.includes(':') && !text.includes('%') && ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text);
  return null;
}

function format(addr: Addr): string {
  return addr.kind() === 'ipv6' ? (addr as ipaddr.IPv6).toRFC5952String() : addr.toString();
}

interface Range {
  addr: Addr;
  bits: number;
}

function parseEntry(raw: string): Range {
  const entry = raw.trim();
  if (entry === '') throw new AllowlistEntryError(raw, 'empty entry');
  const slash = entry.indexOf('/');
  const addrText = slash === -1 ? entry : entry.slice(0, slash);
  const parsed = parseAddress(addrText);
  if (!parsed) throw new AllowlistEntryError(raw, 'not an IPv4 (dotted decimal) or IPv6 address');
  const max = parsed.kind() === 'ipv4' ? 32 : 128;
  let bits = max;
  if (slash !== -1) {
    const prefixText = entry.slice(slash + 1);
    if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max) {
      throw new AllowlistEntryError(raw, `prefix length must be 0 to ${max}`);
    }
    bits = Number(prefixText);
  }
  let addr = parsed;
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    if (bits < 96) throw new AllowlistEntryError(raw, 'an IPv4-mapped range needs a prefix of at least 96');
    addr = (addr as ipaddr.IPv6).toIPv4Address();
    bits -= 96;
  }
  const network = networkOf(addr, bits);
  if (format(network) !== format(addr)) {
    throw new AllowlistEntryError(raw, `host bits are set; did you mean ${format(network)}/${bits}?`);
  }
  return { addr, bits };
}

function networkOf(addr: Addr, bits: number): Addr {
  const bytes = addr.toByteArray();
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    bytes[i] = bytes[i]! & ((0xff << (8 - keep)) & 0xff);
  }
  return ipaddr.fromByteArray(bytes);
}

/**
 * Validates one allowlist entry and returns its canonical form (`10.0.0.0/8`, `2001:db8::1`,
 * `203.0.113.7`). Single addresses stay without a prefix. Throws AllowlistEntryError naming the entry.
 */
export function normaliseAllowlistEntry(raw: string): string {
  const { addr, bits } = parseEntry(raw);
  const max = addr.kind() === 'ipv4' ? 32 : 128;
  return bits === max ? format(addr) : `${format(addr)}/${bits}`;
}

/**
 * Parses a client address (socket or X-Forwarded-For) strictly; IPv4-mapped IPv6 becomes IPv4 and an
 * IPv6 zone id is dropped. (For display and tests; matching uses the faster `clientAddress`.)
 */
export function parseClientIp(ip: string): Addr | null {
  const client = clientAddress(ip);
  if (!client) return null;
  if (client.v4 !== null)
    return ipaddr.fromByteArray([client.v4 >>> 24, (client.v4 >>> 16) & 0xff, (client.v4 >>> 8) & 0xff, client.v4 & 0xff]);
  return new ipaddr.IPv6(client.v6!);
}

/** A client address as numbers: IPv4 as an unsigned 32-bit integer, IPv6 as eight 16-bit groups. */
interface ClientAddress {
  v4: number | null;
  v6: number[] | null;
}

function v4ToInt(text: string): number {
  const p = text.split('.');
  return ((Number(p[0]) << 24) | (Number(p[1]) << 16) | (Number(p[2]) << 8) | Number(p[3])) >>> 0;
}

/** Eight groups of an address already validated by `net.isIPv6` (so no syntax checks are needed here). */
function v6Groups(text: string): number[] {
  let s = text;
  let tail: [number, number] | null = null;
  const lastColon = s.lastIndexOf(':');
  if (s.indexOf('.', lastColon) !== -1) {
    const v4 = v4ToInt(s.slice(lastColon + 1));
    tail = [v4 >>> 16, v4 & 0xffff];
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const gap = s.indexOf('::');
  let groups: string[];
  if (gap === -1) groups = s.split(':');
  else {
    const head = gap === 0 ? [] : s.slice(0, gap).split(':');
    const rest = gap + 2 === s.length ? [] : s.slice(gap + 2).split(':');
    groups = [...head, ...Array<string>(8 - head.length - rest.length).fill('0'), ...rest];
  }
  const out = groups.map((g) => parseInt(g, 16));
  if (tail) {
    out[6] = tail[0];
    out[7] = tail[1];
  }
  return out;
}

/**
 * The hot-path parse of a client address: Node's native `isIP` validates (dotted four-part decimal
 * only for IPv4, as express reports), then a few string operations produce numbers. IPv4-mapped IPv6
 * becomes IPv4; brackets and an IPv6 zone id are dropped. null when the text is not an address.
 */
function clientAddress(ip: string): ClientAddress | null {
  let text = ip;
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone !== -1 && text.includes(':')) text = text.slice(0, zone);
  const kind = isIP(text);
  if (kind === 4) return { v4: v4ToInt(text), v6: null };
  if (kind !== 6) return null;
  const groups = v6Groups(text);
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff) {
    return { v4: ((groups[6]! << 16) | groups[7]!) >>> 0, v6: null };
  }
  return { v4: null, v6: groups };
}

export type IpMatcher = (clientIp: string) => boolean;

/**
 * Compiles entries (as returned by `normaliseAllowlistEntry`) into a matcher. An address that does not
 * parse never matches. Compile once per key: ranges become integer network/mask pairs, so a match is
 * one native address validation plus integer compares (no regular expressions, no allocation per entry).
 */
export function compileAllowlist(entries: readonly string[]): IpMatcher {
  const v4: { net: number; mask: number }[] = [];
  const v6: { groups: number[]; bits: number }[] = [];
  for (const e of entries) {
    const { addr, bits } = parseEntry(e);
    const bytes = addr.toByteArray();
    if (addr.kind() === 'ipv4') {
      const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
      const addrInt = (bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!;
      v4.push({ net: (addrInt & mask) >>> 0, mask });
    } else {
      v6.push({ groups: Array.from({ length: 8 }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!), bits });
    }
  }
  const inV6 = (client: number[], range: { groups: number[]; bits: number }) => {
    let bits = range.bits;
    for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
      const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
      if ((client[i]! & mask) !== range.groups[i]) return false;
    }
    return true;
  };
  return (clientIp) => {
    const client = clientAddress(clientIp);
    if (!client) return false;
    if (client.v4 !== null) {
      const a = client.v4;
      for (const r of v4) if ((a & r.mask) >>> 0 === r.net) return true;
      return false;
    }
    const groups = client.v6!;
    for (const r of v6) if (inV6(groups, r)) return true;
    return false;
  };
}
