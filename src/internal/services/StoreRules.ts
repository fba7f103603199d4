/**
 * What the compaction-state stores decide, in the shared core
 * (docs/effect4.md): the compare-and-set rule of a versioned save, the
 * number a BIGINT column holds, and the wording of their failures, the same
 * in every store of both faces.
 *
 * @since 0.1.0
 */

/**
 * Whether a versioned save replaces the stored state: always when the
 * session has none, else only when the stored state is the one the saver
 * started from (its `compactions` is `expected`).
 *
 * @since 0.1.0
 * @category predicates
 */
export const saves = (stored: { readonly compactions: number } | undefined, expected: number): boolean =>
  stored === undefined || stored.compactions === expected

/**
 * A number as a BIGINT column holds it: an integer within the safe range.
 * The columns beside a stored JSON are for people reading the table; the JSON is the state.
 *
 * @since 0.1.0
 * @category constructors
 */
export const bigintColumn = (value: number): number =>
  Math.min(Math.max(Math.trunc(value), Number.MIN_SAFE_INTEGER), Number.MAX_SAFE_INTEGER)

/**
 * The reason of a state refused at save: it would not decode from its own JSON.
 *
 * @since 0.1.0
 * @category errors
 */
export const notEncodable = (detail: string): string => `state does not survive encoding: ${detail}`

/**
 * The reason of a stored state that does not decode, `where` the store when it names one.
 *
 * @since 0.1.0
 * @category errors
 */
export const notDecodable = (detail: string, where?: string): string =>
  where === undefined
    ? `stored state does not decode: ${detail}`
    : `stored state in ${where} does not decode: ${detail}`
