/**
 * The `context_recall` tool as an @effect/ai `Toolkit` (SPEC R2.18): give it
 * to `LanguageModel.generateText({ prompt, toolkit })` with the handlers of
 * {@link layer} for the session, and the model can read back by handle what a
 * compacted block stands for. A handle that gives nothing back is answered
 * with the reason (`failureMode: "return"`), so the model can go on.
 *
 * @since 0.1.0
 */
import { Tool, Toolkit, toolParameters } from "#compat-ai"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Recall from "../../face/engine/Recall.js"
import { TranscriptArchive } from "../../face/services/TranscriptArchive.js"

/**
 * The tool: parameters `handle`, `offset?`, `length?`; success a page of
 * the recalled message; failure a `RecallError`, returned to the model.
 *
 * @since 0.1.0
 * @category tools
 */
export const RecallTool = Tool.make(Recall.toolName, {
  description: Recall.description,
  parameters: toolParameters(Recall.Arguments),
  success: Recall.Page,
  failure: Recall.RecallError,
  failureMode: "return"
})

/**
 * The toolkit holding {@link RecallTool}; merge it with the agent's own
 * (`Toolkit.merge`) to offer both.
 *
 * @since 0.1.0
 * @category tools
 */
export const RecallToolkit = Toolkit.make(RecallTool)

/**
 * The toolkit's handlers for one session: `Recall.recall` over the
 * `TranscriptArchive` of the context the layer is built in (the engine's).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (sessionId: string, options: Recall.Options = {}) =>
  RecallToolkit.toLayer(Effect.gen(function*() {
    const archive = yield* Effect.serviceOption(TranscriptArchive)
    return {
      context_recall: (
        params: { readonly handle: string; readonly offset?: number | undefined; readonly length?: number | undefined }
      ) =>
        Option.match(archive, {
          onNone: () => Recall.recall({ sessionId, ...params }, options),
          onSome: (service) =>
            Effect.provideService(Recall.recall({ sessionId, ...params }, options), TranscriptArchive, service)
        })
    }
  }))
