import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import type { AddressPolicy } from './address-policy.js';

/** Resolves a host name to every address it has (the default is the system resolver, `dns.lookup`). */
export type ResolveHost = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const systemResolve: ResolveHost = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** A connection refused by the address policy; the fetcher reports it as `blocked_address`. */
export class BlockedAddressError extends Error {
  override name = 'BlockedAddressError';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(`${host} → ${address} is not a public address (${range})`);
  }
}

/**
 * The `lookup` handed to `net.connect`/`tls.connect`: resolves once, refuses the host when ANY of its
 * addresses is not public (a name that mixes public and private answers is a rebinding tool), and
 * gives the socket exactly the addresses it checked. The check and the connection use the same answer,
 * so a DNS server that changes its answer between them (rebinding) has nothing to change.
 */
export function guardedLookup(resolve: ResolveHost, policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    const done = callback as (err: Error | null, address?: unknown, family?: number) => void;
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) return done(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }));
        for (const { address } of addresses) {
          const range = policy.refusal(address);
          if (range) return done(new BlockedAddressError(hostname, address, range));
        }
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
        const usable = wanted.length > 0 ? wanted : addresses;
        if (options.all) return done(null, usable);
        const first = usable[0]!;
        return done(null, first.address, first.family);
      },
      (err: unknown) => done(err instanceof Error ? err : new Error(String(err))),
    );
  };
}

/**
 * undici's connector with the guarded lookup, plus a last check of the peer address of the socket
 * actually opened: whatever path produced the address (an IP literal skips `lookup`), a socket whose
 * peer is not public is destroyed before a byte of the request is written.
 */
export function guardedConnector(resolve: ResolveHost, policy: AddressPolicy, timeoutMs: number): buildConnector.connector {
  const connect = buildConnector({ lookup: guardedLookup(resolve, policy), timeout: timeoutMs } as buildConnector.BuildOptions);
  return (options, callback) =>
    connect(options, (err, socket) => {
      if (err || !socket) return callback(err ?? new Error('no socket'), null);
      const peer = socket.remoteAddress;
      const range = peer ? policy.refusal(peer) : 'unknown peer';
      if (range) {
        socket.destroy();
        return callback(new BlockedAddressError(options.hostname, peer ?? '?', range), null);
      }
      return callback(null, socket);
    });
}
