import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiClient } from './api/client';
import type { Session } from './auth/session';
import { ErrorBox } from './components/feedback';
import { LiveContext, LiveIndicator, useSessionStream } from './components/live';
import { DevicePage } from './pages/device-page';
import { DevicesPage } from './pages/devices-page';
import { OrgsPage } from './pages/orgs-page';
import { PendingPage } from './pages/pending-page';
import { Route, useRoute } from './router';

const NAV: { page: Route['page']; href: string; label: string }[] = [
  { page: 'devices', href: '#/devices', label: 'Devices' },
  { page: 'pending', href: '#/pending', label: 'Pending' },
  { page: 'orgs', href: '#/orgs', label: 'Organizations' },
];

export function App({ session }: { session: Session }) {
  const [, setVersion] = useState(0);
  useEffect(() => session.onChange(() => setVersion((v) => v + 1)), [session]);
  const api = useMemo(() => new ApiClient(() => session.accessToken()), [session]);
  const route = useRoute();
  const events = useSessionStream(session);

  if (!session.signedIn) return <SignIn session={session} />;
  const current = route.page === 'device' ? 'devices' : route.page;
  return (
    <LiveContext.Provider value={events}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">svc</span>
        <nav aria-label="Main">
          {NAV.map((item) => (
            <a key={item.page} href={item.href} aria-current={current === item.page ? 'page' : undefined}>
              {item.label}
            </a>
          ))}
        </nav>
        <LiveIndicator />
        <span class="who" title="Signed in as">
          {session.email}
        </span>
        <button type="button" class="secondary" onClick={() => void session.signOut()}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page route={route} api={api} />
      </main>
    </LiveContext.Provider>
  );
}

function Page({ route, api }: { route: Route; api: ApiClient }) {
  switch (route.page) {
    case 'devices':
      return <DevicesPage api={api} />;
    case 'pending':
      return <PendingPage api={api} />;
    case 'device':
      return <DevicePage key={route.id} api={api} id={route.id} />;
    case 'orgs':
      return <OrgsPage api={api} />;
    default:
      return (
        <p>
          No page at <code>{route.hash}</code>. <a href="#/devices">Devices</a>
        </p>
      );
  }
}

function SignIn({ session }: { session: Session }) {
  const [error, setError] = useState<unknown>(null);
  const signIn = () => session.signIn(window.location.hash || '#/devices').catch(setError);
  return (
    <main id="main" class="sign-in">
      <h1>svc</h1>
      <p>Manage your fleet of devices: approve new ones, check their status, run commands.</p>
      <button type="button" onClick={signIn} autoFocus>
        Sign in
      </button>
      {error ? <ErrorBox error={error} /> : null}
    </main>
  );
}
