/**
 * context-compressor as an AI SDK middleware (ai@5, 6 or 7): every call of
 * the wrapped model is sent the compacted prompt; `generateText` and
 * `streamText` are used as usual with the full history.
 *
 * Run: `npx tsx examples/ai-sdk-middleware.ts`. It uses the AI SDK's mock
 * model of the installed version (`mock-model.ts`), which answers every call
 * with a short reply; put any provider's model (`openai("gpt-4.1")`, …) in
 * its place.
 */
import type { LanguageModelV2 } from "@ai-sdk/provider"
import { generateText, type ModelMessage, streamText, wrapLanguageModel } from "ai"
import { compactionMiddleware } from "context-compressor/ai-sdk"
import type { Compactor } from "context-compressor/promise"
import { createCompactor } from "context-compressor/promise"

// ---- what a user writes ----------------------------------------------------------
export async function answer(
  compactor: Compactor,
  model: LanguageModelV2,
  history: Array<ModelMessage>,
  contextWindow = 128_000
) {
  const compacting = wrapLanguageModel({
    model,
    middleware: compactionMiddleware({ compactor, contextWindow, sessionId: "run-42" })
  })
  const { text } = await generateText({ model: compacting, messages: history })
  const streamed = streamText({
    model: compacting,
    messages: [...history, { role: "assistant", content: text }, { role: "user", content: "Go on." }]
  })
  return { text, streamed: await streamed.text }
}
// ---------------------------------------------------------------------------------

if (import.meta.url === `file://${process.argv[1]}`) {
  const { mockModel } = await import("./mock-model.js")
  let calls = 0
  const model = await mockModel(() => ({ text: calls++ === 0 ? "Done." : "Going on." }))
  const compactor = await createCompactor()
  try {
    console.log(await answer(compactor, model, [{ role: "user", content: "List the files of this project." }]))
  } finally {
    await compactor.close()
  }
}
