/**
 * A compacting @effect/ai `LanguageModel`: a layer over the one an Effect
 * runtime already provides, so that every `generateText`, `streamText` and
 * `generateObject` sends the compacted view of its prompt (SPEC R3.1). The
 * session is the fiber's (`withSession`) or the layer's option. Providing
 * this layer over a provider's is all a runtime needs to compact.
 *
 * @since 0.1.0
 */
import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import { dual } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as CompactDocument from "../adapters/CompactDocument.js"
import * as Compactor from "../Compactor.js"
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
  /** The session of calls made outside `withSession` (without one, such calls fail with `MalformedInput`). */
  readonly sessionId?: string | undefined
}

/**
 * The session of the calls a fiber makes; `withSession` sets it for an effect.
 *
 * @since 0.1.0
 * @category sessions
 */
export const currentSession: FiberRef.FiberRef<Option.Option<string>> = FiberRef.unsafeMake<Option.Option<string>>(
  Option.none()
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
    Effect.locally(self, currentSession, Option.some(sessionId))
)

const module = "context-compressor/CompactingLanguageModel"

/**
 * Wraps a `LanguageModel`: each call's prompt goes through the engine's
 * checkpoint first. A prompt the adapter cannot read, a call with no session,
 * or a compaction that fails is a `MalformedInput` naming why; the wrapped
 * model is then not called.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options
): Effect.Effect<LanguageModel.Service, never, LanguageModel.LanguageModel | Compactor.Compactor> =>
  Effect.gen(function*() {
    const inner = yield* LanguageModel.LanguageModel
    const compactor = yield* Compactor.Compactor

    const compacted = (raw: Prompt.RawInput, method: string): Effect.Effect<Prompt.Prompt, AiError.MalformedInput> =>
      Effect.gen(function*() {
        const fail = (description: string) => new AiError.MalformedInput({ module, method, description })
        const session = Option.orElse(yield* FiberRef.get(currentSession), () => Option.fromNullable(options.sessionId))
        if (Option.isNone(session)) {
          return yield* fail("no session: provide the layer with a sessionId, or run the call in withSession")
        }
        const compaction = yield* CompactDocument.compactDocument({
          document: {
            _tag: "Source",
            document: Prompt.make(raw),
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
        return compaction.output as Prompt.Prompt
      })

    // The options are passed on whole, with the compacted prompt: their types are the caller's.
    return LanguageModel.LanguageModel.of({
      generateText: ((call: LanguageModel.GenerateTextOptions<any>) =>
        Effect.flatMap(compacted(call.prompt, "generateText"), (prompt) =>
          inner.generateText({ ...call, prompt }))) as LanguageModel.Service["generateText"],
      generateObject: ((call: LanguageModel.GenerateObjectOptions<any, any, any, any>) =>
        Effect.flatMap(compacted(call.prompt, "generateObject"), (prompt) =>
          inner.generateObject({ ...call, prompt }))) as LanguageModel.Service["generateObject"],
      streamText: ((call: LanguageModel.GenerateTextOptions<any>) =>
        Stream.unwrap(Effect.map(compacted(call.prompt, "streamText"), (prompt) =>
          inner.streamText({ ...call, prompt })))) as LanguageModel.Service["streamText"]
    })
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
): Layer.Layer<LanguageModel.LanguageModel, never, LanguageModel.LanguageModel | Compactor.Compactor> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))
