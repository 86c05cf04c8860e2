import { z } from 'zod';
import { EnvdataError } from '../../errors/envdata-error.js';
import {
  FAULT_KINDS,
  isRecordFaultKind,
  RECORD_FAULT_KINDS,
  type FaultRule,
  type FaultScript,
  type FaultSettings,
} from './fault-settings.js';
import { checkFaultShape, parseFaultSpec } from './parse-fault-spec.js';

const shape = {
  endpoint: z.string().min(1),
  kind: z.enum(FAULT_KINDS),
  status: z.number().int().optional(),
  latencyMs: z.number().int().optional(),
  // Not `.int()`: checkFaultShape says what hours may be, in the words of the text format.
  hours: z.number().optional(),
  retryAfter: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII (an HTTP header value)')
    .optional(),
};

const schema = z
  .object({
    spec: z.string().optional(),
    rules: z.array(z.object({ ...shape, rate: z.number().min(0).max(1) }).strict()).optional(),
    scripts: z.array(z.object({ ...shape, count: z.number().int().min(1) }).strict()).optional(),
    seed: z.number().int().optional(),
  })
  .strict();

/**
 * Validates fault settings from outside (the admin endpoint's JSON, programmatic options):
 * `{"spec": "history:error=503x3", "rules": […], "scripts": […], "seed": 7}`, every part
 * optional; a `spec` adds its rules and scripts before the listed ones. Throws
 * `EnvdataError('VALIDATION_FAILED')` listing every problem.
 */
export function readFaultSettings(input: unknown): FaultSettings {
  if (typeof input === 'string') return fromSpec(input);
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    throw invalid(parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`));
  }
  const { spec, rules = [], scripts = [], seed } = parsed.data;
  const fromText = spec === undefined ? {} : fromSpec(spec);
  const problems: string[] = [];
  const check = <T extends FaultRule | FaultScript>(fault: T): T | undefined => {
    const result =
      misplacedField(fault) ?? checkFaultShape(fault.endpoint, fault.kind, paramOf(fault));
    if (typeof result === 'string') problems.push(`${fault.endpoint}:${fault.kind}: ${result}`);
    return typeof result === 'string' ? undefined : fault;
  };
  const checkedRules = rules.map(check).filter((r): r is FaultRule => r !== undefined);
  const checkedScripts = scripts.map(check).filter((s): s is FaultScript => s !== undefined);
  if (problems.length > 0) throw invalid(problems);
  return {
    rules: [...(fromText.rules ?? []), ...checkedRules],
    scripts: [...(fromText.scripts ?? []), ...checkedScripts],
    seed: seed ?? fromText.seed ?? 1,
  };
}

/** The one parameter field the fault's kind reads. */
function paramOf(fault: FaultRule | FaultScript): number | undefined {
  if (fault.kind === 'latency') return fault.latencyMs;
  return isRecordFaultKind(fault.kind) ? fault.hours : fault.status;
}

/** What is wrong when a fault carries a parameter field its kind does not read. */
function misplacedField(fault: FaultRule | FaultScript): string | undefined {
  if (fault.retryAfter !== undefined && fault.kind !== 'error' && fault.kind !== 'text') {
    return `${fault.kind} takes no retryAfter (it is for error and text)`;
  }
  if (isRecordFaultKind(fault.kind)) {
    return fault.status === undefined && fault.latencyMs === undefined
      ? undefined
      : `${fault.kind} takes hours, not status or latencyMs`;
  }
  return fault.hours === undefined
    ? undefined
    : `${fault.kind} takes no hours (hours are for ${RECORD_FAULT_KINDS.join(', ')})`;
}

function fromSpec(spec: string): FaultSettings {
  const { settings, problems } = parseFaultSpec(spec);
  if (problems.length > 0) throw invalid([...problems]);
  return settings;
}

function invalid(problems: readonly string[]): EnvdataError {
  return new EnvdataError('VALIDATION_FAILED', `Invalid faults: ${problems.join('; ')}`, {
    details: { problems },
  });
}
