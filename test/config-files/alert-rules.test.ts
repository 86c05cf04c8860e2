import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { composeFile, repoYaml, REPO_ROOT } from './config-files.js';
import { isKnownMetric } from './metric-contract.js';
import { promqlMetricNames } from './promql-metric-names.js';
import { promtool } from './promtool.js';
import { needsTools } from '../harness/system-tools.js';

const RULES = 'config/prometheus/alerts.yml';
const RULE_TESTS = 'test/config-files/alerts.promtool.yml';
const CONFIG = 'config/prometheus/prometheus.yml';

interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

interface RuleTests {
  readonly rule_files: readonly string[];
  readonly tests: readonly {
    readonly alert_rule_test?: readonly {
      readonly alertname: string;
      readonly exp_alerts: readonly unknown[];
    }[];
  }[];
}

const rules = repoYaml<{ groups: { name: string; rules: AlertRule[] }[] }>(RULES).groups.flatMap(
  (g) => g.rules,
);
const ruleTests = repoYaml<RuleTests>(RULE_TESTS);

describe('config/prometheus/alerts.yml', () => {
  it('holds the alerts of issue 24: no worker alive while chunks wait, 429s sustained, freshness lag, failed chunks growing, a target down', () => {
    expect(rules.map((r) => r.alert)).toEqual([
      'EnvdataNoWorkerAlive',
      'EnvdataThrottledSustained',
      'EnvdataFreshnessLag',
      'EnvdataFailedChunksGrowing',
      'EnvdataTargetDown',
      'EnvdataNotScraped',
    ]);
    for (const rule of rules) {
      expect(['critical', 'warning'], rule.alert).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      expect(rule.annotations?.description, rule.alert).toBeTruthy();
    }
  });

  it('passes `promtool check rules`', needsTools('promtool'), async () => {
    const result = await promtool(['check', 'rules', RULES], REPO_ROOT);
    expect(result.output).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(result.code, result.output).toBe(0);
  });

  it('queries only metrics envdata exports (the metric contract) and `up`', () => {
    const unknown = rules.flatMap((r) =>
      promqlMetricNames(r.expr)
        .filter((name) => !isKnownMetric(name))
        .map((name) => `${r.alert}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it(
    'passes its unit tests (`promtool test rules`), which make every alert fire and stay silent',
    needsTools('promtool'),
    async () => {
      expect(
        ruleTests.rule_files.map((f) => path.normalize(path.join('test/config-files', f))),
      ).toEqual([RULES]);
      const cases = ruleTests.tests.flatMap((t) => t.alert_rule_test ?? []);
      for (const rule of rules) {
        const own = cases.filter((c) => c.alertname === rule.alert);
        expect(
          own.some((c) => c.exp_alerts.length > 0),
          `${rule.alert} is never expected to fire`,
        ).toBe(true);
        expect(
          own.some((c) => c.exp_alerts.length === 0),
          `${rule.alert} is never expected to stay silent`,
        ).toBe(true);
      }
      const result = await promtool(['test', 'rules', RULE_TESTS], REPO_ROOT);
      expect(result.output).toContain('SUCCESS');
      expect(result.code, result.output).toBe(0);
    },
  );

  it("is loaded by the compose stack's Prometheus: named in its rule_files, mounted beside its config", () => {
    const config = repoYaml<{ rule_files?: string[] }>(CONFIG);
    expect(config.rule_files).toEqual(['alerts.yml']);
    const volumes = composeFile().services.prometheus?.volumes ?? [];
    const mountOf = (file: string) =>
      volumes.find((v) => v.startsWith(`./${file}:`))?.split(':')[1];
    expect(mountOf(RULES)).toBe(
      path.posix.join(path.posix.dirname(mountOf(CONFIG)!), 'alerts.yml'),
    );
  });
});
