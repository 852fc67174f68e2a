import type { ChangeSignal } from '../../adapters/embedded/change-signal.js';

/** For a database only this process can open (in memory): a counter. */
export function processChangeSignal(): ChangeSignal {
  let n = 0;
  return {
    stamp: () => String(n),
    bump: () => void n++,
  };
}
