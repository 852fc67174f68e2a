import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Services } from '../container.js';
import { createRequestContext } from '../context.js';
import { AppError } from '../errors.js';
import { authenticatePortalRequest } from '../portal-procedures.js';
import type { UserPrincipal } from '../principal.js';
import type { RequestMeta } from '../services/audit.js';
import { EXPORT_PERMISSION, EXPORT_STEP_UP } from '../services/portal/tenant-export.js';
import type { TrustFn } from './client-address.js';

export const PORTAL_EXPORT_PATH = '/api/portal/export';

/** Writes the export document's pieces (the routers' `exportDocumentText`, passed in by the composition root). */
export type ExportDocumentText = (services: Services, principal: UserPrincipal, meta: RequestMeta) => AsyncGenerator<string>;

/**
 * `POST /api/portal/export` on its REST path. tRPC answers with one JSON value built in memory, so the
 * export is served here instead: the same portal checks as every portal procedure (`authenticatePortalRequest`:
 * same origin, cookie session, CSRF, tenant membership, `data:export`, a `data.export` step-up token),
 * then the document written piece by piece, waiting for the socket to drain whenever its buffer is
 * full. A client that goes away stops the reading (the audit event then says `complete: false`); a
 * failure after the first byte cuts the connection, so the document is visibly truncated.
 */
export function createPortalExportHandler(services: Services, trust: TrustFn, documentText: ExportDocumentText) {
  // One export of a tenant at a time per process: a step-up token allows several calls while it lasts,
  // and each export reads the whole tenant.
  const running = new Set<string>();
  return async (req: IncomingMessage, res: ServerResponse, done: (err?: unknown) => void): Promise<void> => {
    let tenantId: string | null = null;
    try {
      const ctx = createRequestContext(services, req, res, trust);
      const { principal } = await authenticatePortalRequest(ctx, true, {
        tenantMustBeActive: true,
        permission: EXPORT_PERMISSION,
        stepUp: EXPORT_STEP_UP,
      });
      if (running.has(principal.tenantId)) {
        throw new AppError('RATE_LIMITED', 'an export of this tenant is already running; try again when it has finished', {
          retryAfterSeconds: 10,
        });
      }
      tenantId = principal.tenantId;
      running.add(tenantId);
      const pieces = documentText(services, principal, { ip: ctx.ip || null, userAgent: ctx.userAgent });
      // The attachment headers go out with the first piece: a failure before it answers a plain error body.
      const first = await pieces.next();
      const day = new Date(services.clock()).toISOString().slice(0, 10);
      res.statusCode = 200;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Content-Disposition', `attachment; filename="tenant-${principal.tenantId}-export-${day}.json"`);
      if (!first.done) res.write(first.value);
      for await (const piece of pieces) {
        if (res.destroyed) break;
        if (!res.write(piece)) await drained(res);
      }
      if (!res.destroyed) res.end();
    } catch (err) {
      done(err);
    } finally {
      if (tenantId !== null) running.delete(tenantId);
    }
  };
}

/** Resolves when the response can take more, or is gone (a closed socket never drains). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const settle = () => {
      res.off('drain', settle);
      res.off('close', settle);
      resolve();
    };
    res.once('drain', settle);
    res.once('close', settle);
  });
}
