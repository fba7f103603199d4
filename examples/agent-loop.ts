/**
 * context-compressor inside an Effect agent loop on @effect/ai: the history is
 * a `Prompt`; before each model call, the Compactor turns it into the view to
 * send (compacted when it nears the window), and the full history is kept.
 *
 * Run: `npx tsx examples/agent-loop.ts`. It uses a stand-in model that answers
 * every call with a long reply, so that the small window below compacts; put
 * any @effect/ai provider layer in its place (for a local OpenAI-compatible
 * server: `ChatCompletionsLanguageModel.layer({ baseUrl, model })` from
 * `context-compressor/effect-ai`).
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import { Compactor } from "context-compressor"
import { EffectAiPrompt } from "context-compressor/effect-ai"
import * as Layers from "context-compressor/layers"
import { builtInPolicies } from "context-compressor/rules"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

// ---- the loop: what a user writes ------------------------------------------------
const turn = (history: Prompt.Prompt, userText: string) =>
  Effect.gen(function*() {
    const compactor = yield* Compactor.Compactor
    const prompt = Prompt.merge(history, Prompt.make([{ role: "user", content: userText }]))
    const decoded = yield* EffectAiPrompt.fromPrompt(prompt)
    const checkpoint = yield* compactor.checkpoint({
      sessionId: "agent-loop",
      transcript: decoded.transcript,
      model: "stand-in-model",
      contextWindow: 8_000
    })
    const response = yield* LanguageModel.generateText({ prompt: EffectAiPrompt.toPrompt(decoded, checkpoint.view) })
    return { history: Prompt.merge(prompt, Prompt.fromResponseParts(response.content)), checkpoint }
  })
// ---------------------------------------------------------------------------------

/** A stand-in model: a long reply to every call, so the history grows fast. */
const standInModel = Layer.effect(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    generateText: (options) =>
      Effect.succeed([
        {
          type: "text",
          text: `Done with that (the view had ${options.prompt.content.length} messages). ` +
            "Details of the change. ".repeat(150)
        },
        { type: "finish", reason: "stop", usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } }
      ]),
    streamText: () => Effect.dieMessage("not used")
  })
)

const services = Layers.Testing.layer({ tokenizer: Layers.TokenizerBpe.layer })

/**
 * Runs `turns` turns and returns, for each, the size of the history and of
 * the view sent, and whether that turn compacted.
 */
export const program = (turns: number) =>
  Effect.gen(function*() {
    let history = Prompt.make([{ role: "system", content: "You are a coding agent." }])
    const log: Array<
      { readonly turn: number; readonly history: number; readonly view: number; readonly compacted: boolean }
    > = []
    for (let i = 1; i <= turns; i++) {
      const result = yield* turn(history, `Step ${i}: refactor the next module and tell me what changed.`)
      history = result.history
      log.push({
        turn: i,
        history: history.content.length,
        view: result.checkpoint.view.length,
        compacted: Option.isSome(result.checkpoint.compacted)
      })
    }
    return log
  }).pipe(
    Effect.provide(
      Layer.merge(Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provide(services)), standInModel)
    )
  )

if (import.meta.url === `file://${process.argv[1]}`) {
  Effect.runPromise(program(12)).then((log) => {
    for (const entry of log) {
      console.log(
        `turn ${entry.turn}: history ${entry.history} messages, sent ${entry.view}${
          entry.compacted ? " (compacted)" : ""
        }`
      )
    }
  })
}
