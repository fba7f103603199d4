import * as CompatAi from "#compat-ai"
import { Prompt } from "#compat-ai"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as CompactingLanguageModel from "../../../../src/apps/effect-ai/CompactingLanguageModel.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as Generated from "../../../transcripts.js"

/** The long session as an @effect/ai Prompt: tool calls and their results. */
const history: Prompt.Prompt = Prompt.make(
  Generated.longSession.map((message): Prompt.MessageEncoded => {
    switch (message._tag) {
      case "System":
        return { role: "system", content: message.content }
      case "User":
      case "Compacted":
        return { role: "user", content: message.content }
      case "Assistant":
        return {
          role: "assistant",
          content: [
            { type: "text", text: message.content },
            ...message.toolCalls.map((call) => ({
              type: "tool-call" as const,
              id: call.id,
              name: call.name,
              params: JSON.parse(call.arguments) as unknown,
              providerExecuted: false
            }))
          ]
        }
      case "ToolResult":
        return {
          role: "tool",
          content: [{
            type: "tool-result",
            id: message.toolCallId,
            name: message.name ?? "tool",
            isFailure: false,
            result: message.content,
            providerExecuted: false
          }]
        }
    }
  })
)

const finish: CompatAi.Response.PartEncoded = {
  type: "finish",
  reason: "stop",
  usage: CompatAi.encodedUsage({ inputTokens: 0, outputTokens: 0, totalTokens: 0 })
}

/** A scripted model that records the prompt of every call and answers with `reply`. */
const scripted = (received: Array<Prompt.Prompt>, reply: string) =>
  Layer.effect(
    CompatAi.LanguageModel,
    CompatAi.makeLanguageModel({
      generateText: (options) =>
        Effect.sync(() => (received.push(options.prompt), [{ type: "text", text: reply }, finish])),
      streamText: (options) =>
        Stream.suspend(
          () => (received.push(options.prompt),
            Stream.make<[CompatAi.Response.StreamPartEncoded, CompatAi.Response.StreamPartEncoded]>({
              type: "text-delta",
              id: "t",
              delta: reply
            }, finish))
        )
    })
  )

// The model in context, called as an agent calls it.
const generateText = (prompt: Prompt.RawInput) =>
  Effect.flatMap(CompatAi.LanguageModel, (model) => model.generateText({ prompt }))

const streamText = (prompt: Prompt.RawInput) =>
  Stream.unwrap(Effect.map(CompatAi.LanguageModel, (model) => model.streamText({ prompt })))

const engine = Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provideMerge(Testing.layer()))

const compacting = (
  received: Array<Prompt.Prompt>,
  reply: string,
  options: Partial<CompactingLanguageModel.Options> = {}
) =>
  CompactingLanguageModel.layer({ contextWindow: 12_000, model: "m", ...options }).pipe(
    Layer.provide(scripted(received, reply)),
    Layer.provideMerge(engine)
  )

const assertCompacted = (prompt: Prompt.Prompt) => {
  assert.isBelow(prompt.content.length, history.content.length)
  assert.strictEqual(prompt.content[0]!.role, "system")
  const block = prompt.content[1]!
  assert.strictEqual(block.role, "user")
  assert.match(JSON.stringify(block.content), /compacted/i)
  assert.deepStrictEqual(prompt.content.at(-1), history.content.at(-1))
}

describe("CompactingLanguageModel", () => {
  it.effect("generateText, streamText and generateObject send the wrapped model the compacted prompt", () => {
    const received: Array<Prompt.Prompt> = []
    return Effect.gen(function*() {
      const text = yield* generateText(history)
      assert.strictEqual(text.text, "{\"answer\":\"done\"}")
      const streamed = yield* streamText(history).pipe(Stream.runCollect)
      assert.isAbove(Array.from(streamed).length, 0)
      const object = yield* Effect.flatMap(
        CompatAi.LanguageModel,
        (model) => model.generateObject({ prompt: history, schema: Schema.Struct({ answer: Schema.String }) })
      )
      assert.deepStrictEqual(object.value, { answer: "done" })
      assert.strictEqual(received.length, 3)
      for (const prompt of received) assertCompacted(prompt)
    }).pipe(Effect.provide(compacting(received, "{\"answer\":\"done\"}", { sessionId: "layer-session" })))
  })

  it.effect("the fiber's session (withSession) wins over the layer's; the compaction is of that session", () => {
    const received: Array<Prompt.Prompt> = []
    return Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const events = yield* compactor.subscribe
      yield* generateText(history).pipe(CompactingLanguageModel.withSession("fiber-session"))
      const event = yield* TestCompat.take(events)
      assert.strictEqual(event.sessionId, "fiber-session")
      assertCompacted(received[0]!)
    }).pipe(Effect.scoped, Effect.provide(compacting(received, "ok", { sessionId: "layer-session" })))
  })

  it.effect("a short prompt is sent as it is", () => {
    const received: Array<Prompt.Prompt> = []
    const short = Prompt.make([{ role: "user", content: "hello" }])
    return Effect.gen(function*() {
      yield* generateText(short)
      assert.deepStrictEqual(received[0], short)
    }).pipe(Effect.provide(compacting(received, "hi", { sessionId: "short" })))
  })

  it.effect("a call with no session, or a compaction that cannot fit, fails with MalformedInput (Effect 4: InvalidUserInputError) and the model is not called", () => {
    const received: Array<Prompt.Prompt> = []
    return Effect.gen(function*() {
      const noSession = TestCompat.aiErrorOf(yield* Effect.flip(generateText(history)))
      assert.strictEqual(noSession.kind, TestCompat.invalidUserInputKind)
      assert.match(noSession.description ?? "", /no session/)
      const tiny = TestCompat.aiErrorOf(
        yield* Effect.flip(
          generateText(history).pipe(
            CompactingLanguageModel.withSession("tiny"),
            Effect.provide(compacting(received, "x", { contextWindow: 300 }))
          )
        )
      )
      assert.strictEqual(tiny.kind, TestCompat.invalidUserInputKind)
      assert.match(tiny.description ?? "", /compaction failed/)
      assert.strictEqual(received.length, 0)
    }).pipe(Effect.provide(compacting(received, "x")))
  })
})
