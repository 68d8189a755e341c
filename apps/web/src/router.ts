import { useEffect, useState } from 'preact/hooks';

/**
 * Hash routes (`#/devices`, `#/devices/<id>`), because the API owns the paths at the root
 * (`/devices`, `/orgs`): the server only ever sees `/`.
 */
export type Route =
  | { page: 'devices' }
  | { page: 'pending' }
  | { page: 'device'; id: string }
  | { page: 'orgs' }
  | { page: 'not-found'; hash: string };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/devices';
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'devices' && parts.length === 1) return { page: 'devices' };
  if (parts[0] === 'devices' && parts.length === 2) return { page: 'device', id: parts[1] };
  if (parts[0] === 'pending' && parts.length === 1) return { page: 'pending' };
  if (parts[0] === 'orgs' && parts.length === 1) return { page: 'orgs' };
  return { page: 'not-found', hash };
}

export const deviceHref = (id: string) => `#/devices/${encodeURIComponent(id)}`;

export function useRoute(): Route {
  const [hash, setHash] = useState(window.location.hash);
  useEffect(() => {
    const changed = () => setHash(window.location.hash);
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return parseRoute(hash);
}
