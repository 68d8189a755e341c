/** Identifiers in SQL text: collection and field names pass `assertIdentifier` first, so quoting suffices. */
export function quote(identifier: string): string {
  return `"${identifier}"`;
}
