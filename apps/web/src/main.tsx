import { render } from 'preact';
import { App } from './app';
import { OAuthConfig, Session } from './auth/session';
import { ErrorBox } from './components/feedback';
import './styles.css';

/** Reads where to sign in (GET /auth/config), finishes a sign-in redirect if this is one, then shows the app. */
async function start(root: HTMLElement): Promise<void> {
  const res = await fetch('/auth/config', { headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`GET /auth/config answered ${res.status}`);
  const { oauth } = (await res.json()) as { oauth: OAuthConfig };
  const session = new Session(oauth, window.location.origin);
  if (Session.isCallback(window.location)) {
    const returnTo = await session.completeSignIn(window.location.href);
    // The code and state leave the address bar (and the history) at once.
    window.history.replaceState(null, '', `/${returnTo}`);
  }
  render(<App session={session} />, root);
}

const root = document.getElementById('app')!;
start(root).catch((error: unknown) => {
  render(
    <main id="main" class="sign-in">
      <h1>svc</h1>
      <ErrorBox error={error} onRetry={() => window.location.assign('/')} />
    </main>,
    root,
  );
});
