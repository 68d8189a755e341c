/** A generated region of a hand-written markdown file: what lies between two HTML comments. */
export interface GeneratedRegion {
  /** The first line of the region, naming where it comes from and how to regenerate it. */
  begin: string;
  end: string;
  render: () => string;
}

/** `doc` with each region's content replaced by what it renders now; a missing region is an error. */
export function withRegions(doc: string, file: string, regions: readonly GeneratedRegion[]): string {
  return regions.reduce((text, region) => {
    const start = text.indexOf(region.begin);
    const end = text.indexOf(region.end);
    if (start < 0 || end < start) throw new Error(`${file} has no generated region (${region.begin} … ${region.end})`);
    return `${text.slice(0, start)}${region.begin}\n${region.render()}\n${text.slice(end)}`;
  }, doc);
}

export function markdownTable(header: readonly string[], rows: readonly string[][]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((cells) => `| ${cells.join(' | ')} |`)].join('\n');
}

/** A table cell: a pipe inside it would start a new column. */
export const cell = (text: string) => text.replace(/\|/g, '\\|');
