import type { z } from 'zod';

/** A job as the worker receives it: what a message about its payload names. */
export interface ReceivedJob {
  readonly name: string;
  readonly id?: string | undefined;
  readonly data: unknown;
}

/**
 * Why `job.data` is not a payload of `schema`, in one line that names the job and each failing
 * field (`job ingest-chunk 123: payload field "chunkId": expected number, received string`), or
 * `undefined` when it is one. A job queued by an older release, or added by hand, is read here
 * before anything trusts its data.
 */
export function payloadProblem(job: ReceivedJob, schema: z.ZodType): string | undefined {
  const result = schema.safeParse(job.data);
  if (result.success) return undefined;
  const problems = result.error.issues.map((issue) => {
    const where =
      issue.path.length === 0 ? 'payload' : `payload field ${JSON.stringify(pathOf(issue.path))}`;
    return `${where}: ${describeIssue(issue, valueAt(job.data, issue.path))}`;
  });
  return `job ${job.name} ${job.id ?? '(no id)'}: ${problems.join('; ')}`;
}

/** `chunkId`, `a.b`, `list.0`: the path of a field in the payload. */
function pathOf(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

function describeIssue(issue: z.core.$ZodIssue, value: unknown): string {
  if (issue.code === 'invalid_type') {
    // A number that is not whole: the number says more than its type.
    const received = typeof value === 'number' && issue.expected === 'int' ? value : typeOf(value);
    return `expected ${issue.expected}, received ${received}`;
  }
  // zod's own words otherwise ("Invalid option: expected one of …"), in the line's lower case.
  return issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
}

/** The value at `path` in `data`, or `undefined` where the path leads nowhere. */
function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let value = data;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = Reflect.get(value, key);
  }
  return value;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN';
  return typeof value;
}
