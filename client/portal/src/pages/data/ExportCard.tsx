import { useQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { currentTenantId, trpc } from '../../api';
import { Button, ErrorBanner, StepUpCancelled, useStepUp } from '../../ui';
import { downloadExport } from './downloadExport';
import { formatBytes } from './formatBytes';

type ExportState =
  | { kind: 'idle' }
  | { kind: 'cancelled' }
  | { kind: 'running'; bytes: number }
  | { kind: 'saved'; filename: string; bytes: number }
  | { kind: 'failed'; error: unknown };

/**
 * "Export": confirm it's you (step-up `data.export`), then the tenant's whole store streams down as one
 * JSON file, with the bytes received so far announced, and a way to stop.
 */
export function ExportCard({ allowed }: { allowed: boolean | undefined }) {
  const session = useQuery(trpc.portal.session.queryOptions({}));
  const { requestToken, dialog } = useStepUp('data.export');
  const [state, setState] = useState<ExportState>({ kind: 'idle' });
  const abort = useRef<AbortController | null>(null);

  const start = async () => {
    const tenantId = currentTenantId();
    const csrfToken = session.data?.csrf_token;
    if (!tenantId || !csrfToken) return;
    setState({ kind: 'idle' });
    let stepUpToken: string;
    try {
      stepUpToken = await requestToken();
    } catch (err) {
      setState(err instanceof StepUpCancelled ? { kind: 'cancelled' } : { kind: 'failed', error: err });
      return;
    }
    const controller = new AbortController();
    abort.current = controller;
    setState({ kind: 'running', bytes: 0 });
    try {
      const saved = await downloadExport({
        tenantId,
        csrfToken,
        stepUpToken,
        signal: controller.signal,
        onProgress: (bytes) => setState({ kind: 'running', bytes }),
      });
      setState({ kind: 'saved', ...saved });
    } catch (err) {
      setState(controller.signal.aborted ? { kind: 'cancelled' } : { kind: 'failed', error: err });
    } finally {
      abort.current = null;
    }
  };

  const running = state.kind === 'running';
  return (
    <section className="card" aria-labelledby="export-heading">
      <h2 id="export-heading">Export</h2>
      <p>
        Download everything this tenant stores as one JSON file: every memory with all its stored versions (merged duplicates included) and
        every knowledge object with each field&apos;s provenance and confidence. You will be asked to confirm it&apos;s you first; the
        export is recorded in the audit log.
      </p>
      {allowed === false && <p className="data-note">Only owners and admins can export the tenant&apos;s data.</p>}
      <div className="data-actions">
        <Button variant="primary" busy={running} disabled={allowed !== true || !session.data} onClick={() => void start()}>
          Export data
        </Button>
        {running && <Button onClick={() => abort.current?.abort()}>Stop export</Button>}
      </div>
      <p role="status" aria-live="polite" data-testid="export-status">
        {state.kind === 'running' && `Downloading… ${formatBytes(state.bytes)} received`}
        {state.kind === 'saved' && `Export saved as ${state.filename} (${formatBytes(state.bytes)}).`}
        {state.kind === 'cancelled' && 'Export cancelled: nothing was downloaded.'}
      </p>
      {state.kind === 'failed' && <ErrorBanner error={state.error} title="The export failed; nothing was saved" />}
      {dialog}
    </section>
  );
}
