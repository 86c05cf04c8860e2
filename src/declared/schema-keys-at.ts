import type { z } from 'zod';

/** The parts of a zod 4 schema's definition that lead to the maps inside it. */
interface SchemaDef {
  readonly type: string;
  readonly shape?: Readonly<Record<string, z.core.$ZodType>>;
  readonly innerType?: z.core.$ZodType;
  readonly options?: readonly z.core.$ZodType[];
  readonly element?: z.core.$ZodType;
  readonly valueType?: z.core.$ZodType;
}

/**
 * The keys a map at `path` of `schema` may have (`['datasets']` → `pollen`, `weather`): what an
 * unknown key there may have meant (`weathr`). The entries of a list or record are one step
 * each; a union offers the keys of all its shapes.
 */
export function schemaKeysAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  const def = schema._zod.def as SchemaDef;
  const [first, ...rest] = path;
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
      return def.innerType ? schemaKeysAt(def.innerType, path) : [];
    case 'union':
      return [...new Set((def.options ?? []).flatMap((o) => schemaKeysAt(o, path)))];
    case 'object': {
      if (first === undefined) return Object.keys(def.shape ?? {});
      const next = typeof first === 'string' ? def.shape?.[first] : undefined;
      return next ? schemaKeysAt(next, rest) : [];
    }
    case 'array':
      return def.element && first !== undefined ? schemaKeysAt(def.element, rest) : [];
    case 'record':
      return def.valueType && first !== undefined ? schemaKeysAt(def.valueType, rest) : [];
    default:
      return [];
  }
}
