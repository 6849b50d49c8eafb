import { Component, type ErrorInfo, type ReactNode } from 'react';
import { ErrorBox, Loading } from './components/ui.tsx';
import { AiUsagePage } from './pages/ai-usage.tsx';
import { ApiKeysPage } from './pages/api-keys.tsx';
import { AuditPage } from './pages/audit.tsx';
import { ConnectorDetailPage } from './pages/connector-detail.tsx';
import { ConnectorsPage } from './pages/connectors.tsx';
import { DocumentPage } from './pages/document.tsx';
import { McpPage } from './pages/mcp.tsx';
import { PeoplePage } from './pages/people.tsx';
import { SearchPage } from './pages/search.tsx';
import { SetupPage } from './pages/setup.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { SsoPage } from './pages/sso.tsx';
import { StatusPage } from './pages/status.tsx';
import { TranslationsPage } from './pages/translations.tsx';
import { UploadPage } from './pages/upload.tsx';
import { Link, useLocation } from './router.tsx';
import { type Permission, useSession } from './session.tsx';

interface NavItem {
  readonly href: string;
  readonly label: string;
  readonly permission: Permission;
}

const NAV: readonly NavItem[] = [
  { href: '/search', label: 'Search', permission: 'query' },
  { href: '/connectors', label: 'Connectors', permission: 'connector:read' },
  { href: '/upload', label: 'Upload', permission: 'connector:write' },
  { href: '/ai-usage', label: 'AI usage', permission: 'ai_usage:read' },
  { href: '/translations', label: 'Translations', permission: 'query' },
  { href: '/people', label: 'People & access', permission: 'query' },
  { href: '/sso', label: 'Single sign-on', permission: 'admin' },
  { href: '/keys', label: 'API keys', permission: 'admin' },
  { href: '/audit', label: 'Audit log', permission: 'admin' },
  { href: '/mcp', label: 'MCP', permission: 'query' },
  { href: '/status', label: 'Status', permission: 'admin' },
];

function route(pathname: string): { page: ReactNode; nav: string } {
  const doc = /^\/documents\/([^/]+)$/.exec(pathname);
  if (doc?.[1]) return { page: <DocumentPage id={decodeURIComponent(doc[1])} />, nav: '/search' };
  const con = /^\/connectors\/([^/]+)$/.exec(pathname);
  if (con?.[1]) return { page: <ConnectorDetailPage id={decodeURIComponent(con[1])} />, nav: '/connectors' };
  switch (pathname) {
    case '/':
    case '/search':
      return { page: <SearchPage />, nav: '/search' };
    case '/connectors':
    // Just signed in on the setup page: connecting a source is the next step.
    case '/setup':
      return { page: <ConnectorsPage />, nav: '/connectors' };
    case '/ai-usage':
      return { page: <AiUsagePage />, nav: '/ai-usage' };
    case '/translations':
      return { page: <TranslationsPage />, nav: '/translations' };
    case '/people':
      return { page: <PeoplePage />, nav: '/people' };
    case '/sso':
      return { page: <SsoPage />, nav: '/sso' };
    case '/keys':
      return { page: <ApiKeysPage />, nav: '/keys' };
    case '/audit':
      return { page: <AuditPage />, nav: '/audit' };
    case '/mcp':
      return { page: <McpPage />, nav: '/mcp' };
    case '/upload':
      return { page: <UploadPage />, nav: '/upload' };
    case '/status':
      return { page: <StatusPage />, nav: '/status' };
    default:
      return {
        page: (
          <div className="notice" role="status">
            There is no page at <code>{pathname}</code>. <Link href="/search">Go to search</Link>.
          </div>
        ),
        nav: '',
      };
  }
}

/** Keeps one broken page from blanking the whole console. */
class PageBoundary extends Component<{ children: ReactNode; resetKey: string }, { error: unknown }> {
  override state = { error: undefined as unknown };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override componentDidUpdate(prev: { resetKey: string }) {
    if (prev.resetKey !== this.props.resetKey && this.state.error !== undefined) this.setState({ error: undefined });
  }
  override componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error(error, info.componentStack);
  }
  override render() {
    if (this.state.error !== undefined) return <ErrorBox title="This page failed" error={this.state.error} />;
    return this.props.children;
  }
}

export function App() {
  const session = useSession();
  const { pathname } = useLocation();
  if (session.checking) return <Loading label="Checking your sign-in…" />;
  if (!session.me) return pathname === '/setup' ? <SetupPage /> : <SignInPage />;
  const me = session.me;
  const { page, nav } = route(pathname);
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link href="/search" className="brand" aria-label="Atrium home">
          <img src="/favicon.svg" alt="" width="24" height="24" /> Atrium
        </Link>
        <nav aria-label="Main">
          <ul>
            {NAV.filter((n) => session.can(n.permission)).map((n) => (
              <li key={n.href}>
                <Link href={n.href} aria-current={nav === n.href ? 'page' : undefined}>
                  {n.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span title={`tenant ${me.tenant_id} · ${me.permissions.join(', ')}`}>
            {me.user_id} <span className="muted">({me.tenant_id})</span>
          </span>
          <button type="button" className="secondary small" onClick={() => void session.signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <PageBoundary resetKey={pathname}>{page}</PageBoundary>
      </main>
    </div>
  );
}
