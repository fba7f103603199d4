// The chat-completions summariser against a local server: a fake OpenAI-compatible endpoint on
// 127.0.0.1 answers every request with a summary naming the test files the request mentions, and
// the engine (`Production.layerEngine` over `Production.layerMemory()`, the summariser
// `SummarizerChatCompletions.layer` over `Production.nodeHttpClient`, the Node platform of the
// application's Effect) compacts a session of 40 failing test runs at an 8k window. The server is
// asked with the pinned model and the session's messages; the block carries the summary, with no fallback to a trim. The same
// answer on Effect 3 and Effect 4.
import { createServer } from "node:http"
import { failingRuns } from "../failing-runs.mjs"

export const run = async (load) => {
  const { Effect, Layer } = await import("effect")
  const { Compactor, Transcript } = await load("")
  const { Production, SummarizerChatCompletions } = await load("layers")
  const { builtInPolicies } = await load("rules")
  const asked = []
  const server = createServer((request, response) => {
    let body = ""
    request.on("data", (chunk) => (body += chunk))
    request.on("end", () => {
      const parsed = JSON.parse(body)
      asked.push({ path: request.url, model: parsed.model, messages: Array.isArray(parsed.messages) })
      const files = [...new Set(body.match(/tests\/test_parser_\d+\.py/g) ?? [])]
      const summary = [
        "## Primary request",
        "Find why the parser tests fail (SUMMARY-FROM-SERVER).",
        "## Key decisions",
        "Run each parser test file on its own before changing anything.",
        "## Files and artifacts",
        files.join(", "),
        "## Errors and fixes",
        "Every run failed with an AssertionError in its test case; nothing is fixed yet.",
        "## User messages",
        "Find why the parser tests fail.",
        "## Open tasks",
        "Find the assertion the failing cases share and fix the parser.",
        "## Current work",
        "Running the parser test files one by one.",
        "## Next step",
        "Read the parser module, fix the first failure, run the tests again."
      ].join("\n")
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({
        id: "chatcmpl-app",
        object: "chat.completion",
        model: parsed.model,
        choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: summary } }],
        usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 }
      }))
    })
  })
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  try {
    const baseUrl = `http://127.0.0.1:${server.address().port}/v1`
    const transcript = failingRuns(Transcript)
    const engine = Production.layerEngine({
      engine: { policies: builtInPolicies },
      services: Production.layerMemory(),
      summarizer: SummarizerChatCompletions.layer({ baseUrl, model: "qwen3:8b" }).pipe(
        Layer.provide(Production.nodeHttpClient)
      )
    })
    const program = Effect.flatMap(Compactor.Compactor, (compactor) =>
      compactor.checkpoint({ sessionId: "app-server", transcript, model: "gpt-4o", contextWindow: 8_000 }))
    const { compacted, view } = await Effect.runPromise(program.pipe(Effect.provide(engine)))
    const block = view.find((message) => message._tag === "Compacted")
    return {
      compacted: block !== undefined,
      serverAsked: asked.length > 0 && asked.every((call) => call.path === "/v1/chat/completions"),
      modelPinned: asked.every((call) => call.model === "qwen3:8b"),
      messagesSent: asked.every((call) => call.messages),
      summaryInBlock: (block?.content ?? "").includes("SUMMARY-FROM-SERVER"),
      fallback: compacted._tag === "Some" ? compacted.value.fallback : "no report"
    }
  } finally {
    server.close()
  }
}

export const expected = {
  compacted: true,
  serverAsked: true,
  modelPinned: true,
  messagesSent: true,
  summaryInBlock: true,
  fallback: "none"
}
