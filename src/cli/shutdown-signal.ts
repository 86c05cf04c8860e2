/**
 * Resolves on the first SIGTERM or SIGINT. A second one exits at once (code 130), as an
 * operator pressing Ctrl-C twice expects.
 */
export function shutdownSignal(
  onFirst?: (signal: NodeJS.Signals) => void,
): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let received = false;
    const handler = (signal: NodeJS.Signals) => {
      if (received) process.exit(130);
      received = true;
      onFirst?.(signal);
      resolve(signal);
    };
    process.on('SIGTERM', handler);
    process.on('SIGINT', handler);
  });
}
