/**
 * The Effect 3 face of the shared core's codecs (`internal/adapters/`): a
 * core codec run with this face's transcript kit, its core `Result` as an
 * `Either`, its failure as this face's `AdapterError`.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import type * as AdapterData from "../../internal/adapters/AdapterData.js"
import type * as CoreResult from "../../internal/Result.js"
import * as Steps from "../../internal/Steps.js"
import * as Transcript from "../../Transcript.js"
import * as Adapter from "../Adapter.js"

/**
 * The `AdapterError` of a core failure (the failure itself when it is one already).
 *
 * @since 0.1.0
 * @category errors
 */
export const fromFailure = (failure: AdapterData.Failure): Adapter.AdapterError =>
  failure instanceof Adapter.AdapterError ? failure : new Adapter.AdapterError({
    format: failure.format,
    reason: failure.reason,
    ...(failure.index === undefined ? {} : { index: failure.index })
  })

/**
 * A core result as an `Either`, its failure as an `AdapterError`.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toEither = <A>(
  result: CoreResult.Result<A, AdapterData.Failure>
): Either.Either<A, Adapter.AdapterError> =>
  result._tag === "Ok" ? Either.right(result.value) : Either.left(fromFailure(result.error))

/**
 * An `Either` of this face as a core result (an `AdapterError` has a failure's fields).
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromEither = <A>(
  either: Either.Either<A, Adapter.AdapterError>
): CoreResult.Result<A, Adapter.AdapterError> =>
  Either.isRight(either) ? { _tag: "Ok", value: either.right } : { _tag: "Err", error: either.left }

/**
 * A core codec's decoding with this face's kit, as steps answering an `Either`.
 *
 * @since 0.1.0
 * @category decoding
 */
export function* decodeSteps(
  codec: AdapterData.Codec,
  document: unknown
): Steps.Steps<Either.Either<Adapter.Decoded, Adapter.AdapterError>> {
  return toEither(yield* codec.decodeSteps(document, Transcript.kit)) as Either.Either<
    Adapter.Decoded,
    Adapter.AdapterError
  >
}
