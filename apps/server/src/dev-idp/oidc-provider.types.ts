import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The slice of oidc-provider's API this directory uses. The package ships no type declarations
 * and is ESM-only, so it is loaded with `require` at start-up and typed here by hand.
 */
export interface OidcProviderModule {
  Provider: new (issuer: string, configuration: Record<string, unknown>) => OidcProvider;
  errors: { InvalidTarget: new (description?: string) => Error };
}

export interface OidcProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: InteractionResult,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  Grant: GrantConstructor;
}

export interface Interaction {
  uid: string;
  grantId?: string;
  prompt: { name: string; details: Record<string, unknown> };
  params: Record<string, string | string[] | undefined>;
  session?: { accountId?: string };
}

export interface InteractionResult {
  login?: { accountId: string; remember?: boolean };
  consent?: { grantId: string };
  error?: string;
  error_description?: string;
}

export interface GrantConstructor {
  new (properties: { accountId: string; clientId: string }): Grant;
  find(id: string): Promise<Grant | undefined>;
}

export interface Grant {
  addOIDCScope(scope: string): void;
  addResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
}

/** What oidc-provider hands to `findAccount`, `extraTokenClaims` and the HTML hooks. */
export interface ProviderContext {
  body?: string;
  type?: string;
  status?: number;
  oidc: { client?: { clientId: string; clientName?: string } };
}
