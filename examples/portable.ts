/**
 * One program for both Effects (docs/integration.md, "Effect 4"): written for Effect 3, it runs on
 * Effect 4 with its imports of the package changed to `context-compressor/effect4` and
 * `context-compressor/effect4/…`, and nothing else. It replays an OpenAI chat history request by
 * request (the messages before each assistant turn), compacting each request for a 16k window, and
 * prints one JSON line per request: the messages it would send.
 *
 *   npx tsx examples/portable.ts [history.json]   (default: examples/session/agent-session.json)
 */
import { Compactor } from "context-compressor"
import { OpenAiChat } from "context-compressor/adapters"
import { Production, TokenizerApprox } from "context-compressor/layers"
import { builtInPolicies } from "context-compressor/rules"
import { Effect, Layer } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath, pathToFileURL } from "node:url"

/** The engine over the production services in memory, with the chars/4 tokenizer swapped in for the BPE one. */
export const CompactorLive = Compactor.layer({ policies: builtInPolicies }).pipe(
  Layer.provide(Layer.merge(Production.layerMemory(), TokenizerApprox.layer))
)

/** The messages to send for a chat-completions history: the history itself until it nears the window. */
export const outbound = (sessionId: string, messages: ReadonlyArray<unknown>) =>
  Effect.gen(function*() {
    const decoded = yield* OpenAiChat.adapter.decode(messages)
    const compactor = yield* Compactor.Compactor
    const { view } = yield* compactor.checkpoint({
      sessionId,
      transcript: decoded.transcript,
      model: "gpt-4.1",
      contextWindow: 16_000
    })
    return decoded.encode(view)
  })

/** A session of requests: the history up to each of its assistant turns, compacted by one engine. */
export const replay = (sessionId: string, history: ReadonlyArray<{ readonly role?: unknown }>) =>
  Effect.forEach(
    history.flatMap((message, k) => (message.role === "assistant" && k > 0 ? [k] : [])),
    (length) => outbound(sessionId, history.slice(0, length))
  ).pipe(Effect.provide(CompactorLive))

// ---- Run as a program: the requests on stdout, a line of figures on stderr, one line of error on failure.

const main = async (file: string): Promise<void> => {
  const history = JSON.parse(readFileSync(file, "utf8"))
  if (!Array.isArray(history)) throw new Error(`${file} is not a JSON array of chat messages`)
  const requests = await Effect.runPromise(
    replay("portable", history).pipe(
      Effect.catchTag(
        "AdapterError",
        (error) => Effect.fail(new Error(`${file}, message ${error.index}: ${error.reason}`))
      )
    )
  )
  process.stdout.write(requests.map((request) => `${JSON.stringify(request)}\n`).join(""))
  const sent = requests.map((request) => (request as ReadonlyArray<unknown>).length)
  process.stderr.write(
    `portable: ${requests.length} requests from ${history.length} messages; the last sends ${sent.at(-1) ?? 0}\n`
  )
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = process.argv[2] ?? fileURLToPath(new URL("./session/agent-session.json", import.meta.url))
  await main(file).catch((error: unknown) => {
    process.stderr.write(`portable: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  })
}
