/**
 * The JSON value type, below the reader, the writer and `Json`, their face:
 * the one thing all three need, so that neither the reader nor the writer
 * imports the module that exports them.
 *
 * @since 0.1.0
 */

/**
 * A JSON value.
 *
 * @since 0.1.0
 * @category models
 */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

/**
 * A JSON object.
 *
 * @since 0.1.0
 * @category models
 */
export type JsonObject = { readonly [key: string]: Json }
