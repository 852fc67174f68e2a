import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import proxyAddr from 'proxy-addr';

/** Decides whether a hop (address, index from the socket) is a trusted proxy. */
export type TrustFn = (address: string, hop: number) => boolean;

/**
 * TRUST_PROXY as a trust function, with express's meaning (so configurations written for express keep
 * working): `false`, `true`, a hop count, or a comma-separated list of addresses, CIDRs and the names
 * proxy-addr knows (`loopback`, `linklocal`, `uniquelocal`).
 */
export function compileTrust(value: string): TrustFn {
  const v = value.trim();
  if (v === '' || v === 'false' || v === '0') return () => false;
  if (v === 'true') return () => true;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    return (_address, hop) => hop < hops;
  }
  return proxyAddr.compile(v.split(',').map((s) => s.trim()));
}

/**
 * The client's address: the socket's, or the nearest untrusted one of X-Forwarded-For. A client can
 * write any text there, and proxy-addr hands back an entry that is not an address as it is (up to the
 * header limit, into sessions, audit events and throttle keys), so such an entry is not believed, nor
 * anything beyond it: the last address before it counts instead.
 */
export function clientAddress(req: IncomingMessage, trust: TrustFn): string {
  const address = proxyAddr(req, trust);
  if (isIP(address)) return address;
  // Walking out from the socket, the chain is believed up to its first entry that is not an address.
  let nearest = req.socket.remoteAddress ?? '';
  for (const hop of proxyAddr.all(req, trust).slice(1)) {
    if (!isIP(hop)) break;
    nearest = hop;
  }
  return nearest;
}

/**
 * The origin (scheme://host[:port]) as the client addressed this server; X-Forwarded-Proto and
 * X-Forwarded-Host count only when the socket's peer is a trusted proxy. Null when there is no usable host.
 */
export function requestOrigin(req: IncomingMessage, trust: TrustFn): string | null {
  const peerTrusted = trust(req.socket.remoteAddress ?? '', 0);
  const first = (header: string | string[] | undefined) => (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim() || undefined;
  const scheme = (peerTrusted && first(req.headers['x-forwarded-proto'])) || ((req.socket as TLSSocket).encrypted ? 'https' : 'http');
  const host = (peerTrusted && first(req.headers['x-forwarded-host'])) || req.headers.host;
  if (!host) return null;
  try {
    const origin = new URL(`${scheme}://${host}`).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}
