import type { MemoryDetail } from './types';

const POLICY: Record<string, string> = {
  NEWER_WINS: 'the newer of two conflicting memories wins and the older one is superseded',
  FLAG: 'both conflicting memories are kept and flagged for a person to review',
};

/** Why a memory is flagged: the injection screen's findings and the contradiction state, in words. */
export function FlagsSection({ memory, onOpen }: { memory: MemoryDetail; onOpen: (id: string) => void }) {
  return (
    <section className="card" aria-labelledby="mem-flags-heading">
      <h2 id="mem-flags-heading">Flags</h2>
      <h3 className="mem-h3">Prompt injection: {memory.injection_flagged ? 'flagged' : 'not flagged'}</h3>
      {memory.injection_flagged ? (
        <>
          <p>
            The injection screen found text that tries to instruct an AI agent (score {memory.injection_score.toFixed(2)} of 1). Searches
            leave this memory out unless they ask for flagged memories.
          </p>
          {memory.injection_patterns.length > 0 && (
            <ul className="mem-list">
              {memory.injection_patterns.map((p, i) => (
                <li key={`${p.id}-${i}`}>
                  <strong>{p.id}</strong> ({p.category}
                  {p.field ? `, in ${p.field}` : ''}): <q>{p.evidence}</q>
                </li>
              ))}
            </ul>
          )}
        </>
      ) : (
        <p>The injection screen found nothing (score {memory.injection_score.toFixed(2)} of 1).</p>
      )}
      <h3 className="mem-h3">Contradiction: {memory.contradiction_status}</h3>
      <p>
        {memory.contradiction_status === 'flagged'
          ? 'This memory contradicts another one and waits for review.'
          : memory.contradiction_status === 'resolved'
            ? 'A contradiction with another memory was resolved.'
            : 'No contradiction found.'}{' '}
        Policy {memory.contradiction_policy}: {POLICY[memory.contradiction_policy] ?? memory.contradiction_policy}.
      </p>
      {memory.conflicts_with.length > 0 && (
        <>
          <p>Conflicts with:</p>
          <ul className="mem-list">
            {memory.conflicts_with.map((id) => (
              <li key={id}>
                <button type="button" className="mem-link" onClick={() => onOpen(id)}>
                  Memory <code>{id}</code>
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      {memory.superseded_by && (
        <p>
          Superseded by{' '}
          <button type="button" className="mem-link" onClick={() => onOpen(memory.superseded_by!)}>
            memory <code>{memory.superseded_by}</code>
          </button>
          .
        </p>
      )}
    </section>
  );
}
