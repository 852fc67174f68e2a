import { errorBodyOf } from '../api';

/** An API failure as the server explained it: its message, code and request id (for support). */
export function ErrorBanner({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  if (!error) return null;
  const body = errorBodyOf(error);
  return (
    <div className="banner banner-error" role="alert">
      <strong>{title}</strong>
      <p>{body.message}</p>
      {body.fields && body.fields.length > 0 && (
        <ul>
          {body.fields.map((f) => (
            <li key={f.field}>
              {f.field}: {f.message}
            </li>
          ))}
        </ul>
      )}
      <p className="banner-meta">
        <code>{body.code}</code>
        {body.request_id && <> · request {body.request_id}</>}
      </p>
    </div>
  );
}
