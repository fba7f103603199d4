/**
 * The Effect 4 face of the shared core's codecs (`src/internal/adapters/`): a
 * core codec run with this face's transcript kit, its core `Result` as
 * Effect 4's `Result`, its failure as this face's `AdapterError`.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import type * as AdapterData from "../../../src/internal/adapters/AdapterData.js"
import type * as CoreResult from "../../../src/internal/Result.js"
import type * as Steps from "../../../src/internal/Steps.js"
import * as Transcript from "../../src/Transcript.js"
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
 * A core result as Effect 4's `Result`, its failure as an `AdapterError`.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toResult = <A>(
  result: CoreResult.Result<A, AdapterData.Failure>
): Result.Result<A, Adapter.AdapterError> =>
  result._tag === "Ok" ? Result.succeed(result.value) : Result.fail(fromFailure(result.error))

/**
 * Effect 4's `Result` of this face as a core result (an `AdapterError` has a failure's fields).
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromResult = <A>(
  result: Result.Result<A, Adapter.AdapterError>
): CoreResult.Result<A, Adapter.AdapterError> =>
  Result.isSuccess(result) ? { _tag: "Ok", value: result.success } : { _tag: "Err", error: result.failure }

/**
 * A core codec's decoding with this face's kit, as steps answering a `Result`.
 *
 * @since 0.1.0
 * @category decoding
 */
export function* decodeSteps(
  codec: AdapterData.Codec,
  document: unknown
): Steps.Steps<Result.Result<Adapter.Decoded, Adapter.AdapterError>> {
  return toResult(yield* codec.decodeSteps(document, Transcript.kit)) as Result.Result<
    Adapter.Decoded,
    Adapter.AdapterError
  >
}
