/**
 * A compacting @effect/ai `LanguageModel`: a layer over the one an Effect
 * runtime already provides, so that every `generateText`, `streamText` and
 * `generateObject` sends the compacted view of its prompt (SPEC R3.1). The
 * session is the fiber's (`withSession`) or the layer's option. Providing
 * this layer over a provider's is all a runtime needs to compact.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as CompatAi from "#compat-ai"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as CompactDocument from "../../face/adapters/CompactDocument.js"
import * as Compactor from "../../face/engine/Compactor.js"
import * as EffectAiPrompt from "./EffectAiPrompt.js"

/**
 * Options of the layer.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The model's context window, in tokens. */
  readonly contextWindow: number
  /** The session's model name: the summariser's unless the settings pin another. */
  readonly model: string
  /**
   * The session of calls made outside `withSession` (without one, such calls fail with `MalformedInput`;
   * on Effect 4 an `AiError` of reason `InvalidUserInputError`).
   */
  readonly sessionId?: string | undefined
}

/**
 * The session of the calls a fiber makes; `withSession` sets it for an effect.
 *
 * @since 0.1.0
 * @category sessions
 */
export const currentSession: Compat.FiberLocal<Option.Option<string>> = Compat.makeFiberLocalUnsafe(
  "context-compressor/CompactingLanguageModel/currentSession",
  () => Option.none<string>()
)

/**
 * Runs an effect with its model calls in the session `sessionId`.
 *
 * @since 0.1.0
 * @category sessions
 */
export const withSession: {
  (sessionId: string): <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(self: Effect.Effect<A, E, R>, sessionId: string): Effect.Effect<A, E, R>
} = dual(
  2,
  <A, E, R>(self: Effect.Effect<A, E, R>, sessionId: string) =>
    Compat.locally(self, currentSession, Option.some(sessionId))
)

const module = "context-compressor/CompactingLanguageModel"

/** A call's options, as far as the wrapper reads them: the rest is passed on whole. */
interface Call {
  readonly prompt: CompatAi.Prompt.RawInput
}

/**
 * Wraps a `LanguageModel`: each call's prompt goes through the engine's
 * checkpoint first. A prompt the adapter cannot read, a call with no session,
 * or a compaction that fails is a `MalformedInput` naming why (on Effect 4 an
 * `AiError` of reason `InvalidUserInputError`); the wrapped model is then not
 * called.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options
): Effect.Effect<CompatAi.LanguageModelService, never, CompatAi.LanguageModel | Compactor.Compactor> =>
  Effect.gen(function*() {
    const inner = yield* CompatAi.LanguageModel
    const compactor = yield* Compactor.Compactor

    const compacted = (
      raw: CompatAi.Prompt.RawInput,
      method: string
    ): Effect.Effect<CompatAi.Prompt.Prompt, CompatAi.AiError> =>
      Effect.gen(function*() {
        const fail = (description: string) => CompatAi.invalidUserInputError({ module, method, description })
        const session = Option.orElse(
          yield* Compat.getFiberLocal(currentSession),
          () => Compat.fromNullishOr(options.sessionId)
        )
        if (Option.isNone(session)) {
          return yield* fail("no session: provide the layer with a sessionId, or run the call in withSession")
        }
        const compaction = yield* CompactDocument.compactDocument({
          document: {
            _tag: "Source",
            document: CompatAi.Prompt.make(raw),
            format: "effect-ai",
            adapters: [EffectAiPrompt.adapter]
          },
          session: { sessionId: session.value, model: options.model, contextWindow: options.contextWindow },
          cause: CompactDocument.trigger
        }).pipe(
          Effect.provideService(Compactor.Compactor, compactor),
          Effect.mapError(({ problem }) =>
            fail(
              problem._tag === "AdapterError"
                ? `the prompt could not be read: ${problem.reason}`
                : `compaction failed (${problem.reason}): ${problem.message}`
            )
          )
        )
        // A Prompt is written back as a Prompt (`EffectAiPrompt.toPrompt`).
        return compaction.output as CompatAi.Prompt.Prompt
      })

    // The options are passed on whole, with the compacted prompt: their types are the caller's, which only
    // the service's overloaded methods name, so the three are typed as the service's.
    const methods = {
      generateText: (call: Call) =>
        Effect.flatMap(compacted(call.prompt, "generateText"), (prompt) => inner.generateText({ ...call, prompt })),
      generateObject: (call: Call & Parameters<CompatAi.LanguageModelService["generateObject"]>[0]) =>
        Effect.flatMap(compacted(call.prompt, "generateObject"), (prompt) => inner.generateObject({ ...call, prompt })),
      streamText: (call: Call) =>
        Stream.unwrap(
          Effect.map(compacted(call.prompt, "streamText"), (prompt) => inner.streamText({ ...call, prompt }))
        )
    }
    return CompatAi.wrapLanguageModel(inner, methods as unknown as CompatAi.LanguageModelMethods)
  })

/**
 * The compacting `LanguageModel`, over the `LanguageModel` and the `Compactor`
 * it is provided with: `CompactingLanguageModel.layer({ contextWindow, model }).pipe(Layer.provide(providerLayer))`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<CompatAi.LanguageModel, never, CompatAi.LanguageModel | Compactor.Compactor> =>
  Layer.effect(CompatAi.LanguageModel, make(options))
