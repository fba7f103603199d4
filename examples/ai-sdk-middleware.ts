/**
 * context-compressor as an AI SDK (v5) middleware: every call of the wrapped
 * model is sent the compacted prompt; `generateText` and `streamText` are used
 * as usual with the full history.
 *
 * Run: `npx tsx examples/ai-sdk-middleware.ts`. It uses the AI SDK's mock
 * model, which answers every call with a short reply; put any provider's
 * model (`openai("gpt-4.1")`, …) in its place.
 */
import type { LanguageModelV2 } from "@ai-sdk/provider"
import { generateText, type ModelMessage, streamText, wrapLanguageModel } from "ai"
import { compactionMiddleware } from "context-compressor/ai-sdk"
import type { Compactor } from "context-compressor/promise"
import { createCompactor } from "context-compressor/promise"

// ---- what a user writes ----------------------------------------------------------
export async function answer(compactor: Compactor, model: LanguageModelV2, history: Array<ModelMessage>, contextWindow = 128_000) {
  const compacting = wrapLanguageModel({
    model,
    middleware: compactionMiddleware({ compactor, contextWindow, sessionId: "run-42" })
  })
  const { text } = await generateText({ model: compacting, messages: history })
  const streamed = streamText({ model: compacting, messages: [...history, { role: "assistant", content: text }, { role: "user", content: "Go on." }] })
  return { text, streamed: await streamed.text }
}
// ---------------------------------------------------------------------------------

if (import.meta.url === `file://${process.argv[1]}`) {
  const { MockLanguageModelV2, simulateReadableStream } = await import("ai/test")
  const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }
  const model = new MockLanguageModelV2({
    doGenerate: async () => ({ content: [{ type: "text", text: "Done." }], finishReason: "stop", usage, warnings: [] }),
    doStream: async () => ({ stream: simulateReadableStream({ chunks: [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Going on." }, { type: "text-end", id: "t" }, { type: "finish", finishReason: "stop", usage }] }) })
  })
  const compactor = await createCompactor()
  try {
    console.log(await answer(compactor, model, [{ role: "user", content: "List the files of this project." }]))
  } finally {
    await compactor.close()
  }
}
