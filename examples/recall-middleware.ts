/**
 * Recall with the AI SDK: the middleware sends the compacted prompt, and the
 * `context_recall` tool lets the model read back, by handle, what the
 * compacted block stands for. Both name the same session.
 *
 * Run: `npx tsx examples/recall-middleware.ts`. It uses the AI SDK's mock
 * model of the installed version (ai@5, 6 or 7: `mock-model.ts`), which
 * recalls the first handle it is shown and then answers; put any provider's
 * model in its place.
 */
import type { LanguageModelV2 } from "@ai-sdk/provider"
import { generateText, type ModelMessage, stepCountIs, wrapLanguageModel } from "ai"
import { compactionMiddleware, recallTool } from "context-compressor/ai-sdk"
import type { Compactor } from "context-compressor/promise"
import { createCompactor } from "context-compressor/promise"

// ---- what a user writes ----------------------------------------------------------
export async function answerWithRecall(
  compactor: Compactor,
  model: LanguageModelV2,
  history: Array<ModelMessage>,
  contextWindow = 128_000
) {
  const sessionId = "run-42"
  const { steps, text } = await generateText({
    model: wrapLanguageModel({ model, middleware: compactionMiddleware({ compactor, contextWindow, sessionId }) }),
    messages: history,
    tools: { context_recall: recallTool(compactor, { sessionId }) },
    stopWhen: stepCountIs(4)
  })
  return { text, recalled: steps.flatMap((step) => step.toolResults.map((result) => result.output)) }
}
// ---------------------------------------------------------------------------------

/** A mock model that calls context_recall on the first handle its prompt lists, then answers. */
export const recallingModel = async (): Promise<LanguageModelV2> => {
  const { mockModel } = await import("./mock-model.js")
  return mockModel((prompt) => {
    const recalled = prompt.some((message) =>
      message.role === "tool" && message.content.some((part) => part.toolName === "context_recall")
    )
    const handle = /ctx_[A-Za-z0-9]{10,}/.exec(JSON.stringify(prompt))?.[0]
    return recalled || handle === undefined
      ? { text: "Done." }
      : { toolCall: { toolCallId: "recall-1", toolName: "context_recall", input: { handle, length: 2_000 } } }
  })
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const compactor = await createCompactor()
  const history: Array<ModelMessage> = []
  for (let i = 0; i < 12; i++) {
    history.push({ role: "user", content: `Read log ${i}.` })
    history.push({
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: `c${i}`, toolName: "bash", input: { command: `cat log${i}.txt` } }]
    })
    history.push({
      role: "tool",
      content: [{
        type: "tool-result",
        toolCallId: `c${i}`,
        toolName: "bash",
        output: { type: "text", value: `log ${i}: ` + "a line of the log\n".repeat(400) }
      }]
    })
  }
  try {
    console.log(await answerWithRecall(compactor, await recallingModel(), history, 8_000))
  } finally {
    await compactor.close()
  }
}
