import { TRPCClientError } from '@trpc/client';
import type { ApiErrorBody } from '../../api';

export const EXPORT_PATH = '/api/portal/export';

export interface ExportRequest {
  tenantId: string;
  csrfToken: string;
  stepUpToken: string;
  signal: AbortSignal;
  /** Called with the bytes received so far, after every chunk. */
  onProgress: (bytes: number) => void;
}

export interface SavedExport {
  filename: string;
  bytes: number;
}

/**
 * The export is streamed on its REST path (tRPC cannot stream a body): the same cookie, CSRF token,
 * tenant and step-up token the typed client would send, read chunk by chunk into a Blob (so progress
 * can be shown), then handed to the browser as a file download.
 */
export async function downloadExport(request: ExportRequest): Promise<SavedExport> {
  const res = await fetch(EXPORT_PATH, {
    method: 'POST',
    credentials: 'same-origin',
    headers: {
      'x-csrf-token': request.csrfToken,
      'x-tenant-id': request.tenantId,
      'x-step-up-token': request.stepUpToken,
    },
    signal: request.signal,
  });
  if (!res.ok || !res.body) throw await apiErrorOf(res);
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let bytes = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    bytes += value.byteLength;
    request.onProgress(bytes);
  }
  const filename = filenameOf(res.headers.get('content-disposition')) ?? `tenant-${request.tenantId}-export.json`;
  saveFile(new Blob(chunks, { type: 'application/json' }), filename);
  return { filename, bytes };
}

function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own reference once started; release ours a little later.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

const filenameOf = (disposition: string | null): string | undefined => /filename="([^"]+)"/.exec(disposition ?? '')?.[1];

/** The REST error body as the error the kit's ErrorBanner reads (a tRPC client error carrying `data.app`). */
async function apiErrorOf(res: Response): Promise<TRPCClientError<never>> {
  const parsed = (await res.json().catch(() => null)) as Partial<ApiErrorBody> | null;
  const app: ApiErrorBody = {
    code: parsed?.code ?? `HTTP_${res.status}`,
    message: parsed?.message ?? `the export failed (HTTP ${res.status})`,
    ...(parsed?.request_id ? { request_id: parsed.request_id } : {}),
    ...(parsed?.fields ? { fields: parsed.fields } : {}),
  };
  return new TRPCClientError(app.message, {
    result: { error: { code: -32000, message: app.message, data: { app, httpStatus: res.status } } },
  } as ConstructorParameters<typeof TRPCClientError<never>>[1]);
}
