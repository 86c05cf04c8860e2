import type { ShapeVariants } from './shape-variants.js';

/** `"success"`, or `"Success"` as older responses spell it. */
export function successMessage(shapes: ShapeVariants): string {
  return shapes.capitalSuccess ? 'Success' : 'success';
}
