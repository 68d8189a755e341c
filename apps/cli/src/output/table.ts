import { escapeTerminal } from './terminal-text';

export interface Column<T> {
  header: string;
  get: (row: T) => unknown;
}

/**
 * A plain column table for people: headers, two spaces between columns, every cell escaped
 * (escapeTerminal) and cut at one line. `--json` prints the typed result instead.
 */
export function renderTable<T>(rows: readonly T[], columns: Column<T>[]): string {
  const cells = rows.map((row) => columns.map((column) => cellText(column.get(row))));
  const widths = columns.map((column, i) => Math.max(column.header.length, ...cells.map((line) => line[i].length)));
  const line = (values: string[]) => values.map((value, i) => (i === values.length - 1 ? value : value.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(columns.map((column) => column.header.toUpperCase())), ...cells.map(line)].join('\n');
}

function cellText(value: unknown): string {
  if (value === undefined || value === null) return '-';
  if (Array.isArray(value)) return escapeTerminal(value.join(', '));
  return escapeTerminal(String(value));
}
