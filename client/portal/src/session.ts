import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { setCsrfToken, trpc } from './api';

/** The portal session (`GET /api/portal/session`): who is signed in, their tenants, the CSRF token. */
export function useSession() {
  // A 401 is an answer, not a failure to retry: without retryOnMount each newly mounted reader (the
  // sign-in page under the start page) would refetch it and blank the page while doing so.
  const session = useQuery({ ...trpc.portal.session.queryOptions({}), retry: false, retryOnMount: false });
  const token = session.data?.csrf_token;
  useEffect(() => setCsrfToken(token), [token]);
  return session;
}

/** Where a signed-in user lands: their session's tenant's dashboard. */
export const homeOf = (session: { tenant_id: string }) => `/t/${session.tenant_id}/dashboard`;
