/**
 * An ApiClient for component specs: records every call and answers from `routes`
 * (`'GET /devices'` → a function of the query or body). A route not given is a test error.
 */
import { render } from 'preact';
import { afterEach, beforeEach } from 'vitest';
import type { ApiClient } from '../api/client';

export interface Call {
  method: 'GET' | 'POST';
  path: string;
  input: unknown;
}

export type Routes = Record<string, (input: any) => unknown>;

export function fakeApi(routes: Routes): { api: ApiClient; calls: Call[] } {
  const calls: Call[] = [];
  const answer = async (method: Call['method'], path: string, input: unknown) => {
    calls.push({ method, path, input });
    const route = routes[`${method} ${path}`];
    if (!route) throw new Error(`no fake route for ${method} ${path}`);
    return route(input);
  };
  const api = { get: (path: string, query?: unknown) => answer('GET', path, query), post: (path: string, body?: unknown) => answer('POST', path, body) };
  return { api: api as unknown as ApiClient, calls };
}

/**
 * Sets a form field's value as typing or choosing would, tells the page, and lets it render (a
 * person's next key comes in a later task, after Preact's render).
 */
export async function enter(field: HTMLInputElement | HTMLSelectElement, value: string): Promise<void> {
  field.value = value;
  field.dispatchEvent(new Event(field instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
  await new Promise((resolve) => setTimeout(resolve, 0));
}

export function button(root: ParentNode, name: string): HTMLButtonElement {
  const found = [...root.querySelectorAll('button')].find((b) => b.textContent?.trim() === name);
  if (!found) throw new Error(`no button "${name}"`);
  return found;
}

/**
 * An element each test of the `describe` renders into: added to the document before each test,
 * unmounted and removed after it. Answers a getter for the current one.
 */
export function useMountPoint(): () => HTMLElement {
  let root: HTMLElement;
  beforeEach(() => {
    root = document.body.appendChild(document.createElement('div'));
  });
  afterEach(() => {
    render(null, root);
    root.remove();
  });
  return () => root;
}
