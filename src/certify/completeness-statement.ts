import type { Dataset } from '../types.js';

/** The in-toto Statement type envdata writes. */
export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** The predicate of a completeness certificate, versioned: a change of meaning is a new URI. */
export const COMPLETENESS_PREDICATE = 'https://envdata.dev/completeness/v1';

/**
 * What the ledger says of a span of hours: `landed`, `no_data`, `missing_upstream`,
 * `not_covered`, `quarantined` and `not_fetched` as analytics.hour_status says them, and
 * `outside_history` for hours the dataset has no history for (before its first hour, or not
 * complete yet).
 */
export type HourStatus =
  | 'landed'
  | 'no_data'
  | 'missing_upstream'
  | 'not_covered'
  | 'quarantined'
  | 'not_fetched'
  | 'outside_history';

/** A maximal span of consecutive hours with one status. */
export interface HourRange {
  /** First hour, `YYYY-MM-DDTHH:00:00Z`. */
  readonly from: string;
  /** End (exclusive). */
  readonly to: string;
  readonly hours: number;
  readonly status: HourStatus;
  /** Why the hours have that status (for quarantined ones: the refusals' reasons, up to 20). */
  readonly reasons: readonly string[];
  /** The runs whose answers set the rows of these hours, ascending. */
  readonly runIds: readonly number[];
  /** SHA-256 (hex) of the bodies of those answers (envdata.answer.body_sha256), sorted. */
  readonly answerDigests: readonly string[];
  /** Rows of these hours that name no answer (landed before migration 0051). */
  readonly untracedRows: number;
}

/** The predicate of `https://envdata.dev/completeness/v1`. */
export interface CompletenessPredicate {
  readonly envdata: { readonly version: string };
  /** The service's host the rows came from (never a key, never a path). */
  readonly source: { readonly host: string };
  readonly location: {
    readonly id: number;
    readonly name: string;
    readonly lat: number;
    readonly lng: number;
    readonly timezone: string;
  };
  readonly dataset: Dataset;
  /** The range certified, [from, to), whole UTC hours. */
  readonly from: string;
  readonly to: string;
  /** `envdata-canonical-rows/v1`. */
  readonly canonicalForm: string;
  readonly rowCount: number;
  readonly hourCount: number;
  /** Every hour's status was `landed`. */
  readonly complete: boolean;
  /** Per hour, 8 hex characters of the SHA-256 of its lines (`RowsDigestResult.hourDigests`). */
  readonly hourDigests: string;
  readonly ranges: readonly HourRange[];
  readonly generatedAt: string;
}

/** An in-toto Statement v1 about the canonical rows of one range. */
export interface CompletenessStatement {
  readonly _type: typeof STATEMENT_TYPE;
  readonly subject: readonly [
    { readonly name: string; readonly digest: { readonly sha256: string } },
  ];
  readonly predicateType: typeof COMPLETENESS_PREDICATE;
  readonly predicate: CompletenessPredicate;
}

/** The subject's name: `envdata:weather/location/12/2024-01-01T00:00:00Z..2025-01-01T00:00:00Z`. */
export function subjectName(
  dataset: Dataset,
  locationId: number,
  from: string,
  to: string,
): string {
  return `envdata:${dataset}/location/${locationId}/${from}..${to}`;
}
