import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses the web fetcher may connect to. The rule is an allowlist: only what ipaddr.js
 * classifies as plain `unicast` (and, for IPv6, inside the global unicast block 2000::/3) is public;
 * every special range — private, loopback, link-local, multicast, unspecified, broadcast, CGNAT,
 * documentation, benchmarking, reserved, unique-local, IPv4-mapped / NAT64 / 6to4 / Teredo (which
 * smuggle an IPv4 address inside IPv6) — is refused, including ranges a future ipaddr.js adds.
 */
export interface AddressPolicy {
  /** Null when the address may be used, otherwise why not (`loopback`, `private`, ...). */
  refusal(address: string): string | null;
}

export interface AddressPolicyOptions {
  /** Lets every address through (tests on loopback, fully trusted networks). Default false. */
  allowPrivateAddresses?: boolean;
  /** CIDR ranges exempted from the block (an intranet the operator trusts), e.g. `10.20.0.0/16`. */
  allowedRanges?: string[];
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** Builds the policy; throws on a malformed `allowedRanges` entry so a bad setting stops start-up. */
export function createAddressPolicy(options: AddressPolicyOptions = {}): AddressPolicy {
  const allowed = (options.allowedRanges ?? []).map((cidr) => ipaddr.parseCIDR(cidr));
  return {
    refusal(address) {
      if (!ipaddr.isValid(address)) return 'not an IP address';
      if (options.allowPrivateAddresses) return null;
      const parsed = ipaddr.parse(address);
      if (allowed.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits))) return null;
      const range = parsed.range();
      if (range !== 'unicast') return range;
      if (parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) return 'not global unicast';
      return null;
    },
  };
}

/** The bare address of a URL host that is an IP literal (`[::1]` → `::1`), or null for a name. */
export function ipLiteralOf(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  // WHATWG URL parsing has already normalised IPv4 shorthands (`2130706433`, `0x7f.1`) to dotted quads.
  return ipaddr.IPv4.isValidFourPartDecimal(bare) || (bare.includes(':') && ipaddr.IPv6.isValid(bare)) ? bare : null;
}
