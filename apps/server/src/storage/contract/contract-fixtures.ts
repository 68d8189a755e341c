/** Test-only collections and documents of the storage contract, chosen to exercise every field type, index kind and condition. */
import { expect } from '@jest/globals';
import { ConflictError } from '@svc/common';
import { type CollectionDef, defineCollection, type Storage } from '../storage.port';

export type OpenStorage = (defs: readonly CollectionDef<any>[]) => Promise<Storage>;

export interface Thing {
  id: string;
  name: string;
  rank: number;
  active: boolean;
  createdAt: Date;
  tags?: string[];
  meta?: unknown;
  note?: string | null;
  expiresAt?: Date;
}

export const THINGS = defineCollection<Thing>({
  name: 'contract_things',
  fields: { name: 'string', rank: 'number', active: 'boolean', createdAt: 'date', tags: 'string[]', meta: 'json', note: 'string', expiresAt: 'date' },
  unique: [['name']],
  indexes: [['tags'], ['active', 'createdAt']],
  expiresAt: 'expiresAt',
  conflictMessage: 'Thing already exists',
});

export interface Pair {
  id: string;
  left: string;
  right?: string | null;
  label?: string;
}

export const PAIRS = defineCollection<Pair>({
  name: 'contract_pairs',
  fields: { left: 'string', right: 'string', label: 'string' },
  unique: [['left', 'right']],
  conflictMessage: 'Pair already exists',
});

export const CONTRACT_COLLECTIONS: readonly CollectionDef<any>[] = [THINGS, PAIRS];

const DAY = 24 * 60 * 60 * 1000;
// Far in the future, so MongoDB's TTL monitor (real clock) never reaps test documents.
export const T0 = new Date('2090-01-01T00:00:00.000Z');

export function at(days: number): Date {
  return new Date(T0.getTime() + days * DAY);
}

/** A minimal valid thing: name = id keeps the unique index satisfied. */
export function thing(id: string, extra: Partial<Thing> = {}): Thing {
  return { id, name: id, rank: 0, active: true, createdAt: T0, ...extra };
}

/** Things covering missing, null, empty and populated values. */
export function sampleThings(): Thing[] {
  return [
    { id: 't1', name: 'alpha', rank: 3, active: true, createdAt: at(1), tags: ['red', 'blue'], meta: { a: 1 }, note: 'first' },
    { id: 't2', name: 'bravo', rank: 1, active: false, createdAt: at(2), tags: ['green'], note: null },
    { id: 't3', name: 'charlie', rank: 2, active: true, createdAt: at(3), tags: [] },
    { id: 't4', name: 'delta', rank: 2, active: false, createdAt: at(4), tags: ['red'], meta: [1, 'two'], note: 'fourth' },
    { id: 't5', name: "it's; DROP TABLE x --", rank: 5.5, active: true, createdAt: at(5) },
  ];
}

export function ids(docs: { id: string }[]): string[] {
  return docs.map((doc) => doc.id).sort();
}

export async function expectConflict(promise: Promise<unknown>, message: string): Promise<void> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConflictError);
  expect(error).toMatchObject({ message, code: 'CONFLICT' });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
