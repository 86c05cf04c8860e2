/** Turns whatever was thrown into an `Error`, keeping the original as `cause` when it was not one. */
export function coerceError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  const message = typeof thrown === 'string' ? thrown : safeStringify(thrown);
  return new Error(message, { cause: thrown });
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
