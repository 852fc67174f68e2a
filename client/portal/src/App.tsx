import { QueryClientProvider } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Redirect, Route, Router, Switch, useLocation, useSearch } from 'wouter';
import { httpStatusOf, onCallFailure, queryClient } from './api';
import SignInPage from './pages/sign-in';
import { homeOf, useSession } from './session';
import { TenantArea } from './shell/TenantArea';
import { EmptyState, ErrorBanner, Loading } from './ui';

/** Any call answered 401 (no session, or it ended or was revoked) sends the browser to sign in, then back. */
function SignInOnUnauthenticated() {
  const [location, navigate] = useLocation();
  useEffect(
    () =>
      onCallFailure((error) => {
        if (httpStatusOf(error) !== 401 || location === '/' || location === '/sign-in') return;
        queryClient.removeQueries({ predicate: (q) => q.state.status === 'error' });
        navigate(`/sign-in?next=${encodeURIComponent(location)}`, { replace: true });
      }),
    [location, navigate],
  );
  return null;
}

/** `/portal/`: the user's home tenant when signed in, otherwise sign-in (also where SSO failures land). */
function Home() {
  const ssoError = new URLSearchParams(useSearch()).has('sso_error');
  const session = useSession();
  if (ssoError) return <SignInPage />;
  if (session.isPending) return <Loading />;
  if (session.data) return <Redirect to={homeOf(session.data)} replace />;
  if (httpStatusOf(session.error) === 401) return <SignInPage />;
  return <ErrorBanner error={session.error} />;
}

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <Router base="/portal">
        <SignInOnUnauthenticated />
        <Switch>
          <Route path="/t/:tenantId/:page?">{(params) => <TenantArea tenantId={params.tenantId} page={params.page} />}</Route>
          <Route path="/sign-in" component={SignInPage} />
          <Route path="/" component={Home} />
          <Route>
            <main id="main" className="center-page">
              <EmptyState title="Page not found">
                <a href="/portal/">Go to the portal&apos;s start page</a>
              </EmptyState>
            </main>
          </Route>
        </Switch>
      </Router>
    </QueryClientProvider>
  );
}
