/**
 * The chat-completions client as a `LanguageModel` provider (`ChatCompletionsLanguageModel`), under
 * the LanguageModel summariser, against a real server: on Effect 3 over @effect/ai, on Effect 4 over
 * `effect/ai` (one source, `#compat-ai`), each major's Node HTTP client (`Compat.nodeHttpClient`).
 * What the server answers becomes the summariser's failure reason the same way on both.
 */
import * as Compat from "#compat"
import * as CompatAi from "#compat-ai"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as ChatCompletionsLanguageModel from "../../../../src/apps/effect-ai/ChatCompletionsLanguageModel.js"
import * as SummarizerLanguageModel from "../../../../src/apps/effect-ai/SummarizerLanguageModel.js"
import type * as Summarizer from "../../../../src/face/services/Summarizer.js"
import * as Server from "../../../support/ChatCompletionsServer.js"
import { request } from "../../../support/SummaryRequests.js"

const summary = "## Primary request\nFix the parser cache.\n\n## Key decisions\nRead the files first."

const failure = (outcome: Compat.Result<string, Summarizer.SummarizerError>): Summarizer.SummarizerError =>
  Option.getOrElse(
    TestCompat.getFailure(outcome),
    () => assert.fail(`expected a SummarizerError, got the summary ${JSON.stringify(TestCompat.getOrThrow(outcome))}`)
  )

/** One summariser call through the chat-completions provider, against a real server answering `script`. */
const summarizeOverSocket = (
  script: ReadonlyArray<Server.Reply>,
  options: SummarizerLanguageModel.Options = { withMaxTokens: ChatCompletionsLanguageModel.withMaxTokens },
  baseUrl?: string
) =>
  Effect.gen(function*() {
    const server = yield* Server.start(script)
    const provider = ChatCompletionsLanguageModel.layer({ baseUrl: baseUrl ?? server.baseUrl, model: "local-model" })
      .pipe(Layer.provide(Compat.nodeHttpClient))
    const outcome = yield* Effect.flatMap(SummarizerLanguageModel.make(options), (s) =>
      Compat.result(s.summarize(request))).pipe(Effect.provide(provider))
    return { outcome, received: yield* server.received }
  })

describe("SummarizerLanguageModel over the chat-completions provider, against a real server", () => {
  it.live("a good summary is returned; the provider sent its model, system+user messages and the budget as max_tokens", () =>
    Effect.gen(function*() {
      const { outcome, received } = yield* summarizeOverSocket([Server.completion(summary)])
      assert.strictEqual(TestCompat.getOrThrow(outcome), summary)
      assert.deepStrictEqual(received.map((r) => r.body), [{
        model: "local-model",
        messages: [{ role: "system", content: request.system }, { role: "user", content: request.prompt }],
        max_tokens: 1_234
      }])
    }).pipe(Effect.scoped))

  it.live("without withMaxTokens the budget is not sent: the LanguageModel has no provider-neutral max tokens", () =>
    Effect.gen(function*() {
      const { outcome, received } = yield* summarizeOverSocket([Server.completion(summary)], {})
      assert.isTrue(TestCompat.isSuccess(outcome))
      assert.notProperty(received[0]!.body as object, "max_tokens")
    }).pipe(Effect.scoped))

  const cases: ReadonlyArray<{
    readonly name: string
    readonly script: ReadonlyArray<Server.Reply>
    readonly reason: Summarizer.SummarizerError["reason"]
    readonly retryAfterMs?: number
    readonly mentions?: string
  }> = [
    {
      name: "a reply stopped for length is cut-off",
      script: [Server.completion("## Primary request\nFix the", "length")],
      reason: "cut-off"
    },
    { name: "a blank reply is empty-reply", script: [Server.completion(" \n ")], reason: "empty-reply" },
    {
      name: "a 400 saying the context was exceeded is context-overflow",
      script: [Server.error(400, "This model's maximum context length is 8192 tokens.", "context_length_exceeded")],
      reason: "context-overflow",
      mentions: "maximum context length is 8192"
    },
    {
      name: "a 429 with retry-after is rate-limited with the wait",
      script: [Server.error(429, "Rate limit reached", null, { "retry-after": "3" })],
      reason: "rate-limited",
      retryAfterMs: 3_000
    },
    {
      name: "a 500 is server-error",
      script: [Server.error(500, "internal failure")],
      reason: "server-error",
      mentions: "internal failure"
    },
    {
      name: "a 404 for an unknown model is unavailable",
      script: [Server.error(404, "model 'local-model' not found")],
      reason: "unavailable",
      mentions: "not found"
    },
    {
      name: "a body that is not JSON is malformed-reply",
      script: [{ body: "not json at all" }],
      reason: "malformed-reply"
    }
  ]
  for (const c of cases) {
    it.live(c.name, () =>
      Effect.gen(function*() {
        const error = failure((yield* summarizeOverSocket(c.script)).outcome)
        assert.strictEqual(error.reason, c.reason)
        assert.strictEqual(error.retryAfterMs, c.retryAfterMs)
        if (c.mentions !== undefined) assert.include(error.message, c.mentions)
      }).pipe(Effect.scoped))
  }

  it.live("a server that never answers is timeout, after the summariser's timeout", () =>
    Effect.gen(function*() {
      const started = Date.now()
      const { outcome } = yield* summarizeOverSocket([{ hang: true }], {
        withMaxTokens: ChatCompletionsLanguageModel.withMaxTokens,
        timeout: "300 millis"
      })
      assert.strictEqual(failure(outcome).reason, "timeout")
      assert.isBelow(Date.now() - started, 3_000)
    }).pipe(Effect.scoped))

  it.live("a closed port is unavailable", () =>
    Effect.gen(function*() {
      const closed = yield* Server.refusingBaseUrl
      const error = failure((yield* summarizeOverSocket([], undefined, closed)).outcome)
      assert.strictEqual(error.reason, "unavailable")
      assert.include(error.message, "ECONNREFUSED")
    }).pipe(Effect.scoped))

  it.live("the provider streams the reply too, as one delta and a finish part", () =>
    Effect.gen(function*() {
      const server = yield* Server.start([Server.completion("streamed text")])
      const parts = yield* Stream.unwrap(
        Effect.map(CompatAi.LanguageModel, (model) => model.streamText({ prompt: "hello" }))
      ).pipe(
        Stream.runCollect,
        Effect.provide(
          ChatCompletionsLanguageModel.layer({ baseUrl: server.baseUrl, model: "local-model" }).pipe(
            Layer.provide(Compat.nodeHttpClient)
          )
        )
      )
      const list = Array.from(parts)
      assert.deepStrictEqual(list.map((p) => p.type), ["text-start", "text-delta", "text-end", "finish"])
      assert.strictEqual(list.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join(""), "streamed text")
    }).pipe(Effect.scoped))
})
