import { canonicalEmail, ForbiddenError, UnauthenticatedError } from '@svc/common';

/**
 * The address an identity provider asserts, read by the same rule from an access token and from a
 * userinfo answer. An address the provider marks unverified could be anyone's, so it is refused;
 * some providers (Amazon Cognito) send that flag as the string "false". Undefined: no address.
 */
export function claimedEmail(claims: Record<string, unknown>): string | undefined {
  if (claims.email_verified === false || claims.email_verified === 'false') {
    throw new UnauthenticatedError('The identity provider marks this e-mail address as unverified');
  }
  return typeof claims.email === 'string' && claims.email !== '' ? claims.email : undefined;
}

/**
 * The account an asserted address names, by the one e-mail rule of libs/common. An address the
 * rest of the API would refuse gets no account (it could be neither approved nor shared with),
 * and is never repaired into a valid one: trimming or Unicode case folding could turn it into
 * someone else's address.
 */
export function accountEmail(claimed: string): string {
  const email = canonicalEmail(claimed);
  if (email === null) {
    throw new ForbiddenError(
      'The e-mail address from the identity provider is not one this server accepts (ASCII letters, digits and . _ % + - before @, then a domain); no account can be created for it',
    );
  }
  return email;
}
