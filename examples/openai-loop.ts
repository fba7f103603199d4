/**
 * context-compressor in a plain OpenAI SDK loop, no Effect: before each call
 * the history is compacted (when it nears the window) and the view is sent;
 * the history itself keeps every message.
 *
 * Run: `OPENAI_API_KEY=… npx tsx examples/openai-loop.ts` (or point
 * `OPENAI_BASE_URL` at any OpenAI-compatible server).
 */
import { createCompactor } from "context-compressor/promise"
import OpenAI from "openai"

// ---- the loop: what a user writes ------------------------------------------------
// Without a directory the compaction state is kept in memory; give one (".context-compressor") to keep it across runs.
export async function agentLoop(
  client: OpenAI,
  tasks: ReadonlyArray<string>,
  model = "gpt-4.1-mini",
  contextWindow = 128_000,
  directory?: string
) {
  const compactor = await createCompactor({ directory })
  const history: Array<OpenAI.ChatCompletionMessageParam> = [{ role: "system", content: "You are a coding agent." }]
  try {
    for (const task of tasks) {
      history.push({ role: "user", content: task })
      const { messages } = await compactor.compact(history, { sessionId: "run-42", contextWindow, model })
      const completion = await client.chat.completions.create({ model, messages })
      history.push({ role: "assistant", content: completion.choices[0]?.message.content ?? "" })
    }
  } finally {
    await compactor.close()
  }
  return history
}
// ---------------------------------------------------------------------------------

if (import.meta.url === `file://${process.argv[1]}`) {
  agentLoop(new OpenAI(), ["List the files of this project.", "Which one is the entry point?"]).then((history) => {
    for (const message of history) console.log(`${message.role}: ${String(message.content).slice(0, 200)}`)
  })
}
