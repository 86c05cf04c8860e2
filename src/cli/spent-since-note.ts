/**
 * What "spent" counts, said beside every figure of it (`status`'s quota lines, a plan's budget
 * line): the shared counters count a call only while ENVDATA_QUOTA or ENVDATA_BUDGET is set, so
 * "€0.00 spent this month" after hundreds of calls means they were made before; unstated, it
 * reads as a false "free".
 */
export const SPENT_SINCE_NOTE =
  'spent counts the calls made since ENVDATA_QUOTA or ENVDATA_BUDGET was set, at ENVDATA_PRICE_PER_CALL; calls made before are not in it';
