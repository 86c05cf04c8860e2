import { describe, expect, it } from 'vitest';
import {
  composeFile,
  dashboards,
  DATASOURCES_FILE,
  optionOf,
  provisionedDatasources,
  repoHas,
  repoText,
  repoYaml,
  REPO_ROOT,
  unescapeCompose,
  type ComposeService,
} from './config-files.js';
import { runShell } from './run-shell.js';

const compose = composeFile();
const services = compose.services;
const OPS = ['console', 'bi-role', 'prometheus', 'grafana'];

function service(name: string): ComposeService {
  const found = services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

/** The command a service runs, as one line (an `sh -c` script, or the words of the command). */
function commandLine(name: string): string {
  return unescapeCompose((service(name).command ?? []).join(' '));
}

/** `host:container` of every published port of a service, as [bind address, container port]. */
function published(name: string): { bind: string; container: string }[] {
  return (service(name).ports ?? []).map((entry) => {
    const parts = entry.split(':');
    return { bind: parts[0]!, container: parts.at(-1)! };
  });
}

/** Bind mounts of a service: [source in the repository, target in the container]. */
function bindMounts(name: string): { source: string; target: string }[] {
  return (service(name).volumes ?? [])
    .filter((volume) => volume.startsWith('./'))
    .map((volume) => {
      const [source, target] = volume.split(':');
      return { source: source!.slice(2), target: target! };
    });
}

describe('docker-compose.yml: the services and their wiring', () => {
  it('depends only on services that exist, and never from the default set on a profile', () => {
    const problems: string[] = [];
    for (const [name, svc] of Object.entries(services)) {
      for (const dependency of Object.keys(svc.depends_on ?? {})) {
        const target = services[dependency];
        if (!target) problems.push(`${name} depends on ${dependency}, which does not exist`);
        else if (!svc.profiles && target.profiles) {
          problems.push(`${name} (default) depends on ${dependency} (profiles ${target.profiles})`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('keeps the default `docker compose up` lean: the operator stack is in profile ops', () => {
    for (const name of OPS) expect(service(name).profiles, name).toEqual(['ops']);
    const defaults = Object.keys(services).filter((name) => !services[name]!.profiles);
    expect(defaults).toEqual(
      expect.arrayContaining(['postgres', 'redis', 'simulator', 'migrate', 'worker']),
    );
  });

  it('publishes ports on 127.0.0.1 only', () => {
    for (const name of Object.keys(services)) {
      for (const port of published(name)) expect(port.bind, name).toBe('127.0.0.1');
    }
  });

  it('mounts files that exist in the repository, and named volumes it declares', () => {
    for (const [name, svc] of Object.entries(services)) {
      for (const mount of bindMounts(name)) expect(repoHas(mount.source), mount.source).toBe(true);
      for (const volume of svc.volumes ?? []) {
        if (volume.startsWith('./')) continue;
        expect(Object.keys(compose.volumes ?? {}), `${name}: ${volume}`).toContain(
          volume.split(':')[0],
        );
      }
    }
  });

  it('pins the image of every service it does not build', () => {
    for (const [name, svc] of Object.entries(services)) {
      if (svc.build) continue;
      expect(svc.image, name).toMatch(/^[\w./-]+:[\w.-]+$/);
      expect(svc.image, name).not.toMatch(/:latest$/);
    }
  });
});

describe('the console service', () => {
  it('serves beyond loopback on 8080, published on 127.0.0.1, with a readiness healthcheck', () => {
    const line = commandLine('console');
    expect(line).toMatch(/exec node bin\/envdata\.js serve /);
    expect(optionOf(line, '--host')).toBe('0.0.0.0');
    expect(optionOf(line, '--port')).toBe('8080');
    expect(published('console').map((p) => p.container)).toEqual(['8080']);
    expect(service('console').healthcheck?.test.join(' ')).toContain(
      'http://127.0.0.1:8080/readyz',
    );
    expect(service('console').environment?.ENVDATA_CONSOLE_TOKEN).toBe(
      '${ENVDATA_CONSOLE_TOKEN:-}',
    );
  });

  it('refuses to start without ENVDATA_CONSOLE_TOKEN, saying how to set one', async () => {
    const { ENVDATA_CONSOLE_TOKEN: _unset, ...env } = process.env;
    for (const token of [undefined, '']) {
      const result = await runShell(commandLine('console'), {
        cwd: REPO_ROOT,
        env: token === undefined ? env : { ...env, ENVDATA_CONSOLE_TOKEN: token },
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('set ENVDATA_CONSOLE_TOKEN in .env');
    }
  });
});

describe('the worker service', () => {
  it('serves /metrics on 9464 beyond loopback, unpublished and unnamed so that it scales', () => {
    const line = commandLine('worker');
    expect(line.split(' ')[0]).toBe('worker');
    expect(optionOf(line, '--metrics-port')).toBe('9464');
    expect(optionOf(line, '--metrics-host')).toBe('0.0.0.0');
    expect(service('worker').ports).toBeUndefined();
    expect(service('worker').container_name).toBeUndefined();
    expect(service('worker').healthcheck?.test.join(' ')).toContain(
      'http://127.0.0.1:9464/healthz',
    );
  });
});

describe('the bi-role service', () => {
  it('hands ENVDATA_BI_PASSWORD to `envdata bi-role --password-stdin`, which checks it', async () => {
    expect(service('bi-role').entrypoint).toEqual(['sh', '-c']);
    expect(service('bi-role').depends_on?.migrate?.condition).toBe(
      'service_completed_successfully',
    );
    // A short password: the real command refuses it before touching the database.
    const result = await runShell(commandLine('bi-role'), {
      cwd: REPO_ROOT,
      env: { ...process.env, ENVDATA_BI_PASSWORD: 'short' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the password for envdata_bi must be at least 8 characters');
  });
});

describe('the grafana service and its provisioning', () => {
  const grafana = service('grafana');
  const mounts = bindMounts('grafana');
  const mountOf = (source: string) => mounts.find((m) => m.source === source)?.target;

  it('mounts the provisioning and the dashboards where the provider reads them', () => {
    expect(mountOf('config/grafana/provisioning')).toBe('/etc/grafana/provisioning');
    const provider = repoYaml<{ providers: { options: { path: string } }[] }>(
      'config/grafana/provisioning/dashboards/dashboards.yml',
    ).providers;
    expect(provider.map((p) => p.options.path)).toEqual([mountOf('config/grafana/dashboards')]);
    const home = grafana.environment?.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH ?? '';
    const homeFile = home.replace(
      `${mountOf('config/grafana/dashboards')}/`,
      'config/grafana/dashboards/',
    );
    expect(dashboards().map((d) => d.file)).toContain(homeFile);
  });

  it('waits for bi-role, and gets the BI password from the environment, never from a file', () => {
    expect(grafana.depends_on?.['bi-role']?.condition).toBe('service_completed_successfully');
    expect(grafana.environment?.ENVDATA_BI_PASSWORD).toBe('${ENVDATA_BI_PASSWORD:-}');
    for (const source of provisionedDatasources()) {
      for (const [key, value] of Object.entries(source.secureJsonData ?? {})) {
        expect(value, `${source.name} ${key}`).toMatch(/^\$\{?[A-Z_]+\}?$/);
        const variable = value.replace(/[${}]/g, '');
        expect(Object.keys(grafana.environment ?? {}), variable).toContain(variable);
      }
    }
    expect(repoText(DATASOURCES_FILE)).not.toMatch(/password:\s*(?!\$)\S/);
  });

  it('points the data sources at compose services: Prometheus, and the warehouse as envdata_bi', () => {
    const byType = new Map(provisionedDatasources().map((s) => [s.type, s]));
    const prometheus = new URL(byType.get('prometheus')!.url);
    expect(services[prometheus.hostname], prometheus.hostname).toBeDefined();
    expect(published(prometheus.hostname).map((p) => p.container)).toContain(prometheus.port);

    const warehouse = byType.get('grafana-postgresql-datasource')!;
    const [host, port] = warehouse.url.split(':');
    expect(service(host!).image).toMatch(/^postgres:/);
    expect(published(host!).map((p) => p.container)).toContain(port);
    expect(warehouse.user).toBe('envdata_bi');
    const appDatabase = new URL(service('worker').environment!.DATABASE_URL!).pathname.slice(1);
    expect(warehouse.jsonData?.database).toBe(appDatabase);
  });
});

describe('the traces and lineage profiles', () => {
  // The simulator stands in for the service: it traces nothing and emits no lineage.
  const APP = ['worker', 'scheduler', 'console', 'migrate', 'bi-role'];

  it('keeps Jaeger and Marquez out of the default set, each in its own profile', () => {
    expect(service('jaeger').profiles).toEqual(['traces']);
    for (const name of ['marquez-db', 'marquez', 'marquez-web']) {
      expect(service(name).profiles, name).toEqual(['lineage']);
    }
  });

  it('hands the OpenTelemetry and OpenLineage settings to every envdata service, off by default', () => {
    for (const name of APP) {
      const env = service(name).environment ?? {};
      // Empty is unset for envdata: a default `docker compose up` exports nothing.
      expect(env.OTEL_EXPORTER_OTLP_ENDPOINT, name).toBe('${OTEL_EXPORTER_OTLP_ENDPOINT:-}');
      expect(env.ENVDATA_OPENLINEAGE_URL, name).toBe('${ENVDATA_OPENLINEAGE_URL:-}');
      expect(env.ENVDATA_TRACE_URL, name).toBe('${ENVDATA_TRACE_URL:-}');
    }
  });

  it('publishes the OTLP/HTTP port and the UIs the docs name, and Marquez reads its own database', () => {
    expect(published('jaeger').map((p) => p.container)).toEqual(['16686', '4318']);
    expect(published('marquez').map((p) => p.container)).toEqual(['5000']);
    const marquez = repoYaml<{
      db: { url: string };
      server: { applicationConnectors: { port: number }[] };
    }>('config/marquez/marquez.yml');
    const environment = service('marquez').environment ?? {};
    expect(marquez.db.url).toBe(
      `jdbc:postgresql://${environment.POSTGRES_HOST}:${environment.POSTGRES_PORT}/marquez`,
    );
    expect(marquez.server.applicationConnectors[0]?.port).toBe(5000);
    expect(bindMounts('marquez').map((m) => m.target)).toContain(environment.MARQUEZ_CONFIG);
    expect(service('marquez-db').environment?.POSTGRES_DB).toBe('marquez');
    const web = service('marquez-web').environment ?? {};
    expect([web.MARQUEZ_HOST, web.MARQUEZ_PORT]).toEqual(['marquez', '5000']);
  });
});
