/**
 * context-compressor in the AI SDK's `prepareStep` (ai@5, 6 or 7): in a multi-step
 * `generateText` with tools, every step is sent the compacted messages, so a
 * long tool-using run stays inside the window.
 *
 * Run: `npx tsx examples/ai-sdk-prepare-step.ts`. It uses the AI SDK's mock
 * model of the installed version (`mock-model.ts`: a tool call, then an
 * answer); put any provider's model in its place.
 */
import type { LanguageModelV2 } from "@ai-sdk/provider"
import { generateText, type ModelMessage, stepCountIs, tool } from "ai"
import { compactionPrepareStep } from "context-compressor/ai-sdk"
import type { Compactor } from "context-compressor/promise"
import { createCompactor } from "context-compressor/promise"
import { z } from "zod"

// ---- what a user writes ----------------------------------------------------------
export async function run(
  compactor: Compactor,
  model: LanguageModelV2,
  history: Array<ModelMessage>,
  contextWindow = 128_000
) {
  const result = await generateText({
    model,
    messages: history,
    tools: {
      bash: tool({
        description: "Run a shell command",
        inputSchema: z.object({ command: z.string() }),
        execute: async ({ command }) => `<returncode>0</returncode>\n<output>ran ${command}</output>`
      })
    },
    stopWhen: stepCountIs(5),
    prepareStep: compactionPrepareStep({ compactor, contextWindow, sessionId: "run-42" })
  })
  return result.text
}
// ---------------------------------------------------------------------------------

if (import.meta.url === `file://${process.argv[1]}`) {
  const { mockModel } = await import("./mock-model.js")
  let calls = 0
  const model = await mockModel(() =>
    calls++ === 0
      ? { toolCall: { toolCallId: "c1", toolName: "bash", input: { command: "ls" } } }
      : { text: "There are two folders." }
  )
  const compactor = await createCompactor()
  try {
    console.log(await run(compactor, model, [{ role: "user", content: "List the files of this project." }]))
  } finally {
    await compactor.close()
  }
}
