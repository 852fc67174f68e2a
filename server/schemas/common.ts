import { z } from 'zod';
import { safeText } from './safe-text.js';

/** Schema pieces every area's routes share, defined once so tRPC, REST and the OpenAPI document agree. */

/** Every timestamp the API reads or writes: RFC 3339 in UTC, as `new Date().toISOString()` writes it. */
export const timestamp = z.iso.datetime().meta({ description: 'RFC 3339 timestamp', example: '2025-01-31T12:00:00.000Z' });

/** The input of a route that takes none (REST and tRPC callers may send `{}`). */
export const emptyInput = z.object({});

/**
 * `{id}` of a resource whose ids the server mints as text (memories, API keys): any id is looked up,
 * so an unknown or malformed one answers 404 alike.
 */
export const textIdInput = (description: string) => z.object({ id: safeText().min(1).max(128).meta({ description }) });

/** `{id}` of a resource whose ids are UUIDs checked on the way in (break-glass requests, invitations). */
export const uuidIdInput = z.object({ id: z.uuid() });

/** A memory's metadata as the API returns it: a flat object of JSON scalars. */
export const metadataOutput = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));
