import { describe, expect, it } from 'vitest';
import { composeFile, optionOf, repoYaml, REPO_ROOT, unescapeCompose } from './config-files.js';
import { promtool } from './promtool.js';
import { needsTools } from '../harness/system-tools.js';

const CONFIG = 'config/prometheus/prometheus.yml';

interface ScrapeConfig {
  readonly job_name: string;
  readonly metrics_path?: string;
  readonly static_configs?: readonly { targets: readonly string[] }[];
  readonly dns_sd_configs?: readonly { names: readonly string[]; type: string; port: number }[];
}

const scrapeConfigs = repoYaml<{ scrape_configs: ScrapeConfig[] }>(CONFIG).scrape_configs;
const services = composeFile().services;

/** The port an envdata service serves /metrics on, from its command. */
function metricsPortOf(name: string): string | undefined {
  const command = unescapeCompose((services[name]?.command ?? []).join(' '));
  return optionOf(command, '--metrics-port') ?? optionOf(command, '--port');
}

describe('config/prometheus/prometheus.yml', () => {
  it('passes `promtool check config`', needsTools('promtool'), async () => {
    const result = await promtool(['check', 'config', CONFIG], REPO_ROOT);
    expect(result.output).toContain('SUCCESS');
    expect(result.code, result.output).toBe(0);
  });

  it('scrapes the console at the port `envdata serve` listens on', () => {
    const targets = scrapeConfigs.flatMap((c) =>
      (c.static_configs ?? []).flatMap((s) => s.targets),
    );
    const remote = targets.filter((t) => !t.startsWith('localhost:'));
    expect(remote).toEqual(['console:8080']);
    for (const target of remote) {
      const [host, port] = target.split(':');
      expect(services[host!], host).toBeDefined();
      expect(metricsPortOf(host!)).toBe(port);
    }
  });

  it("finds every worker replica through compose's DNS (type A), at --metrics-port", () => {
    const discovery = scrapeConfigs.flatMap((c) => c.dns_sd_configs ?? []);
    expect(discovery.length).toBeGreaterThan(0);
    for (const sd of discovery) {
      expect(sd.type).toBe('A');
      for (const name of sd.names) {
        expect(services[name], name).toBeDefined();
        expect(String(sd.port)).toBe(metricsPortOf(name));
      }
    }
    expect(discovery.flatMap((sd) => sd.names)).toContain('worker');
  });

  it('is the file the prometheus service mounts and starts with', () => {
    const prometheus = services.prometheus!;
    const mount = (prometheus.volumes ?? []).find((v) => v.startsWith(`./${CONFIG}:`));
    const target = mount?.split(':')[1];
    expect(target).toBeDefined();
    expect(prometheus.command).toContain(`--config.file=${target}`);
  });
});
