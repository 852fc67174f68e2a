import { useEffect, useState } from 'react';
import { Button } from './Button';

/** Copies `value` to the clipboard and says so (to screen readers too) for two seconds. */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = () => {
    navigator.clipboard.writeText(value).then(
      () => setState('copied'),
      () => setState('failed'),
    );
  };
  return (
    <>
      <Button onClick={copy}>{state === 'copied' ? 'Copied' : label}</Button>
      <span className="visually-hidden" role="status">
        {state === 'copied' ? 'Copied to the clipboard' : state === 'failed' ? 'Could not copy; select the text and copy it' : ''}
      </span>
    </>
  );
}
