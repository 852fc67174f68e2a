import { useQuery } from '@tanstack/react-query';
import { trpc } from '../../api';
import { ErrorBanner, Loading } from '../../ui';

/** Each built-in role, what it is for, and its permissions. */
export function RolesPanel() {
  const roles = useQuery({ ...trpc.portal.roles.queryOptions({}), staleTime: Infinity });
  return (
    <section className="card" aria-labelledby="roles-heading">
      <h2 id="roles-heading">Roles and permissions</h2>
      {roles.isPending ? (
        <Loading label="Loading roles…" />
      ) : roles.isError ? (
        <ErrorBanner error={roles.error} title="Could not load the roles" />
      ) : (
        <div className="mb-roles">
          {roles.data.roles.map((r) => (
            <section key={r.name} className="mb-role" aria-labelledby={`role-${r.name}`}>
              <h3 id={`role-${r.name}`}>{r.name}</h3>
              <p>{r.description}</p>
              <ul aria-label={`Permissions of ${r.name}`}>
                {r.permissions.map((p) => (
                  <li key={p}>
                    <code>{p}</code>
                  </li>
                ))}
              </ul>
            </section>
          ))}
        </div>
      )}
    </section>
  );
}
