/**
 * The face of the shared core's codecs (`core/adapters/`), on Effect 3
 * and Effect 4 alike: a core codec run with this face's transcript kit, its
 * core `Result` as the compat `Result` (an `Either` on Effect 3, a `Result`
 * on Effect 4), its failure as this face's `AdapterError`.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import type * as AdapterData from "../../../core/adapters/AdapterData.js"
import type * as CoreResult from "../../../core/Result.js"
import * as Steps from "../../../core/Steps.js"
import * as Transcript from "../../models/Transcript.js"
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
 * A core result as the compat `Result`, its failure as an `AdapterError`.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toResult = <A>(
  result: CoreResult.Result<A, AdapterData.Failure>
): Compat.Result<A, Adapter.AdapterError> =>
  result._tag === "Ok" ? Compat.Result.succeed(result.value) : Compat.Result.fail(fromFailure(result.error))

/**
 * A compat `Result` of this face as a core result (an `AdapterError` has a failure's fields).
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromResult = <A>(
  result: Compat.Result<A, Adapter.AdapterError>
): CoreResult.Result<A, Adapter.AdapterError> =>
  Compat.matchResult(result, {
    onSuccess: (value): CoreResult.Result<A, Adapter.AdapterError> => ({ _tag: "Ok", value }),
    onFailure: (error): CoreResult.Result<A, Adapter.AdapterError> => ({ _tag: "Err", error })
  })

/**
 * A core codec's decoding with this face's kit, as steps answering the compat `Result`.
 *
 * @since 0.1.0
 * @category decoding
 */
export function* decodeSteps(
  codec: AdapterData.Codec,
  document: unknown
): Steps.Steps<Compat.Result<Adapter.Decoded, Adapter.AdapterError>> {
  return toResult(yield* codec.decodeSteps(document, Transcript.kit)) as Compat.Result<
    Adapter.Decoded,
    Adapter.AdapterError
  >
}

/**
 * The adapter of a core codec on this face: its detection, and its decodings
 * as steps, at once and as an effect. An adapter's `continuing` gives the one
 * of its format's continuing codec.
 *
 * @since 0.1.0
 * @category constructors
 */
export const adapterOf = (codec: AdapterData.Codec): Adapter.Adapter => {
  const steps = (document: unknown) => decodeSteps(codec, document)
  const result = (document: unknown) => Steps.runSync(steps(document))
  return {
    format: codec.format,
    detect: codec.detect,
    decode: (document) => Compat.fromResult(result(document)),
    decodeResult: result,
    decodeSteps: steps
  }
}
