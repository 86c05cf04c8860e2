/**
 * Table types of the warehouse, as Kysely sees them. Migrations (`migrations/`) are the truth;
 * these types follow them. snake_case stays here and in SQL.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Database {}
