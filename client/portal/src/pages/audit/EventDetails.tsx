import type { AuditEvent } from './auditFormat';

/** An event's details and chain fields, folded away until asked for (a native, keyboard-ready disclosure). */
export function EventDetails({ event }: { event: AuditEvent }) {
  const hasDetails = event.details !== null && Object.keys(event.details).length > 0;
  return (
    <details className="audit-details">
      <summary>
        {hasDetails ? 'Details' : 'More'}
        <span className="visually-hidden"> of event #{event.seq}</span>
      </summary>
      <dl className="facts">
        <dt>Sequence</dt>
        <dd>{event.seq}</dd>
        {event.user_agent && (
          <>
            <dt>User agent</dt>
            <dd>{event.user_agent}</dd>
          </>
        )}
        <dt>Hash</dt>
        <dd>
          <code className="audit-hash">{event.hash}</code>
        </dd>
      </dl>
      {hasDetails && <pre className="audit-json">{JSON.stringify(event.details, null, 2)}</pre>}
    </details>
  );
}
