import { describe, expect, it } from 'vitest';
import { storableJson, storableText } from '../../src/warehouse/storable-json.js';

describe('storableJson', () => {
  it('writes a NUL in a string or a key as the text \\u0000, and nothing else differently', () => {
    const value = { ['k\u0000']: 'a\u0000b', plain: 'x\\u0000y', odd: '\\\u0000', n: 1 };
    const text = storableJson(value)!;
    expect(JSON.parse(text)).toEqual({
      'k\\u0000': 'a\\u0000b',
      plain: 'x\\u0000y',
      odd: '\\\\u0000',
      n: 1,
    });
    expect(storableJson(undefined)).toBeNull();
    expect(storableJson({ fine: 'é ✓' })).toBe(JSON.stringify({ fine: 'é ✓' }));
  });

  it('storableText writes each NUL as the text \\u0000', () => {
    expect(storableText('a\u0000b\u0000')).toBe('a\\u0000b\\u0000');
  });
});
