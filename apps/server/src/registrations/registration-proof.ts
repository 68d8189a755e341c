import { generateDeviceIdentity, REGISTRATION_PROOF_MAX_SKEW_SECONDS, verifyRegistrationProof } from '@svc/common';

/** The proof headers of a status poll, as received (either may be missing). */
export interface RegistrationProof {
  timestamp?: string;
  signature?: string;
}

/** Unix seconds as the runtime writes them: decimal digits, no sign, no leading zero. */
const TIMESTAMP_PATTERN = /^(0|[1-9][0-9]{0,11})$/;

/**
 * A request that does not exist is checked against this key, so an unknown request id takes the
 * same path (and about the same time) as a known one with a bad signature.
 */
const STAND_IN_KEY = generateDeviceIdentity().publicKey;

/**
 * Whether `proof` shows that the poller holds the private key of the request (`publicKey`, null
 * when the request id names no live request) now: a fresh timestamp and a valid signature.
 */
export function registrationProofHolds(publicKey: string | null, requestId: string, proof: RegistrationProof, now: Date): boolean {
  const { timestamp, signature } = proof;
  if (typeof timestamp !== 'string' || !TIMESTAMP_PATTERN.test(timestamp) || typeof signature !== 'string') return false;
  const seconds = Number(timestamp);
  if (Math.abs(Math.floor(now.getTime() / 1000) - seconds) > REGISTRATION_PROOF_MAX_SKEW_SECONDS) return false;
  const valid = verifyRegistrationProof(publicKey ?? STAND_IN_KEY, requestId, seconds, signature);
  return valid && publicKey !== null;
}
