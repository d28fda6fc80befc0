/**
 * The few builders every schema file uses, over TypeBox. A TypeBox type is a plain JSON Schema
 * object (its own bookkeeping is in non-enumerable members that ajv and JSON.stringify skip) and
 * also carries its static type, so `Static<typeof schema>` is the TypeScript shape of what the
 * schema accepts: one declaration, so schema and type cannot drift apart.
 */
import {
  Type,
  type TEnum,
  type TEnumValue,
  type TObject,
  type TObjectOptions,
  type TOptional,
  type Static,
  type TProperties,
  type TSchema,
  type TSchemaOptions,
  type TUnion,
  type TUnsafe,
} from 'typebox';

/** A JSON Schema as data: what ajv compiles, and what code that walks a schema reads. */
export type JsonSchema = Record<string, unknown>;

/**
 * A TypeBox type that can also be read as plain schema data (`schema['properties']`). TypeBox
 * declares its types as interfaces, which TypeScript does not let index as records.
 */
export type Readable<T extends TSchema> = T & JsonSchema;

/** `T` as a type that can also be read as plain schema data. */
export function readable<T extends TSchema>(schema: T): Readable<T> {
  return schema as Readable<T>;
}

/**
 * An object that admits only the members it names (every object in stacksync's schemas, so a
 * typo is an error, not a silently ignored member). `options` add keywords such as `if`/`then`,
 * `oneOf`, `minProperties`, `default` and `description`.
 */
export function object<P extends TProperties>(properties: P, options: TObjectOptions = {}): Readable<TObject<P>> {
  return readable(Type.Object(properties, { additionalProperties: false, ...options }));
}

/** Every member of `properties`, made optional (`Type.Optional` on each). */
export function optional<P extends TProperties>(properties: P): { [K in keyof P]: TOptional<P[K]> } {
  return Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, Type.Optional(schema)])) as {
    [K in keyof P]: TOptional<P[K]>;
  };
}

/** One of a list of values (`enum`); its type is the union of those values. */
export function oneOf<const V extends TEnumValue[]>(
  values: readonly [...V],
  options: TSchemaOptions = {},
): Readable<TEnum<V>> {
  return readable(Type.Enum(values, options));
}

/**
 * Exactly `value` (`const`). Not TypeBox's `Literal`, which adds `type: 'string'` and with it a
 * second error for a value of the wrong type.
 */
export function constant<const V extends string>(value: V, options: TSchemaOptions = {}): Readable<TUnsafe<V>> {
  return readable(Type.Unsafe<V>({ const: value, ...options }));
}

/**
 * `schema` with a description of its own for the place it is used: a copy (the original is
 * shared) that keeps TypeBox's own marks, such as optional.
 */
export function described<T extends TSchema>(schema: T, description: string): Readable<T> {
  return readable(Type.With(schema, { description }) as TSchema as T);
}

/**
 * One of the schemas of a literal table (`anyOf`), in the table's order; its type is the union of
 * the table's schemas. TypeBox's `Union` takes a tuple, which `Object.values` does not type.
 */
export function unionOf<T extends Record<string, TSchema>>(table: T): Readable<TUnion<[T[keyof T]]>> {
  // Typed as one member that is the union of the table's schemas, so its static type is the union
  // of theirs (TypeBox reads statics from a tuple only). Sound: every value is a `T[keyof T]`.
  return readable(Type.Union(Object.values(table)) as TUnion<[T[keyof T]]>);
}

/**
 * `validate`, compiled from `schema`, as a guard of `schema`'s static type. Sound because the
 * validator accepts exactly what the schema accepts, and `Static<S>` is the type of that.
 */
export function guardOf<S extends TSchema>(
  _schema: S,
  validate: (data: unknown) => boolean,
): (data: unknown) => data is Static<S> {
  return validate as (data: unknown) => data is Static<S>;
}
