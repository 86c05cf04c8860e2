// The BI role's name and settings, apart from ensure-bi-role.ts: `envdata --help` shows them
// without loading pg and Kysely.

/** The read-only role BI tools log in as (the migrations, frozen in time, spell it out). */
export const BI_ROLE = 'envdata_bi';

/** `statement_timeout` of the BI role, set again by every `envdata bi-role`. */
export const BI_STATEMENT_TIMEOUT = '60s';

/**
 * `idle_in_transaction_session_timeout` of the BI role, set again by every `envdata bi-role`: a
 * BI session left open in a transaction holds its read locks, which a migration or the creation
 * of a year's partition waits for.
 */
export const BI_IDLE_IN_TRANSACTION_TIMEOUT = '60s';

/** Connection limit of the BI role, set again by every `envdata bi-role`. */
export const BI_CONNECTION_LIMIT = 30;
