// The engine of the face, from its test layers (issue 32's must-hold): `Compactor.layer` over
// `Testing.layer()` (the offline summariser, fixed settings, the memory store and cache, unattended
// attention) compacts a 300-message history at a 16k window. The transcript is never modified, the
// view is shorter than it and under the trigger, passes the view check, starts with the block, and
// the first user message stays in it. The same answer on Effect 3 and Effect 4.
export const run = async (load) => {
  const { Effect, Layer, Option } = await import("effect")
  const { Compactor, Transcript, ViewCheck } = await load("")
  const { Testing } = await load("layers")
  const { builtInPolicies } = await load("rules")
  const history = [new Transcript.UserMessage({ id: "u0", content: "Fix the importer so that it keeps the order ids." })]
  for (let turn = 1; history.length < 300; turn++) {
    history.push(
      new Transcript.AssistantMessage({
        id: `a${turn}`,
        content: `Step ${turn}: reading part ${turn} of the importer.`,
        toolCalls: [
          new Transcript.ToolCall({ id: `c${turn}`, name: "read_file", arguments: `{"path":"src/importer/part${turn}.ts"}` })
        ]
      }),
      new Transcript.ToolResult({
        id: `r${turn}`,
        toolCallId: `c${turn}`,
        content: `export const part${turn} = ${JSON.stringify("x".repeat(400))}\n`.repeat(3)
      })
    )
  }
  const transcript = history.slice(0, 300)
  const before = JSON.stringify(transcript)
  const program = Effect.gen(function*() {
    const compactor = yield* Compactor.Compactor
    return yield* compactor.checkpoint({ sessionId: "app", transcript, model: "gpt-4o", contextWindow: 16_000 })
  }).pipe(Effect.provide(Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provide(Testing.layer()))))
  const checkpoint = await Effect.runPromise(program)
  const report = Option.getOrUndefined(checkpoint.compacted)
  return {
    messages: transcript.length,
    transcriptUnchanged: JSON.stringify(transcript) === before,
    compactions: report?.compactions ?? 0,
    viewShorter: checkpoint.view.length < transcript.length,
    underTrigger: checkpoint.tokens <= checkpoint.trigger,
    violations: ViewCheck.check(checkpoint.view).length,
    blockFirst: checkpoint.view[0]?._tag === "Compacted",
    firstUserMessageKept: checkpoint.view.some((message) => message.content.includes("keeps the order ids"))
  }
}

export const expected = {
  messages: 300,
  transcriptUnchanged: true,
  compactions: 1,
  viewShorter: true,
  underTrigger: true,
  violations: 0,
  blockFirst: true,
  firstUserMessageKept: true
}
