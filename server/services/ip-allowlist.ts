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

function unmap(addr: Addr): Addr {
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;
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
 * IPv6 zone id is dropped.
 */
export function parseClientIp(ip: string): Addr | null {
  let text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const zone = text.indexOf('%');
  if (zone !== -1 && text.includes(':')) text = text.slice(0, zone); // fe80::1%eth0: the zone is local detail
  const parsed = parseAddress(text);
  return parsed ? unmap(parsed) : null;
}

export type IpMatcher = (clientIp: string) => boolean;

/**
 * Compiles entries (as returned by `normaliseAllowlistEntry`) into a matcher. An address that does not
 * parse never matches. Compile once per key; matching costs one address parse and a prefix compare
 * per entry of the same family.
 */
export function compileAllowlist(entries: readonly string[]): IpMatcher {
  const v4: [ipaddr.IPv4, number][] = [];
  const v6: [ipaddr.IPv6, number][] = [];
  for (const e of entries) {
    const { addr, bits } = parseEntry(e);
    if (addr.kind() === 'ipv4') v4.push([addr as ipaddr.IPv4, bits]);
    else v6.push([addr as ipaddr.IPv6, bits]);
  }
  return (clientIp) => {
    const addr = parseClientIp(clientIp);
    if (!addr) return false;
    if (addr.kind() === 'ipv4') {
      const a = addr as ipaddr.IPv4;
      return v4.some((range) => a.match(range));
    }
    const a = addr as ipaddr.IPv6;
    return v6.some((range) => a.match(range));
  };
}
