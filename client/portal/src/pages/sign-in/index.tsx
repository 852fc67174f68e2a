import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Redirect, useLocation, useSearch } from 'wouter';
import { client, queryClient, setCsrfToken, trpc } from '../../api';
import { homeOf, useSession } from '../../session';
import { Button, ErrorBanner, Loading, PageHeader, TextField } from '../../ui';

/** Only paths inside the portal are followed after sign-in (no open redirect through `?next=`). */
const safeNext = (next: string | null) => (next && /^\/t\/[\w-]+(\/[\w-]*)?$/.test(next) ? next : null);

export default function SignInPage() {
  const params = new URLSearchParams(useSearch());
  const ssoError = params.get('sso_error');
  const next = safeNext(params.get('next'));
  const [, navigate] = useLocation();
  const session = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const login = useMutation({
    mutationFn: () => client.portal.login.mutate({ email, password }),
    onSuccess: (signedIn) => {
      setCsrfToken(signedIn.csrf_token);
      queryClient.setQueryData(trpc.portal.session.queryKey({}), signedIn);
      navigate(next ?? homeOf(signedIn), { replace: true });
    },
  });
  const providers = useQuery(trpc.sso.providers.queryOptions({}));
  const sso = useMutation({
    mutationFn: (provider: string) => client.portal.ssoLogin.mutate({ provider }),
    onSuccess: ({ authorization_url }) => window.location.assign(authorization_url),
  });
  if (session.isPending && !ssoError) return <Loading />;
  if (session.data && !ssoError) return <Redirect to={next ?? homeOf(session.data)} replace />;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate();
  };
  return (
    <main id="main" className="sign-in">
      <div className="sign-in-card">
        <p className="brand">Tenant Memory</p>
        <PageHeader title="Sign in" />
        {ssoError && (
          <div className="banner banner-error" role="alert">
            <strong>Single sign-on failed</strong>
            <p>{ssoFailureText(ssoError)}</p>
          </div>
        )}
        <form onSubmit={submit} className="form" aria-label="Sign in with email and password">
          <TextField label="Email" type="email" autoComplete="username" value={email} onChange={setEmail} required />
          <TextField label="Password" type="password" autoComplete="current-password" value={password} onChange={setPassword} required />
          <ErrorBanner error={login.error} title="Could not sign in" />
          <Button type="submit" variant="primary" busy={login.isPending}>
            Sign in
          </Button>
        </form>
        {providers.data && providers.data.providers.length > 0 && (
          <section className="sso" aria-labelledby="sso-heading">
            <h2 id="sso-heading">Or use single sign-on</h2>
            <ErrorBanner error={sso.error} title="Could not start single sign-on" />
            {providers.data.providers.map((p) => (
              <Button key={p.id} busy={sso.isPending && sso.variables === p.id} onClick={() => sso.mutate(p.id)}>
                Continue with {p.id}
              </Button>
            ))}
          </section>
        )}
      </div>
    </main>
  );
}

/**
 * The server sends only an error code back from the provider's redirect (never free text, which anyone
 * could put in the URL); the page words it.
 */
const SSO_FAILURES: Record<string, string> = {
  UNAUTHENTICATED:
    'The sign-in could not be completed: it was refused, took too long or was started in another browser. Please start again.',
  FORBIDDEN: 'This account may not sign in here. Ask an administrator of your organisation.',
  RATE_LIMITED: 'Too many sign-in attempts from here. Wait a few minutes and try again.',
  DEPENDENCY_UNAVAILABLE: 'The identity provider could not be reached. Try again shortly.',
};

function ssoFailureText(code: string): string {
  return SSO_FAILURES[code] ?? 'The sign-in could not be completed. Please start again.';
}
