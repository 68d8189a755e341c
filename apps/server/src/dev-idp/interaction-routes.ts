import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Interaction, OidcProvider } from './oidc-provider.types';
import { errorPage, signInPage } from './pages';
import { CLI_SCOPES } from './provider-configuration';

const INTERACTION_PATH = /^\/interaction\/([A-Za-z0-9_-]+)$/;
const MAX_FORM_BYTES = 8 * 1024;
// Deliberately simple: something@domain.tld, no spaces or markup characters.
const EMAIL = /^[^\s@<>"'(),;:\\]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;

/** Whether the request is for the sign-in pages that sit in front of oidc-provider. */
export function isInteractionRequest(req: IncomingMessage): boolean {
  return INTERACTION_PATH.test(new URL(req.url ?? '/', 'http://x').pathname);
}

export function validateEmail(input: string): { email: string } | { error: string } {
  const email = input.trim().toLowerCase();
  if (email === '') return { error: 'Enter an e-mail address.' };
  if (email.length > 254 || !EMAIL.test(email)) return { error: `"${input.trim()}" is not a valid e-mail address.` };
  return { email };
}

/**
 * GET shows the sign-in form (or, when the browser session is already signed in, grants consent
 * at once); POST signs in with the e-mail address and grants consent in the same step, because
 * the only client is first-party.
 */
export async function handleInteraction(provider: OidcProvider, resource: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const uid = INTERACTION_PATH.exec(new URL(req.url ?? '/', 'http://x').pathname)![1];
  let details: Interaction;
  try {
    details = await provider.interactionDetails(req, res);
  } catch {
    return send(res, 400, errorPage('This sign-in session has expired or was opened in another browser.', 'Start the sign-in again from the command line.'));
  }
  if (details.uid !== uid) return send(res, 400, errorPage('This sign-in link does not belong to your session.'));

  if (req.method === 'GET') {
    if (details.prompt.name === 'login') return send(res, 200, signInPage(req.url!));
    const accountId = details.session?.accountId;
    if (!accountId) return send(res, 400, errorPage('Sign-in state is inconsistent.', 'Start the sign-in again.'));
    const grantId = await grantConsent(provider, resource, details, accountId, details.grantId);
    return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }
  if (req.method !== 'POST') return send(res, 405, errorPage('Method not allowed'));

  const form = await readForm(req);
  if (!form) return send(res, 413, errorPage('The form is too large.'));
  const checked = validateEmail(form.get('email') ?? '');
  if ('error' in checked) return send(res, 400, signInPage(req.url!, { email: form.get('email') ?? '', error: checked.error }));
  const grantId = await grantConsent(provider, resource, details, checked.email);
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId: checked.email }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}

async function grantConsent(
  provider: OidcProvider,
  resource: string,
  details: Interaction,
  accountId: string,
  existingGrantId?: string,
): Promise<string> {
  const requested = String(details.params.scope ?? 'openid');
  const allowed = new Set(CLI_SCOPES.split(' '));
  const scope = requested.split(' ').filter((s) => allowed.has(s)).join(' ');
  const existing = existingGrantId ? await provider.Grant.find(existingGrantId) : undefined;
  const grant = existing ?? new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  grant.addOIDCScope(scope);
  grant.addResourceScope(resource, scope);
  return grant.save();
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) return null;
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function send(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(html);
}
