/**
 * The meaning of every column of every `analytics` view: the one source of their `comment on
 * column` and of the column tables of docs/warehouse.md (`npm run docs:warehouse`).
 *
 * It lives in the migration that last set the comments, since migrations are frozen in time and
 * import no app code: a migration that adds or changes a column of a view exports the whole
 * table it leaves (importing the previous one and changing what it changes, say), comments its
 * columns from it, and this module then reads the newer migration. test/warehouse/
 * analytics-column-comments.test.ts holds a freshly migrated warehouse to it.
 */
export { ANALYTICS_COLUMNS } from '../../migrations/2026_11_29_0051_provenance.js';
export type {
  AnalyticsColumn,
  AnalyticsView,
} from '../../migrations/2026_11_27_0034_analytics_column_comments.js';
