import { homedir } from 'node:os';
import path from 'node:path';

/**
 * Where the local PostgreSQL lives as root, whatever the home directory: the server runs as the
 * unprivileged user `envdata` (PostgreSQL refuses root), which cannot enter `/root` (mode 0700)
 * nor a project under it. `/var/lib` is open to every user, as for a packaged PostgreSQL.
 */
export const ROOT_LOCAL_DIRECTORY = '/var/lib/envdata/postgres';

/** What the default depends on, read from the environment by the caller. */
export interface LocalDirectorySettings {
  /** Whether envdata runs as root (the server then runs as another user). */
  readonly root: boolean;
  /** `XDG_DATA_HOME`, used when absolute (the XDG Base Directory rule). */
  readonly xdgDataHome?: string | undefined;
  /** `HOME`; the system's idea of it when unset. */
  readonly home?: string | undefined;
}

/**
 * The local PostgreSQL's directory when ENVDATA_LOCAL_DIR is not set: the user's data directory
 * (`$XDG_DATA_HOME/envdata/postgres`, else `~/.local/share/envdata/postgres`), never inside the
 * package or the clone, so that an installed package stays read-only and a clone stays clean; as
 * root `ROOT_LOCAL_DIRECTORY`.
 */
export function defaultLocalDirectory(settings: LocalDirectorySettings): string {
  if (settings.root) return ROOT_LOCAL_DIRECTORY;
  const xdg = settings.xdgDataHome?.trim();
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'envdata', 'postgres');
  const home = settings.home?.trim() || homedir();
  return path.join(home, '.local', 'share', 'envdata', 'postgres');
}
