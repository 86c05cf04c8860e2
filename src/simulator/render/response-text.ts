/** Bodies and messages the simulator sends as the service records them. */

/** The 200 answer for "no data here or then" (outside coverage, before coverage starts). */
export const DATA_NOT_AVAILABLE_BODY = '{"message":"Data not available!","data":[]}';

/** The 400 message for a history range longer than the plan allows. */
export const RANGE_TOO_LONG_MESSAGE = 'Only past 2 days data available!';

/** `{"message": …}`, the JSON error body of the service. */
export function errorBody(message: string): string {
  return JSON.stringify({ message });
}
