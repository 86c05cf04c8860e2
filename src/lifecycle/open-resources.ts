/**
 * A registry of the long-lived resources this process opened through envdata's seams (pools,
 * Redis connections, queues, workers, HTTP agents, simulators). Closing a resource removes it.
 * Tests assert the registry is empty after each file, so a leaked pool or worker fails the run.
 */
export interface OpenResource {
  readonly kind: string;
  readonly name: string;
  readonly close: () => Promise<void>;
}

const open = new Set<OpenResource>();

/** Records an open resource; call the returned function once it is closed. */
export function trackResource(kind: string, name: string, close: () => Promise<void>): () => void {
  const resource: OpenResource = { kind, name, close };
  open.add(resource);
  return () => {
    open.delete(resource);
  };
}

/** The resources opened and not yet closed, oldest first. */
export function openResources(): readonly OpenResource[] {
  return [...open];
}
