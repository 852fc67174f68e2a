export function Spinner({ label = 'Loading…', size = 'normal' }: { label?: string; size?: 'small' | 'normal' }) {
  return (
    <span className={`spinner spinner-${size}`} role={label ? 'status' : undefined}>
      <span className="spinner-ring" aria-hidden="true" />
      {label && <span className="visually-hidden">{label}</span>}
    </span>
  );
}

/** A whole-area loading state, centred. */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading">
      <Spinner label={label} />
    </div>
  );
}
