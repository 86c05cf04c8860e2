import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { useTempDir } from '../harness/temp-dir.js';
import {
  dashboards,
  provisionedDatasources,
  targetsOf,
  type DatasourceRef,
} from './config-files.js';
import { CONTRACT_METRICS, isKnownMetric } from './metric-contract.js';
import { promqlMetricNames } from './promql-metric-names.js';
import { promtool } from './promtool.js';
import { needsTools } from '../harness/system-tools.js';

const all = dashboards();
const sources = provisionedDatasources();
const temp = useTempDir('envdata-dashboards-');

/** Grafana's own variables in a Prometheus query, given the values Grafana would. */
function withGrafanaVariables(expr: string): string {
  return expr
    .replaceAll('$__rate_interval', '1m')
    .replaceAll('$__interval', '30s')
    .replaceAll('$__range', '6h');
}

/** Every PromQL expression of the dashboards, named `uid:panel:refId`. */
const promql = all.flatMap(({ dashboard }) =>
  targetsOf(dashboard)
    .filter(({ target }) => target.expr !== undefined)
    .map(({ panel, target }) => ({
      name: `${dashboard.uid}:${panel.id}:${target.refId}`,
      title: panel.title,
      expr: target.expr!,
    })),
);

/** `promtool check rules` on recording rules of `exprs`: it parses each with PromQL's parser. */
async function checkRules(exprs: readonly { name: string; expr: string }[]) {
  const file = await temp.write(
    `rules-${Date.now()}.yml`,
    stringify({
      groups: [
        {
          name: 'dashboards',
          rules: exprs.map(({ name, expr }) => ({
            record: name.replace(/[^a-zA-Z0-9_:]/g, '_'),
            expr: withGrafanaVariables(expr),
          })),
        },
      ],
    }),
  );
  return promtool(['check', 'rules', file]);
}

describe('the Grafana dashboards (config/grafana/dashboards)', () => {
  it('are two, each with a unique uid and a title, on panels with unique ids', () => {
    expect(all.map((d) => d.file)).toEqual([
      'config/grafana/dashboards/pipeline-health.json',
      'config/grafana/dashboards/warehouse.json',
    ]);
    const uids = all.map(({ dashboard }) => dashboard.uid);
    expect(new Set(uids).size).toBe(uids.length);
    for (const { file, dashboard } of all) {
      expect(dashboard.uid, file).toMatch(/^[a-zA-Z0-9_-]{1,40}$/);
      expect(dashboard.title, file).toMatch(/\S/);
      expect(dashboard.panels.length, file).toBeGreaterThan(0);
      const ids = dashboard.panels.map((p) => p.id);
      expect(new Set(ids).size, file).toBe(ids.length);
    }
  });

  it('use only provisioned data sources, by uid and type', () => {
    const provisioned = new Map(sources.map((s) => [s.uid, s.type]));
    const refs: { where: string; ref: DatasourceRef | undefined }[] = all.flatMap(
      ({ dashboard }) => [
        ...dashboard.panels.map((p) => ({
          where: `${dashboard.uid} ${p.title}`,
          ref: p.datasource,
        })),
        ...targetsOf(dashboard).map(({ panel, target }) => ({
          where: `${dashboard.uid} ${panel.title} ${target.refId}`,
          ref: target.datasource ?? panel.datasource,
        })),
        ...dashboard.templating.list.map((v) => ({
          where: `${dashboard.uid} $${v.name}`,
          ref: v.datasource,
        })),
      ],
    );
    const wrong = refs
      .filter(({ ref }) => !ref || provisioned.get(ref.uid) !== ref.type)
      .map(({ where, ref }) => `${where}: ${JSON.stringify(ref)}`);
    expect(wrong).toEqual([]);
  });
});

describe('the PromQL of the dashboards', () => {
  it('has one expression or more per Prometheus panel', () => {
    expect(promql.length).toBeGreaterThanOrEqual(15);
  });

  it(
    "parses: `promtool check rules` accepts every expression (PromQL's own parser)",
    needsTools('promtool'),
    async () => {
      const result = await checkRules(promql);
      expect(result.code, result.output).toBe(0);
      expect(result.output).toContain(`SUCCESS: ${promql.length} rules found`);
    },
  );

  it(
    'would fail the check on an expression that does not parse',
    needsTools('promtool'),
    async () => {
      const result = await checkRules([
        {
          name: 'broken',
          expr: 'sum by (status) (rate(envdata_api_calls_total[$__rate_interval])',
        },
      ]);
      expect(result.code).not.toBe(0);
      expect(result.output).toMatch(/parse/i);
    },
  );

  it('queries only metrics of the contract, default process metrics and up', () => {
    const unknown = promql.flatMap(({ name, expr }) =>
      promqlMetricNames(expr)
        .filter((metric) => !isKnownMetric(metric))
        .map((metric) => `${name}: ${metric}`),
    );
    expect(unknown).toEqual([]);
  });

  it('shows every metric of the contract somewhere', () => {
    const used = new Set(promql.flatMap(({ expr }) => promqlMetricNames(expr)));
    const unused = Object.keys(CONTRACT_METRICS).filter(
      (metric) => ![...used].some((name) => name === metric || name.startsWith(`${metric}_`)),
    );
    expect(unused).toEqual([]);
  });

  it('reads metric names structurally, leaving out functions, labels, durations and keywords', () => {
    expect(
      promqlMetricNames(
        'histogram_quantile(0.95, sum by (le, dataset) (rate(envdata_chunk_duration_seconds_bucket{outcome="done"}[5m] offset 1h))) / on (dataset) group_left count(up == 1) and bogus_total',
      ),
    ).toEqual(['envdata_chunk_duration_seconds_bucket', 'up', 'bogus_total']);
  });
});
