/** Plain HTML for the development identity provider: no external assets, no scripts. */

const WARNING =
  'Development identity provider: no password is checked. Anyone who can open this page can sign in as any e-mail ' +
  'address. Never use it in production.';

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function layout(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(title)}</title>
  <link rel="icon" href="data:,">
  <style>
    body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#222}
    .warning{background:#fff4e5;border:1px solid #f0b46a;padding:.75rem;border-radius:4px;font-size:.9rem}
    .error{color:#b00020}
    input{font-size:1rem;padding:.5rem;width:100%;box-sizing:border-box;margin:.5rem 0}
    button{font-size:1rem;padding:.5rem 1rem}
  </style>
</head>
<body>
  <h1>${escapeHtml(title)}</h1>
  <p class="warning">${WARNING}</p>
  ${body}
</body>
</html>`;
}

export function signInPage(action: string, options: { email?: string; error?: string } = {}): string {
  const error = options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : '';
  const value = options.email ? ` value="${escapeHtml(options.email)}"` : '';
  return layout(
    'Sign in',
    `${error}
  <form method="post" action="${escapeHtml(action)}">
    <label for="email">E-mail address</label>
    <input id="email" type="email" name="email" required autofocus autocomplete="email"${value}>
    <button type="submit">Sign in</button>
  </form>`,
  );
}

/** oidc-provider passes the finished `<form id="op.deviceInputForm">`; the button submits it. */
export function userCodeInputPage(form: string, error?: { name?: string; userCode?: string }): string {
  let message = '<p>Enter the code shown by the command line.</p>';
  if (error?.name === 'AbortedError') message = '<p class="error">The sign-in was cancelled.</p>';
  else if (error?.userCode || error?.name === 'NoCodeError') message = '<p class="error">That code is not valid. Try again.</p>';
  else if (error) message = '<p class="error">Your request could not be processed. Try again.</p>';
  return layout('Device sign-in', `${message}\n  ${form}\n  <button type="submit" form="op.deviceInputForm">Continue</button>`);
}

export function userCodeConfirmPage(form: string, clientName: string, userCode: string): string {
  return layout(
    'Confirm device',
    `<p><strong>${escapeHtml(clientName)}</strong> asks to sign in. Check that it shows this code:</p>
  <p><code style="font-size:1.6rem">${escapeHtml(userCode)}</code></p>
  ${form}
  <button type="submit" form="op.deviceConfirmForm">Continue</button>
  <button type="submit" form="op.deviceConfirmForm" name="abort" value="yes">Cancel</button>`,
  );
}

export function successPage(): string {
  return layout('Signed in', '<p>You are signed in. Return to the command line; you can close this page.</p>');
}

export function errorPage(error: string, description?: string): string {
  const detail = description ? `<p>${escapeHtml(description)}</p>` : '';
  return layout('Sign-in error', `<p class="error">${escapeHtml(error)}</p>${detail}`);
}

/** RP-initiated logout (the dashboard's sign-out): oidc-provider passes `<form id="op.logoutForm">`. */
export function signOutPage(form: string): string {
  return layout(
    'Sign out',
    `<p>Sign out of the development identity provider?</p>
  ${form}
  <button type="submit" form="op.logoutForm" value="yes" name="logout" autofocus>Yes, sign me out</button>
  <button type="submit" form="op.logoutForm">No, stay signed in</button>`,
  );
}

export function signedOutPage(): string {
  return layout('Signed out', '<p>You are signed out. You may close this window.</p>');
}
