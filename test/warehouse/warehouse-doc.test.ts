import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ANALYTICS_COLUMNS } from '../../tools/warehouse-doc/analytics-columns.js';
import {
  renderWarehouseDoc,
  WAREHOUSE_DOC_FILE,
  WAREHOUSE_DOCS_COMMAND,
} from '../../tools/warehouse-doc/render-warehouse-doc.js';
import { unifiedDiff } from '../harness/unified-diff.js';

describe(`docs/warehouse.md (regenerate its column tables: ${WAREHOUSE_DOCS_COMMAND})`, () => {
  it('has the column tables tools/warehouse-doc/analytics-columns.ts generates', () => {
    const committed = readFileSync(WAREHOUSE_DOC_FILE, 'utf8');
    const expected = renderWarehouseDoc(committed);
    if (committed === expected) return;
    const name = path.relative(process.cwd(), WAREHOUSE_DOC_FILE);
    expect.fail(
      [
        `${name} does not match the meanings of the analytics columns (tools/warehouse-doc/analytics-columns.ts).`,
        `Regenerate it and commit it with the change: ${WAREHOUSE_DOCS_COMMAND}`,
        '',
        unifiedDiff(committed, expected, { before: `${name} (committed)`, after: 'generated' }),
      ].join('\n'),
    );
  });

  it('refuses a doc that leaves a view without its table, or names one that is gone', () => {
    const [first, second] = ANALYTICS_COLUMNS;
    const block = (view: string) =>
      `<!-- analytics columns: ${view} (generated) -->\n<!-- end of analytics columns -->`;
    expect(() => renderWarehouseDoc(block(first!.view), [first!, second!])).toThrow(
      `no column table for ${second!.view}`,
    );
    expect(() => renderWarehouseDoc(block('analytics.gone'), [])).toThrow(
      'column table for analytics.gone, a view',
    );
    expect(() =>
      renderWarehouseDoc(block(`${first!.view}, ${second!.view}`), [first!, second!]),
    ).toThrow('whose columns differ');
  });
});
