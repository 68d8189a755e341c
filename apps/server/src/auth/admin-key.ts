import { createHash, timingSafeEqual } from 'node:crypto';

export const ADMIN_KEY_HEADER = 'x-admin-key';

/** Constant-time comparison: both sides are hashed first so lengths never leak through timing. */
export function adminKeyMatches(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
