import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  renderWarehouseDoc,
  WAREHOUSE_DOC_FILE,
} from '../tools/warehouse-doc/render-warehouse-doc.js';

/**
 * `npm run docs:warehouse`: rewrites the column tables of docs/warehouse.md from the meanings of
 * the `analytics` columns (tools/warehouse-doc/analytics-columns.ts), the prose around them untouched.
 * test/warehouse/warehouse-doc.test.ts fails while they differ.
 */
writeFileSync(WAREHOUSE_DOC_FILE, renderWarehouseDoc(readFileSync(WAREHOUSE_DOC_FILE, 'utf8')));
console.log(`wrote the column tables of ${path.relative(process.cwd(), WAREHOUSE_DOC_FILE)}`);
