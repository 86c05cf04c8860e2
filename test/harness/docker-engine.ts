import { execFileSync } from 'node:child_process';

/** Whether a Docker engine answers (`docker info`), so testcontainers can start services. */
export function dockerEngineAnswers(): boolean {
  try {
    execFileSync('docker', ['info', '--format', '{{.ServerVersion}}'], {
      stdio: 'ignore',
      timeout: 10_000,
    });
    return true;
  } catch {
    return false;
  }
}
