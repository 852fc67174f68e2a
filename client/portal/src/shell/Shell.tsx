import { Component, Suspense, useState, type ReactNode } from 'react';
import { Link } from 'wouter';
import type { PortalSession } from '../api';
import { pages } from '../pages/registry';
import { ErrorBanner, Loading } from '../ui';
import { TenantSwitcher } from './TenantSwitcher';
import { UserMenu } from './UserMenu';

/** A page that throws while rendering shows its error instead of blanking the whole portal. */
class PageErrorBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state = { error: null as unknown };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override render() {
    return this.state.error ? <ErrorBanner error={this.state.error} title="This page failed" /> : this.props.children;
  }
}

/** The signed-in frame: top bar (tenant switcher, account menu), navigation, and the page. */
export function Shell({
  session,
  tenantId,
  page,
  children,
}: {
  session: PortalSession;
  tenantId: string;
  page: string;
  children: ReactNode;
}) {
  const [navOpen, setNavOpen] = useState(false);
  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="topbar">
        <button
          type="button"
          className="btn btn-ghost nav-toggle"
          aria-expanded={navOpen}
          aria-controls="main-nav"
          onClick={() => setNavOpen((o) => !o)}
        >
          Menu
        </button>
        <span className="brand">Tenant Memory</span>
        <TenantSwitcher tenantId={tenantId} page={page} />
        <span className="topbar-spacer" />
        <UserMenu session={session} tenantId={tenantId} />
      </header>
      <div className="layout">
        <nav id="main-nav" aria-label="Main" className={navOpen ? 'sidebar open' : 'sidebar'}>
          <ul>
            {pages.map((p) => (
              <li key={p.slug}>
                <Link
                  href={`/t/${tenantId}/${p.slug}`}
                  aria-current={p.slug === page ? 'page' : undefined}
                  onClick={() => setNavOpen(false)}
                >
                  {p.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" className="content" tabIndex={-1}>
          <PageErrorBoundary key={page}>
            <Suspense fallback={<Loading />}>{children}</Suspense>
          </PageErrorBoundary>
        </main>
      </div>
    </div>
  );
}
