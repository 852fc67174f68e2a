import { CopyButton } from '../../ui';

function snippets(origin: string) {
  return [
    {
      id: 'curl-create',
      title: 'Write a memory (curl)',
      code: `curl -X POST '${origin}/memories' \\
  -H 'X-API-Key: <your key>' \\
  -H 'Content-Type: application/json' \\
  -d '{"content": "Ada lives in London", "tags": ["people"]}'`,
    },
    {
      id: 'curl-search',
      title: 'Search memories (curl)',
      code: `curl -G '${origin}/memories/search' \\
  -H 'X-API-Key: <your key>' \\
  --data-urlencode 'q=where does Ada live' \\
  --data-urlencode 'mode=hybrid'`,
    },
    {
      id: 'ts-client',
      title: 'TypeScript client',
      code: `// client/index.ts of this package (tRPC, typed end to end)
import { createTenantMemoryClient } from './client/index.js';

const client = createTenantMemoryClient({ url: '${origin}', apiKey: '<your key>' });
await client.memories.create.mutate({ content: 'Ada lives in London' });
const page = await client.search.memories.query({ q: 'where does Ada live', mode: 'hybrid' });`,
    },
  ];
}

/** Copyable first calls, with this portal's origin filled in and the key left for the user to paste. */
export function Snippets() {
  return (
    <div className="dash-snippets">
      {snippets(window.location.origin).map((s) => (
        <div key={s.id} className="dash-snippet">
          <div className="dash-snippet-head">
            <h3 id={`snippet-${s.id}`}>{s.title}</h3>
            <CopyButton value={s.code} label={`Copy: ${s.title}`} />
          </div>
          <pre tabIndex={0} aria-labelledby={`snippet-${s.id}`} data-testid={`snippet-${s.id}`}>
            <code>{s.code}</code>
          </pre>
        </div>
      ))}
    </div>
  );
}
