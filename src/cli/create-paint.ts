import { styleText } from 'node:util';

/** A style of `util.styleText`: `'red'`, `['bold', 'red']`, … */
export type PaintStyle = Parameters<typeof styleText>[0];

/** Colours `text`, or returns it as is when colour is off. */
export type Paint = (style: PaintStyle, text: string) => string;

/**
 * A `Paint` that colours only when `enabled`: the caller decides (a terminal, and `NO_COLOR`
 * unset: `config.log.color`), so the output does not depend on which stream Node would check.
 */
export function createPaint(enabled: boolean): Paint {
  if (!enabled) return (_style, text) => text;
  return (style, text) => styleText(style, text, { validateStream: false });
}
