/**
 * The compaction engine in an Effect program: a session of 40 turns checked at
 * the top of every turn, as an agent loop would, with the offline summariser
 * and in-memory stores. Run it with `npx tsx examples/compaction.ts`.
 */
import { Compactor, Transcript } from "context-compressor"
import * as Layers from "context-compressor/layers"
import { builtInPolicies } from "context-compressor/rules"
import { Effect, Layer, Option, Queue } from "effect"

/** An agent session of our own making: a task, tool calls and their results, replies. */
export const session = (turns: number): Transcript.Transcript => {
  const messages: Array<Transcript.Message> = [
    new Transcript.SystemMessage({ id: "m0", content: "You are a coding agent." })
  ]
  const id = () => `m${messages.length}`
  messages.push(
    new Transcript.UserMessage({
      id: id(),
      content: "Make the parser cache survive restarts; keep the public API unchanged."
    })
  )
  for (let turn = 0; turn < turns; turn++) {
    const call = new Transcript.ToolCall({
      id: `call_${turn}`,
      name: "bash",
      arguments: JSON.stringify({ command: `npm test -- parser${turn}` })
    })
    messages.push(
      new Transcript.AssistantMessage({
        id: id(),
        content: `Running the parser tests, round ${turn}.`,
        toolCalls: [call]
      })
    )
    const output = Array.from(
      { length: 60 },
      (_, line) => `parser${turn}.test.ts › case ${line} ${line % 7 === 0 ? "FAIL" : "ok"}`
    ).join("\n")
    messages.push(
      new Transcript.ToolResult({
        id: id(),
        toolCallId: call.id,
        name: "bash",
        content: `<returncode>${turn % 3 === 0 ? 1 : 0}</returncode>\n<output>\n${output}\n</output>`
      })
    )
    messages.push(
      new Transcript.AssistantMessage({
        id: id(),
        content: `Round ${turn}: fixed the cache key for case ${turn}.`,
        toolCalls: []
      })
    )
    if (turn % 10 === 9) {
      messages.push(new Transcript.UserMessage({ id: id(), content: `Good. Also log cache misses (round ${turn}).` }))
    }
  }
  return messages
}

const services = Layer.mergeAll(
  Layers.SummarizerOffline.layer,
  Layers.SummaryCacheMemory.layer,
  Layers.CompactionStoreMemory.layer,
  Layers.SettingsFixed.layer(),
  Layers.TokenizerApprox.layer,
  Layers.AttentionUnattended.layer
)

/** Checks the session at every turn, printing each compaction as the event arrives. */
export const program = Effect.gen(function*() {
  const compactor = yield* Compactor.Compactor
  const events = yield* compactor.subscribe
  const transcript = session(40)
  for (let end = 3; end <= transcript.length; end++) {
    const { view } = yield* compactor.checkpoint({
      sessionId: "demo",
      transcript: transcript.slice(0, end),
      model: "demo-model",
      contextWindow: 16_000
    })
    for (const event of yield* Queue.takeAll(events)) {
      console.log(
        `compaction ${event.compactions}: ${event.tokensBefore} → ${event.tokensAfter} tokens, boundary ${event.boundary.id}, gate ${
          event.gate.join(", ")
        }, view of ${view.length} messages`
      )
    }
  }
  const last = yield* compactor.checkpoint({
    sessionId: "demo",
    transcript,
    model: "demo-model",
    contextWindow: 16_000
  })
  const block = last.view.find((message) => message._tag === "Compacted")
  console.log(
    Option.fromNullable(block).pipe(
      Option.map((b) => b.content.slice(0, 1_200)),
      Option.getOrElse(() => "no compaction")
    )
  )
}).pipe(Effect.scoped, Effect.provide(Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provide(services))))

if (import.meta.url === `file://${process.argv[1]}`) Effect.runPromise(program)
