// Recall and Overflow through the face's root entry: a session of 40 failing test runs is compacted
// by `Compactor.layer` over `Production.layerMemory()` (its archive in memory) at an 8k window;
// a handle listed in the compacted block reads its message back whole through `Recall.recall`,
// another session asking for it is refused, and `Recall.answer` pages the text for a tool result.
// `Overflow.classify` reads a provider's context-length error and passes a rate limit by. The same
// answer on Effect 3 and Effect 4.
import { failingRuns } from "../failing-runs.mjs"

export const run = async (load) => {
  const { Effect, Layer, Option } = await import("effect")
  const { Compactor, Overflow, Recall, Transcript } = await load("")
  const { Production } = await load("layers")
  const { builtInPolicies } = await load("rules")
  const transcript = failingRuns(Transcript)
  const engine = Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provideMerge(Production.layerMemory()))
  const program = Effect.gen(function*() {
    const compactor = yield* Compactor.Compactor
    const sessionId = "app-recall"
    const { view } = yield* compactor.checkpoint({ sessionId, transcript, model: "gpt-4o", contextWindow: 8_000 })
    const block = view.find((message) => message._tag === "Compacted")
    const handles = [...(block?.content ?? "").matchAll(/ctx_[A-Za-z0-9]{12}/g)].map((match) => match[0])
    const page = yield* Recall.recall({ sessionId, handle: handles[0] })
    const original = transcript.find((message) => message.id === page.messageId)
    const foreign = yield* Effect.flip(Recall.recall({ sessionId: "another-session", handle: handles[0] }))
    const answered = yield* Recall.answer(sessionId, JSON.stringify({ handle: handles[0], length: 100 }))
    return {
      compacted: block !== undefined,
      handlesListed: handles.length > 0 && handles.every((handle) => Recall.handlePattern.test(handle)),
      recalledWhole: original !== undefined && page.total === original.content.length &&
        page.text === original.content.slice(0, page.text.length),
      foreign: foreign.reason,
      answerPaged: answered.startsWith(`[${handles[0]}, message ${page.messageId}: characters 0 to 100 of `)
    }
  })
  const recall = await Effect.runPromise(program.pipe(Effect.provide(engine)))
  const overflow = Overflow.classify({
    error: {
      message: "This model's maximum context length is 16000 tokens. However, your messages resulted in 40123 tokens.",
      code: "context_length_exceeded"
    }
  })
  return {
    ...recall,
    overflowSeen: Option.isSome(overflow),
    overflowProvider: Option.getOrUndefined(Option.map(overflow, (found) => found.provider)),
    rateLimitIsNot: Overflow.isContextOverflow("Rate limit reached for requests")
  }
}

export const expected = {
  compacted: true,
  handlesListed: true,
  recalledWhole: true,
  foreign: "other-session",
  answerPaged: true,
  overflowSeen: true,
  overflowProvider: "openai",
  rateLimitIsNot: false
}
