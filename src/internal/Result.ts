/**
 * The shared core's result: a value or the reason there is none, as plain data. The core
 * (docs/effect4.md) imports no Effect API that differs between Effect 3 and 4, and `effect/Either`
 * is gone in 4 (`effect/Result` took its place), so a core function that can fail returns this,
 * and each face converts it to its own (`Either` on Effect 3, `Result` on Effect 4) at its API.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 * @category models
 */
export type Result<A, E> = Ok<A> | Err<E>

/**
 * A value.
 *
 * @since 0.1.0
 * @category models
 */
export interface Ok<A> {
  readonly _tag: "Ok"
  readonly value: A
}

/**
 * No value, and why.
 *
 * @since 0.1.0
 * @category models
 */
export interface Err<E> {
  readonly _tag: "Err"
  readonly error: E
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const ok = <A>(value: A): Ok<A> => ({ _tag: "Ok", value })

/**
 * @since 0.1.0
 * @category constructors
 */
export const err = <E>(error: E): Err<E> => ({ _tag: "Err", error })

/**
 * @since 0.1.0
 * @category guards
 */
export const isOk = <A, E>(result: Result<A, E>): result is Ok<A> => result._tag === "Ok"

/**
 * The value, or `undefined` when there is none.
 *
 * @since 0.1.0
 * @category getters
 */
export const getOrUndefined = <A, E>(result: Result<A, E>): A | undefined =>
  result._tag === "Ok" ? result.value : undefined

/**
 * The value; throws when there is none (for a result known to hold one).
 *
 * @since 0.1.0
 * @category getters
 */
export const getOrThrow = <A, E>(result: Result<A, E>): A => {
  if (result._tag === "Ok") return result.value
  throw new Error(`no value: ${String(result.error)}`)
}
