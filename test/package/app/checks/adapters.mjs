// The adapters of the face with its engine (issue 32): a chat-completions history of 200 messages
// decoded by `OpenAiChat.adapter.decode` (an effect on both faces, yielded as it is), checkpointed
// by `Compactor.layer` over `Production.layerMemory()` at an 8k window, and the view encoded back. The request starts with the system message, then the
// compacted block as a user message; every tool call it keeps has its result; its last message is
// the history's; a document that is not a chat is refused with an `AdapterError` naming its
// message. The same answer on Effect 3 and Effect 4.
export const run = async (load) => {
  const { Effect, Layer } = await import("effect")
  const { Compactor } = await load("")
  const { OpenAiChat } = await load("adapters")
  const { Production } = await load("layers")
  const { builtInPolicies } = await load("rules")
  const history = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Rename the order importer's ids; keep the order." }
  ]
  for (let turn = 1; history.length < 200; turn++) {
    const id = `call_${turn}`
    const command = JSON.stringify({ command: `cat src/importer/part${turn}.ts` })
    history.push(
      { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "shell", arguments: command } }] },
      { role: "tool", tool_call_id: id, content: `export const part${turn} = ${JSON.stringify("y".repeat(300))}\n`.repeat(2) }
    )
  }
  const messages = history.slice(0, 200)
  const before = JSON.stringify(messages)
  const engine = Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provide(Production.layerMemory()))
  const program = Effect.gen(function*() {
    const decoded = yield* OpenAiChat.adapter.decode(messages)
    const compactor = yield* Compactor.Compactor
    const { view } = yield* compactor.checkpoint({
      sessionId: "app-adapters",
      transcript: decoded.transcript,
      model: "gpt-4o",
      contextWindow: 8_000
    })
    return decoded.encode(view)
  })
  const request = await Effect.runPromise(program.pipe(Effect.provide(engine)))
  const refused = await Effect.runPromise(
    OpenAiChat.adapter.decode([{ role: "tool", tool_call_id: "nope", content: "x" }]).pipe(Effect.flip)
  )
  const calls = request.flatMap((message) => (message.tool_calls ?? []).map((call) => call.id)).sort()
  const answered = request.flatMap((message) => (message.role === "tool" ? [message.tool_call_id] : [])).sort()
  return {
    historyUnchanged: JSON.stringify(messages) === before,
    shorter: request.length < messages.length,
    roles: request.slice(0, 2).map((message) => message.role),
    blockCompacted: /compacted/i.test(String(request[1]?.content)),
    callsAnswered: calls.length > 0 && JSON.stringify(calls) === JSON.stringify(answered),
    lastKept: request.at(-1)?.tool_call_id === messages.at(-1).tool_call_id,
    refused: { tag: refused._tag, format: refused.format, index: refused.index }
  }
}

export const expected = {
  historyUnchanged: true,
  shorter: true,
  roles: ["system", "user"],
  blockCompacted: true,
  callsAnswered: true,
  lastKept: true,
  refused: { tag: "AdapterError", format: "openai", index: 0 }
}
