import type { Dataset, Window } from '../../src/types.js';
import type { LoggedRequest } from '../../src/simulator/stats/request-log.js';

/** One history request as the simulator logged it, named by the window it asked for. */
export interface HistoryCall {
  /** `pollen|52.5200|13.4050|2024-01-02T00:00:00.000Z`: dataset, point and window start. */
  readonly window: string;
  /** The calling host's address (IPv4, without the `::ffff:` of a dual-stack socket). */
  readonly host: string;
  readonly at: number;
  readonly answer: LoggedRequest['answer'];
}

/** The name `HistoryCall.window` gives a chunk's window. */
export function windowName(
  dataset: Dataset,
  point: { readonly lat: number; readonly lng: number },
  window: Pick<Window, 'from'>,
): string {
  return `${dataset}|${point.lat.toFixed(4)}|${point.lng.toFixed(4)}|${window.from.toISOString()}`;
}

/** The history requests of a simulator's request log (every other endpoint left out). */
export function historyCalls(log: readonly LoggedRequest[]): HistoryCall[] {
  return log.flatMap((request) => {
    const dataset = /^(pollen|weather)-history/.exec(request.endpoint)?.[1] as Dataset | undefined;
    if (dataset === undefined) return [];
    const query = new URLSearchParams(request.query);
    const from = new Date(`${(query.get('from') ?? '').replace(' ', 'T')}Z`);
    const point = { lat: Number(query.get('lat')), lng: Number(query.get('lng')) };
    return [
      {
        window: windowName(dataset, point, { from }),
        host: request.remote.replace(/^::ffff:/, ''),
        at: request.at,
        answer: request.answer,
      },
    ];
  });
}

/** Window → how many times it was asked for, for the windows asked for more than once. */
export function repeatedWindows(calls: readonly HistoryCall[]): Map<string, HistoryCall[]> {
  const byWindow = new Map<string, HistoryCall[]>();
  for (const call of calls) byWindow.set(call.window, [...(byWindow.get(call.window) ?? []), call]);
  return new Map([...byWindow].filter(([, list]) => list.length > 1));
}
