/**
 * The AI SDK adapter against the real `ai` v5 and `@ai-sdk/provider` types:
 * what `toMessages` returns is assignable, with no cast, to the type the
 * messages came in (`ModelMessage[]`, `LanguageModelV2Prompt`). These checks
 * are made by the typecheck (`tsc` covers `test/`); the runtime assertions
 * check that the values fit the same shapes.
 */
import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import type { LanguageModelV2Prompt } from "@ai-sdk/provider"
import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import type { ModelMessage } from "ai"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as AiSdkMessages from "../../../../src/face/adapters/AiSdkMessages.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import type * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as Histories from "../../../support/Histories.js"
import * as Generated from "../../../transcripts.js"

const engine = Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provide(Testing.layer()))

const right = <A, E>(either: Compat.Result<A, E>): A =>
  Compat.matchResult(either, {
    onFailure: (error) => {
      throw new Error(`expected a Right: ${JSON.stringify(error)}`)
    },
    onSuccess: (value) => value
  })

const compactedView = (transcript: Transcript.Transcript, sessionId: string) =>
  Effect.gen(function*() {
    const compactor = yield* Compactor.Compactor
    const checkpoint = yield* compactor.checkpoint({ sessionId, transcript, model: "m", contextWindow: 12_000 })
    assert.isTrue(Option.isSome(checkpoint.compacted))
    return checkpoint.view
  })

/** The AI SDK's own prompt conversion writes `providerOptions: undefined` on every message. */
const asV2Prompt = (messages: ReadonlyArray<ModelMessage>): LanguageModelV2Prompt =>
  messages.map((message): LanguageModelV2Prompt[number] =>
    Object.assign(v2Message(message), { providerOptions: undefined })
  )

const v2Message = (message: ModelMessage): LanguageModelV2Prompt[number] => {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content }
    case "user":
      return {
        role: "user",
        content: typeof message.content === "string"
          ? [{ type: "text", text: message.content }]
          : message.content.flatMap((part) => (part.type === "text" ? [part] : []))
      }
    case "assistant":
      return {
        role: "assistant",
        content: typeof message.content === "string"
          ? [{ type: "text", text: message.content }]
          : message.content.flatMap((part) => (part.type === "text" || part.type === "tool-call" ? [part] : []))
      }
    case "tool":
      return { role: "tool", content: message.content }
  }
}

describe("AiSdkMessages and the AI SDK's types", () => {
  it.effect("a compacted view of ai ModelMessages is a ModelMessage[] without a cast", () =>
    Effect.gen(function*() {
      const messages: Array<ModelMessage> = Histories.toModelMessages(Generated.longSession)
      const decoded = right(AiSdkMessages.fromMessages(messages))
      const view = yield* compactedView(decoded.transcript, "types-model-messages")
      const out = AiSdkMessages.toMessages(decoded, view)
      expectTypeOf(out).toEqualTypeOf<Array<ModelMessage>>()
      const sent: Array<ModelMessage> = out
      assert.isBelow(sent.length, messages.length)
      assert.deepStrictEqual(sent[0], messages[0])
      assert.strictEqual(sent.at(-1), messages.at(-1))
    }).pipe(Effect.provide(engine)))

  it.effect("a LanguageModelV2Prompt whose messages carry providerOptions: undefined is read, and its view is a LanguageModelV2Prompt", () =>
    Effect.gen(function*() {
      const prompt = asV2Prompt(Histories.toModelMessages(Generated.longSession))
      const decoded = right(AiSdkMessages.fromMessages(prompt))
      const view = yield* compactedView(decoded.transcript, "types-v2-prompt")
      const out = AiSdkMessages.toMessages(decoded, view)
      expectTypeOf(out).toEqualTypeOf<LanguageModelV2Prompt>()
      const sent: LanguageModelV2Prompt = out
      // Every message written anew has the shape LanguageModelV2Prompt requires: parts arrays, no string contents.
      for (const message of sent) {
        if (message.role !== "system") assert.isArray(message.content)
      }
      assert.deepStrictEqual(sent[1], {
        role: "user",
        content: [{ type: "text", text: (view[1] as Transcript.CompactedBlock).content }]
      })
    }).pipe(Effect.provide(engine)))

  it("refuses providerOptions that are present and not an object", () => {
    const refused = AiSdkMessages.adapter.decodeResult([{ role: "user", content: "hi", providerOptions: "fast" }])
    assert.isTrue(TestCompat.isFailure(refused))
  })
})
