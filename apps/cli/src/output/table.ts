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
  // A loop, not Math.max(...cells): spreading 150,000 rows into arguments overflows the call stack.
  const widths = columns.map((column, i) => cells.reduce((widest, line) => Math.max(widest, line[i].length), column.header.length));
  const line = (values: string[]) => values.map((value, i) => (i === values.length - 1 ? value : value.padEnd(widths[i]))).join('  ').trimEnd();
  const lines = [line(columns.map((column) => column.header.toUpperCase()))];
  for (const row of cells) lines.push(line(row));
  return lines.join('\n');
}

function cellText(value: unknown): string {
  if (value === undefined || value === null) return '-';
  if (Array.isArray(value)) return escapeTerminal(value.join(', '));
  return escapeTerminal(String(value));
}
