import * as Compat from "#compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as fc from "fast-check"
import * as SummarizerLanguageModel from "../../../../src/apps/effect-ai/SummarizerLanguageModel.js"
import * as SummaryKey from "../../../../src/core/services/SummaryKey.js"
import * as SummarizerAiSdk from "../../../../src/face/layers/SummarizerAiSdk.js"
import * as SummarizerChatCompletions from "../../../../src/face/layers/SummarizerChatCompletions.js"
import * as SummarizerOffline from "../../../../src/face/layers/SummarizerOffline.js"
import * as SummarizerScripted from "../../../../src/face/layers/SummarizerScripted.js"
import * as Summarizer from "../../../../src/face/services/Summarizer.js"
import * as SummaryCache from "../../../../src/face/services/SummaryCache.js"
import { prop } from "../../../support/Property.js"

const request = new Summarizer.SummaryRequest({
  model: "gpt-5",
  system: "Summarise.",
  prompt: "the span",
  maxTokens: 1_000,
  agentic: false,
  namespace: "ns",
  span: []
})

const digestBy = (identity: Summarizer.Identity): string => SummaryCache.digest(SummaryCache.keyOf(request, identity))

const identity: Summarizer.Identity = {
  kind: "chat-completions",
  model: "gpt-5-mini",
  endpoint: "http://127.0.0.1:8080/v1",
  promptVersion: "1"
}

describe("SummaryCache.keyOf: a summary is keyed by who made it", () => {
  it("the key holds the summariser's identity, and a summariser that gives none is anonymous", () => {
    assert.deepStrictEqual(SummaryCache.keyOf(request, identity).summarizer, identity)
    assert.deepStrictEqual(SummaryCache.keyOf(request).summarizer, Summarizer.anonymous)
    assert.strictEqual(digestBy(Summarizer.anonymous), SummaryCache.digest(SummaryCache.keyOf(request)))
  })

  it("another kind, model, endpoint or prompt version is another digest", () => {
    const original = digestBy(identity)
    assert.notStrictEqual(digestBy({ ...identity, kind: "offline" }), original, "kind")
    assert.notStrictEqual(digestBy({ ...identity, model: "gpt-5" }), original, "model")
    assert.notStrictEqual(digestBy({ ...identity, endpoint: "http://127.0.0.1:8081/v1" }), original, "endpoint")
    assert.notStrictEqual(digestBy({ ...identity, promptVersion: "2" }), original, "prompt version")
    // An absent part is not the empty one.
    assert.notStrictEqual(digestBy({ ...identity, model: undefined }), digestBy({ ...identity, model: "" }))
    assert.strictEqual(digestBy({ ...identity }), original)
  })

  prop(
    "identities that differ in any part never share a digest",
    [
      fc.record({
        kind: fc.string(),
        model: fc.option(fc.string(), { nil: undefined }),
        endpoint: fc.option(fc.string(), { nil: undefined }),
        promptVersion: fc.option(fc.string(), { nil: undefined })
      }),
      fc.constantFrom<keyof Summarizer.Identity>("kind", "model", "endpoint", "promptVersion"),
      fc.string({ minLength: 1 })
    ],
    ([original, part, suffix]) => {
      const other = { ...original, [part]: `${original[part] ?? ""}${suffix}` }
      assert.notStrictEqual(digestBy(other), digestBy(original))
    }
  )

  it("the cache-schema version is 5: keys of 4 named no summariser", () => {
    assert.strictEqual(SummaryCache.schemaVersion, 5)
  })
})

describe("the summarisers' identities", () => {
  it("each built-in summariser names its kind; the offline and scripted ones give theirs as the layer's service", () =>
    Effect.gen(function*() {
      const offline = yield* Effect.provide(Summarizer.Summarizer, SummarizerOffline.layer)
      assert.deepStrictEqual(offline.identity, { kind: "offline", promptVersion: "1" })
      const scripted = yield* Effect.provide(Summarizer.Summarizer, SummarizerScripted.layer([]))
      assert.deepStrictEqual(scripted.identity, { kind: "scripted" })
      const kinds = [
        SummarizerOffline.identity,
        SummarizerScripted.identity,
        SummarizerChatCompletions.identityOf({ baseUrl: "http://127.0.0.1:8080/v1" }),
        SummarizerLanguageModel.identityOf({}),
        SummarizerAiSdk.identityOf({ provider: "openai.chat", modelId: "gpt-5-mini" })
      ].map((each) => each.kind)
      assert.deepStrictEqual(kinds, ["offline", "scripted", "chat-completions", "language-model", "ai-sdk"])
    }).pipe(Effect.runPromise))

  it("the chat-completions summariser names its model and server, never its key or a password", () =>
    Effect.gen(function*() {
      const service = yield* SummarizerChatCompletions.make({
        baseUrl: "https://user:secret@llm.example/v1/?api-key=sk-123#frag",
        apiKey: Redacted.make("sk-456"),
        model: "gpt-5-mini"
      }).pipe(Effect.provide(Compat.nodeHttpClient))
      assert.deepStrictEqual(service.identity, {
        kind: "chat-completions",
        model: "gpt-5-mini",
        endpoint: "https://llm.example/v1",
        promptVersion: "1"
      })
    }).pipe(Effect.runPromise))

  it("an endpoint is the base URL's origin and path; a text that is not a URL is named by its hash", () => {
    assert.strictEqual(SummaryKey.endpointOf("http://127.0.0.1:8080/v1/"), "http://127.0.0.1:8080/v1")
    assert.strictEqual(SummaryKey.endpointOf("https://u:p@host.example/v1?key=k"), "https://host.example/v1")
    assert.match(SummaryKey.endpointOf("not a url sk-123"), /^sha256:[0-9a-f]{16}$/)
    assert.notInclude(SummaryKey.endpointOf("not a url sk-123"), "sk-123")
  })

  it("the AI SDK summariser names the provider and model, the language-model one what it is told", () => {
    assert.strictEqual(
      SummarizerAiSdk.identityOf({ provider: "openai.chat", modelId: "gpt-5-mini" }).model,
      "openai.chat/gpt-5-mini"
    )
    assert.deepStrictEqual(
      SummarizerLanguageModel.identityOf({ model: "claude-sonnet-4", endpoint: "https://api.anthropic.com/v1/" }),
      {
        kind: "language-model",
        model: "claude-sonnet-4",
        endpoint: "https://api.anthropic.com/v1",
        promptVersion: "1"
      }
    )
  })
})
