import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** The repository's root, where docker-compose.yml and config/ are. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The parts of a compose service these tests look at. */
export interface ComposeService {
  readonly image?: string;
  readonly build?: unknown;
  readonly profiles?: readonly string[];
  readonly entrypoint?: readonly string[];
  readonly command?: readonly string[];
  readonly environment?: Readonly<Record<string, string>>;
  readonly depends_on?: Readonly<Record<string, { condition: string }>>;
  readonly ports?: readonly string[];
  readonly volumes?: readonly string[];
  readonly healthcheck?: { readonly test: readonly string[] };
  readonly container_name?: string;
}

export interface ComposeFile {
  readonly services: Readonly<Record<string, ComposeService>>;
  readonly volumes?: Readonly<Record<string, unknown>>;
}

/** A file of the repository, as text. */
export function repoText(file: string): string {
  return readFileSync(path.join(REPO_ROOT, file), 'utf8');
}

/** Whether `file` (relative to the repository's root) exists. */
export function repoHas(file: string): boolean {
  return existsSync(path.join(REPO_ROOT, file));
}

/** A YAML file of the repository, parsed with merge keys (`<<: *app`) resolved as compose does. */
export function repoYaml<T>(file: string): T {
  return parse(repoText(file), { merge: true }) as T;
}

/** docker-compose.yml, parsed. */
export function composeFile(): ComposeFile {
  return repoYaml<ComposeFile>('docker-compose.yml');
}

/**
 * A string of the compose file as the container sees it: compose turns `$$` into `$` (and
 * would interpolate `${VAR}`; the strings passed through here hold none).
 */
export function unescapeCompose(text: string): string {
  return text.replaceAll('$$', '$');
}

/** The value of `--name value` in a command, or undefined. */
export function optionOf(command: readonly string[] | string, name: string): string | undefined {
  const words = typeof command === 'string' ? command.split(/\s+/) : command;
  const at = words.indexOf(name);
  return at >= 0 ? words[at + 1] : undefined;
}

/** A Grafana dashboard as far as these tests read it. */
export interface Dashboard {
  readonly uid: string;
  readonly title: string;
  readonly panels: readonly Panel[];
  readonly templating: { readonly list: readonly TemplateVariable[] };
}

export interface DatasourceRef {
  readonly type: string;
  readonly uid: string;
}

export interface Panel {
  readonly id: number;
  readonly title: string;
  readonly type: string;
  readonly datasource?: DatasourceRef;
  readonly targets?: readonly PanelTarget[];
}

export interface PanelTarget {
  readonly refId: string;
  readonly datasource?: DatasourceRef;
  /** PromQL (Prometheus targets). */
  readonly expr?: string;
  /** SQL (Postgres targets). */
  readonly rawSql?: string;
  readonly format?: 'time_series' | 'table';
}

export interface TemplateVariable {
  readonly name: string;
  readonly type: string;
  readonly datasource?: DatasourceRef;
  readonly query?: string;
}

export const DASHBOARD_DIR = 'config/grafana/dashboards';

/** Every committed dashboard, by file name. */
export function dashboards(): { file: string; dashboard: Dashboard }[] {
  return readdirSync(path.join(REPO_ROOT, DASHBOARD_DIR))
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => {
      const file = `${DASHBOARD_DIR}/${name}`;
      return { file, dashboard: JSON.parse(repoText(file)) as Dashboard };
    });
}

/** A provisioned Grafana data source. */
export interface ProvisionedDatasource {
  readonly name: string;
  readonly uid: string;
  readonly type: string;
  readonly url: string;
  readonly user?: string;
  readonly jsonData?: Readonly<Record<string, unknown>>;
  readonly secureJsonData?: Readonly<Record<string, string>>;
}

export const DATASOURCES_FILE = 'config/grafana/provisioning/datasources/datasources.yml';

/** The provisioned data sources. */
export function provisionedDatasources(): ProvisionedDatasource[] {
  return repoYaml<{ datasources: ProvisionedDatasource[] }>(DATASOURCES_FILE).datasources;
}

/** Every query target of a dashboard with the panel it belongs to, and its data source. */
export function targetsOf(dashboard: Dashboard): { panel: Panel; target: PanelTarget }[] {
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ panel, target })),
  );
}
