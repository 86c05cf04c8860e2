import { describe, expect, it } from 'vitest';
import { lineageEndpoint, loadConfig } from '../../src/config/load-config.js';
import { lineageRunId, warehouseNamespace } from '../../src/lineage/lineage-event.js';

describe('ENVDATA_OPENLINEAGE_URL', () => {
  it('a base URL gets the HTTP transport’s default path; a full endpoint is kept', () => {
    expect(lineageEndpoint('http://localhost:5000')).toBe('http://localhost:5000/api/v1/lineage');
    expect(lineageEndpoint('http://localhost:5000/')).toBe('http://localhost:5000/api/v1/lineage');
    expect(lineageEndpoint('https://catalog.example/ol/')).toBe(
      'https://catalog.example/ol/api/v1/lineage',
    );
    expect(lineageEndpoint('https://catalog.example/api/v1/lineage')).toBe(
      'https://catalog.example/api/v1/lineage',
    );
  });

  it('unset: no lineage; set: the endpoint, the key and the namespace', () => {
    expect(loadConfig({}).lineage).toBeUndefined();
    expect(
      loadConfig({
        ENVDATA_OPENLINEAGE_URL: 'http://localhost:5000',
        ENVDATA_OPENLINEAGE_API_KEY: 'k',
      }).lineage,
    ).toEqual({
      endpoint: 'http://localhost:5000/api/v1/lineage',
      apiKey: 'k',
      namespace: 'envdata',
    });
    expect(() => loadConfig({ ENVDATA_OPENLINEAGE_URL: 'localhost:5000' })).toThrow(
      /ENVDATA_OPENLINEAGE_URL/,
    );
  });
});

describe('lineage identities', () => {
  it('the warehouse namespace has host and port, never the user or password', () => {
    expect(warehouseNamespace('postgres://envdata:s3cret@db.internal/wh')).toEqual({
      namespace: 'postgres://db.internal:5432',
      database: 'wh',
    });
  });

  it('a run id is a UUID, the same for an attempt, different across attempts and warehouses', () => {
    const id = lineageRunId('postgres://a:5432/wh', 'envdata', 12, 1);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(lineageRunId('postgres://a:5432/wh', 'envdata', 12, 1)).toBe(id);
    expect(lineageRunId('postgres://a:5432/wh', 'envdata', 12, 2)).not.toBe(id);
    expect(lineageRunId('postgres://b:5432/wh', 'envdata', 12, 1)).not.toBe(id);
  });
});
