/**
 * The query of devices_list (`GET /devices`): filters, and keyset paging with an opaque cursor.
 * Without `limit` and `cursor` the answer is the specification's array; with either it is a page.
 */
import { InvalidInputError, parseScope, RouteInput, scopeForPrincipalName } from '@svc/common';

/** The states devices_list filters on: its catalog parameter's values, checked on the route. */
export type ListStatus = NonNullable<RouteInput<'devices_list'>['status']>;

export const DEFAULT_PAGE_SIZE = 100;

/** As devices_list's route schema checked it (limit a whole number within bounds, status one of its values, name not empty). */
export type DeviceListInput = RouteInput<'devices_list'>;

/**
 * Where a page ends: devices come first, by id, then pending requests, by request id. Keyset on id,
 * so devices inserted or removed meanwhile neither shift nor repeat later pages.
 */
export interface ListCursor {
  phase: 'devices' | 'pending';
  after: string;
}

export interface DeviceListQuery {
  status?: ListStatus;
  ownerScope?: string;
  namePrefix?: string;
  page?: { limit: number; cursor?: ListCursor };
}

const PHASES: Record<string, ListCursor['phase']> = { d: 'devices', p: 'pending' };

export function parseListQuery(input: DeviceListInput): DeviceListQuery {
  const query: DeviceListQuery = {};
  if (input.status !== undefined) query.status = input.status;
  if (input.owner !== undefined) query.ownerScope = ownerScope(input.owner);
  if (input.name !== undefined) query.namePrefix = input.name;
  if (input.limit !== undefined || input.cursor !== undefined) {
    query.page = { limit: pageSize(input.limit), cursor: input.cursor === undefined ? undefined : decodeCursor(input.cursor) };
  }
  return query;
}

export function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(`${cursor.phase[0]}:${cursor.after}`, 'utf8').toString('base64url');
}

function decodeCursor(text: string): ListCursor {
  const decoded = /^[A-Za-z0-9_-]{1,600}$/.test(text) ? Buffer.from(text, 'base64url').toString('utf8') : '';
  const match = /^([dp]):([\x21-\x7e]{0,300})$/.exec(decoded);
  if (!match || (match[1] === 'd' && match[2] === '')) throw new InvalidInputError('cursor is not one this server issued; start again without it');
  return { phase: PHASES[match[1]], after: match[2] };
}

function pageSize(limit: number | undefined): number {
  return limit ?? DEFAULT_PAGE_SIZE;
}

/** The owner as listed (`user:<email>`, `org:<id>`), or an e-mail address or organization id. */
function ownerScope(owner: string): string {
  const scope = parseScope(owner) ? owner : scopeForPrincipalName(owner);
  if (!scope) throw new InvalidInputError('owner must be a scope (user:<email> or org:<id>), an e-mail address or an organization id');
  return scope;
}
