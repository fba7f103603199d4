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

/**
 * The value of a result, as one step of {@link gen}: a failure ends the run with it.
 *
 * @since 0.1.0
 * @category sequencing
 */
export function* take<A, E>(result: Result<A, E>): Generator<Err<E>, A, unknown> {
  if (result._tag === "Err") {
    yield result
    throw new Error("a failed result was resumed")
  }
  return result.value
}

/**
 * Runs steps that {@link take} results, in order: the first failure taken, or what the steps return.
 *
 * @since 0.1.0
 * @category sequencing
 */
export const gen = <A, E>(steps: () => Generator<Err<E>, A, unknown>): Result<A, E> => {
  const iterator = steps()
  const next = iterator.next()
  return next.done === true ? ok(next.value) : next.value
}

/**
 * A result's value changed by `f`.
 *
 * @since 0.1.0
 * @category mapping
 */
export const map = <A, B, E>(result: Result<A, E>, f: (value: A) => B): Result<B, E> =>
  result._tag === "Ok" ? ok(f(result.value)) : result

/**
 * A result's failure changed by `f`.
 *
 * @since 0.1.0
 * @category mapping
 */
export const mapError = <A, E, F>(result: Result<A, E>, f: (error: E) => F): Result<A, F> =>
  result._tag === "Err" ? err(f(result.error)) : result

/**
 * A failure, as one step of {@link gen}: the run ends with it.
 *
 * @since 0.1.0
 * @category sequencing
 */
export function* fail<E>(error: E): Generator<Err<E>, never, unknown> {
  yield err(error)
  throw new Error("a failed result was resumed")
}
