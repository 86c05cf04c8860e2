import { describe, expect, it } from 'vitest';
import { answerShapeOf } from '../../src/upstream/answer-shape.js';
import { shapeDigest } from '../../src/upstream/shape-digest.js';
import { describeChanges, noChanges, shapeChanges } from '../../src/upstream/shape-changes.js';

const weatherHistory = (records: readonly object[], status = 'success') => ({
  status,
  data: { lat: 52.52, lng: 13.405, history: records },
});
const record = { time: 1594642800, temperature: 18.2, humidity: 0.81, summary: 'Clear' };
const POLLEN_MAPS = ['Species.*', 'SpeciesRisk', 'Risks'];

describe('answerShapeOf', () => {
  it('lists every key path with its JSON types, arrays collapsed to []', () => {
    const shape = answerShapeOf(weatherHistory([record]));
    expect(shape.paths).toEqual({
      status: ['string'],
      data: ['object'],
      'data.lat': ['number'],
      'data.lng': ['number'],
      'data.history': ['array'],
      'data.history[]': ['object'],
      'data.history[].time': ['number'],
      'data.history[].temperature': ['number'],
      'data.history[].humidity': ['number'],
      'data.history[].summary': ['string'],
    });
    expect(shape.envelope).toBe('status, data.history[]');
    expect(shape.status).toBe('success');
  });

  it('takes the union over the records, with every type a path had', () => {
    const shape = answerShapeOf(
      weatherHistory([record, { ...record, humidity: null, windGust: 3 }]),
    );
    expect(shape.paths['data.history[].humidity']).toEqual(['null', 'number']);
    expect(shape.paths['data.history[].windGust']).toEqual(['number']);
  });

  it('names the envelope forms: message with data as an array, or one record object', () => {
    expect(answerShapeOf({ message: 'success', data: [record] }).envelope).toBe('message, data[]');
    expect(answerShapeOf({ message: 'success', data: record }).envelope).toBe('message, data{}');
  });

  it('collapses the species of each pollen category, so a region change keeps the shape', () => {
    const europe = {
      message: 'success',
      data: [
        {
          Count: { tree_pollen: 8 },
          Species: { Tree: { Alder: 0, Birch: 3 }, Others: 0 },
          SpeciesRisk: { Alder: 'Low' },
        },
      ],
    };
    const america = {
      message: 'success',
      data: [
        {
          Count: { tree_pollen: 8 },
          Species: { Tree: { 'Poplar / Cottonwood': 4 }, Others: 1 },
          SpeciesRisk: { 'Poplar / Cottonwood': 'High' },
        },
      ],
    };
    const a = answerShapeOf(europe, { maps: POLLEN_MAPS });
    const b = answerShapeOf(america, { maps: POLLEN_MAPS });
    expect(a.paths['data[].Species.Tree.*']).toEqual(['number']);
    expect(a.paths['data[].Species.Others']).toEqual(['number']);
    expect(a.paths['data[].SpeciesRisk.*']).toEqual(['string']);
    expect(a.paths['data[].Count.tree_pollen']).toEqual(['number']);
    expect(shapeDigest('pollen', 'history', a)).toBe(shapeDigest('pollen', 'history', b));
  });
});

describe('shapeChanges', () => {
  const before = answerShapeOf(weatherHistory([record]), { units: { humidity: 'fraction' } });

  it('sees a field that stops coming, a new field and a type change', () => {
    const { humidity: _, ...withoutHumidity } = record;
    const gone = answerShapeOf(weatherHistory([withoutHumidity]));
    expect(shapeChanges(before, gone).gone).toEqual(['data.history[].humidity']);
    const added = answerShapeOf(weatherHistory([{ ...record, smoke: 2 }]), {
      units: { humidity: 'fraction' },
    });
    expect(describeChanges(shapeChanges(before, added))).toEqual([
      'key added: data.history[].smoke',
    ]);
    const text = answerShapeOf(weatherHistory([{ ...record, humidity: '81 %' }]));
    expect(shapeChanges(before, text).typeChanged).toEqual([
      { path: 'data.history[].humidity', from: ['number'], to: ['string'] },
    ]);
  });

  it('sees a told unit that changes, and the status text, but not a unit told for the first time', () => {
    const percent = answerShapeOf(weatherHistory([record]), { units: { humidity: 'percent' } });
    expect(shapeChanges(before, percent).unitChanged).toEqual([
      { field: 'humidity', from: 'fraction', to: 'percent' },
    ]);
    const untold = answerShapeOf(weatherHistory([record]));
    expect(noChanges(shapeChanges(untold, before))).toBe(true);
    expect(shapeDigest('weather', 'history', untold)).not.toBe(
      shapeDigest('weather', 'history', before),
    );
    const capital = answerShapeOf(weatherHistory([record], 'Success'), {
      units: { humidity: 'fraction' },
    });
    expect(shapeChanges(before, capital).status).toEqual({ from: 'success', to: 'Success' });
  });

  it('names a shape by endpoint as well as by shape', () => {
    expect(shapeDigest('weather', 'history', before)).toMatch(/^[0-9a-f]{12}$/);
    expect(shapeDigest('weather', 'history', before)).not.toBe(
      shapeDigest('weather', 'forecast_72h', before),
    );
  });
});
