import { readFileSync } from 'node:fs';

/** One numbered query of docs/warehouse-queries.md, section "Example queries", as printed there. */
export interface DocExampleQuery {
  readonly number: number;
  /** The bold heading's text, number and full stop removed. */
  readonly title: string;
  /** The first ```sql block after the heading, without its closing semicolon. */
  readonly sql: string;
}

const DOC = new URL('../../docs/warehouse-queries.md', import.meta.url);

/**
 * Every numbered example of the section "Example queries" of docs/warehouse-queries.md: a bold
 * heading `**N. …**` followed by a ```sql block. Throws when the section or a block is missing,
 * so a renamed heading fails the test instead of testing nothing.
 */
export function docExampleQueries(text = readFileSync(DOC, 'utf8')): DocExampleQuery[] {
  const start = text.indexOf('\n## Example queries\n');
  if (start < 0) throw new Error('docs/warehouse-queries.md has no section "## Example queries"');
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  const headings = [...section.matchAll(/^\*\*(\d+)\. ([^]*?)\*\*/gm)];
  return headings.map((m, i) => {
    const body = section.slice(m.index, headings[i + 1]?.index);
    const fence = /^```sql\n([^]*?)^```$/m.exec(body);
    if (fence === null)
      throw new Error(`example ${m[1]} of docs/warehouse-queries.md has no sql block`);
    return {
      number: Number(m[1]),
      title: m[2]!.replace(/\s+/g, ' ').replace(/\.$/, ''),
      sql: fence[1]!.trim().replace(/;$/, ''),
    };
  });
}
