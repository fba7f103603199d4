import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as QualityGate from "../../../../src/face/engine/QualityGate.js"
import * as SummaryPrompt from "../../../../src/face/engine/SummaryPrompt.js"
import * as AttentionUnattended from "../../../../src/face/layers/AttentionUnattended.js"
import * as CompactionStoreMemory from "../../../../src/face/layers/CompactionStoreMemory.js"
import * as SettingsFixed from "../../../../src/face/layers/SettingsFixed.js"
import * as SummarizerChatCompletions from "../../../../src/face/layers/SummarizerChatCompletions.js"
import * as SummaryCacheMemory from "../../../../src/face/layers/SummaryCacheMemory.js"
import * as TokenizerApprox from "../../../../src/face/layers/TokenizerApprox.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as Summarizer from "../../../../src/face/services/Summarizer.js"
import * as Server from "../../../support/ChatCompletionsServer.js"
import { request } from "../../../support/SummaryRequests.js"
import * as Generated from "../../../transcripts.js"

const overflowFixtures = NodeUrl.fileURLToPath(new URL("../engine/fixtures/overflow", import.meta.url))
const overflowFixture = (name: string): string =>
  Fs.readFileSync(NodePath.join(overflowFixtures, `${name}.json`), "utf8")

const summary = "## Primary request\nFix the parser cache.\n\n## Key decisions\nRead the files first."
const apiKey = "sk-test-0123456789abcdef"

/** Runs one summariser call against a server answering `script`. */
const summarizeAgainst = (
  script: ReadonlyArray<Server.Reply>,
  options: Partial<SummarizerChatCompletions.Options> = {}
) =>
  Effect.gen(function*() {
    const server = yield* Server.start(script)
    const summarizer = yield* SummarizerChatCompletions.make({ baseUrl: server.baseUrl, ...options })
    const outcome = yield* Compat.result(summarizer.summarize(request))
    return { outcome, received: yield* server.received, url: `${server.baseUrl}/chat/completions` }
  }).pipe(Effect.provide(Compat.nodeHttpClient))

const failure = (outcome: Compat.Result<string, Summarizer.SummarizerError>): Summarizer.SummarizerError =>
  Compat.matchResult(outcome, {
    onFailure: (error) => error,
    onSuccess: (summary) => assert.fail(`expected a SummarizerError, got the summary ${JSON.stringify(summary)}`)
  })

describe("SummarizerChatCompletions against a real chat-completions server", () => {
  it.scopedLive("a good summary is returned as written, from a request with the model override, max_tokens, system+user messages and the bearer key", () =>
    Effect.gen(function*() {
      const { outcome, received } = yield* summarizeAgainst([Server.completion(summary)], {
        model: "pinned-model",
        apiKey: Redacted.make(apiKey)
      })
      assert.deepStrictEqual(outcome, Compat.Result.succeed(summary))
      assert.strictEqual(received.length, 1)
      const [sent] = received
      assert.strictEqual(sent!.method, "POST")
      assert.strictEqual(sent!.path, "/v1/chat/completions")
      assert.strictEqual(sent!.headers["authorization"], `Bearer ${apiKey}`)
      assert.include(String(sent!.headers["content-type"]), "application/json")
      assert.deepStrictEqual(sent!.body, {
        model: "pinned-model",
        messages: [{ role: "system", content: request.system }, { role: "user", content: request.prompt }],
        max_tokens: 1_234
      })
    }))

  it.scopedLive("without a model option or key it asks for the request's model and sends no Authorization header", () =>
    Effect.gen(function*() {
      const { outcome, received } = yield* summarizeAgainst([Server.completion(summary)])
      assert.isTrue(TestCompat.isSuccess(outcome))
      assert.strictEqual((received[0]!.body as { model: string }).model, "session-model")
      assert.isUndefined(received[0]!.headers["authorization"])
    }))

  it.scopedLive("max_completion_tokens carries the budget when asked, for OpenAI's reasoning models", () =>
    Effect.gen(function*() {
      const { received } = yield* summarizeAgainst([Server.completion(summary)], {
        maxTokensField: "max_completion_tokens"
      })
      assert.deepStrictEqual(Object.keys(received[0]!.body as object).sort(), [
        "max_completion_tokens",
        "messages",
        "model"
      ])
      assert.strictEqual((received[0]!.body as { max_completion_tokens: number }).max_completion_tokens, 1_234)
    }))

  it.scopedLive("a blank reply fails with empty-reply, and so does a null content", () =>
    Effect.gen(function*() {
      const blank = failure((yield* summarizeAgainst([Server.completion("  \n\t ")])).outcome)
      assert.strictEqual(blank.reason, "empty-reply")
      assert.isUndefined(blank.retryAfterMs)
      const nullContent = failure((yield* summarizeAgainst([Server.completion(null)])).outcome)
      assert.strictEqual(nullContent.reason, "empty-reply")
    }))

  it.scopedLive("a 400 whose body says the context length was exceeded fails with context-overflow, naming status, URL and the server's message", () =>
    Effect.gen(function*() {
      const message =
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 150000 tokens."
      const { outcome, url } = yield* summarizeAgainst([Server.error(400, message, "context_length_exceeded")])
      const error = failure(outcome)
      assert.strictEqual(error.reason, "context-overflow")
      assert.include(error.message, "400")
      assert.include(error.message, url)
      assert.include(error.message, message)
    }))

  it.scopedLive("a 400 from llama.cpp's exceed_context_size_error and a 413 saying too many tokens are context-overflow too", () =>
    Effect.gen(function*() {
      const llama = yield* summarizeAgainst([{
        status: 400,
        json: {
          error: {
            code: 400,
            message: "the request exceeds the available context size, try increasing it",
            type: "exceed_context_size_error"
          }
        }
      }])
      assert.strictEqual(failure(llama.outcome).reason, "context-overflow")
      const tooLarge = yield* summarizeAgainst([{ status: 413, body: "too many tokens in the prompt" }])
      assert.strictEqual(failure(tooLarge.outcome).reason, "context-overflow")
    }))

  it.scopedLive("the provider error bodies of Overflow's fixtures are context-overflow as the classifier reads them (Gemini's and Vertex's wording too); its non-overflow ones are not", () =>
    Effect.gen(function*() {
      for (const fixture of ["gemini", "vertex", "anthropic", "vllm-engine", "llama-cpp", "ollama"]) {
        const { outcome } = yield* summarizeAgainst([{
          status: 400,
          headers: { "content-type": "application/json" },
          body: overflowFixture(fixture)
        }])
        assert.strictEqual(failure(outcome).reason, "context-overflow", fixture)
      }
      for (const fixture of ["not-overflow-output-limit", "not-overflow-overloaded"]) {
        const { outcome } = yield* summarizeAgainst([{
          status: 400,
          headers: { "content-type": "application/json" },
          body: overflowFixture(fixture)
        }])
        assert.strictEqual(failure(outcome).reason, "unavailable", fixture)
      }
    }))

  it.scopedLive("a 429 with retry-after in seconds fails with rate-limited and the wait in milliseconds", () =>
    Effect.gen(function*() {
      const { outcome } = yield* summarizeAgainst([
        Server.error(429, "Rate limit reached for requests", "rate_limit_exceeded", { "retry-after": "2" })
      ])
      const error = failure(outcome)
      assert.strictEqual(error.reason, "rate-limited")
      assert.strictEqual(error.retryAfterMs, 2_000)
      assert.include(error.message, "429")
      assert.include(error.message, "Rate limit reached for requests")
    }))

  it.scopedLive("retry-after-ms wins over retry-after, and a 429 with neither has no wait", () =>
    Effect.gen(function*() {
      const both = yield* summarizeAgainst([
        Server.error(429, "slow down", null, { "retry-after-ms": "1500", "retry-after": "2" })
      ])
      assert.strictEqual(failure(both.outcome).retryAfterMs, 1_500)
      const none = failure((yield* summarizeAgainst([Server.error(429, "slow down")])).outcome)
      assert.strictEqual(none.reason, "rate-limited")
      assert.isUndefined(none.retryAfterMs)
    }))

  it("retry-after as an HTTP date is the time left until that date, never negative", () => {
    const date = "Wed, 21 Oct 2015 07:28:00 GMT"
    const at = Date.parse(date)
    assert.strictEqual(SummarizerChatCompletions.retryAfterMs({ "Retry-After": date }, at - 5_000), 5_000)
    assert.strictEqual(SummarizerChatCompletions.retryAfterMs({ "retry-after": date }, at + 5_000), 0)
    assert.strictEqual(SummarizerChatCompletions.retryAfterMs({ "retry-after": "soon" }, at), undefined)
    assert.strictEqual(SummarizerChatCompletions.retryAfterMs({ "retry-after": "0.5" }, at), 500)
  })

  it.scopedLive("a 500 fails with server-error and the server's message", () =>
    Effect.gen(function*() {
      const { outcome, url } = yield* summarizeAgainst([
        Server.error(500, "The server had an error while processing your request")
      ])
      const error = failure(outcome)
      assert.strictEqual(error.reason, "server-error")
      assert.include(error.message, "500")
      assert.include(error.message, url)
      assert.include(error.message, "The server had an error while processing your request")
    }))

  it.scopedLive("a 401 is unavailable with the server's message, and the API key appears in no error", () =>
    Effect.gen(function*() {
      const { outcome } = yield* summarizeAgainst(
        [Server.error(401, "Incorrect API key provided", "invalid_api_key")],
        { apiKey: Redacted.make(apiKey) }
      )
      const error = failure(outcome)
      assert.strictEqual(error.reason, "unavailable")
      assert.include(error.message, "401")
      assert.include(error.message, "Incorrect API key provided")
      assert.notInclude(JSON.stringify(error), apiKey)
      assert.notInclude(String(error), apiKey)
    }))

  it.scopedLive("a reply cut off by the token limit fails with cut-off, even with text in it", () =>
    Effect.gen(function*() {
      const { outcome } = yield* summarizeAgainst([Server.completion("## Primary request\nFix the pars", "length")])
      const error = failure(outcome)
      assert.strictEqual(error.reason, "cut-off")
      assert.include(error.message, "length")
    }))

  it.scopedLive("a body that is not JSON, and JSON that is not a chat completion, fail with malformed-reply", () =>
    Effect.gen(function*() {
      const html = failure((yield* summarizeAgainst([{ body: "<html><body>502 Bad Gateway</body></html>" }])).outcome)
      assert.strictEqual(html.reason, "malformed-reply")
      assert.include(html.message, "not JSON")
      const shape = failure((yield* summarizeAgainst([{ json: { object: "list", data: [] } }])).outcome)
      assert.strictEqual(shape.reason, "malformed-reply")
      assert.include(shape.message, "not a chat completion")
      const noChoices = failure((yield* summarizeAgainst([{ json: { choices: [] } }])).outcome)
      assert.strictEqual(noChoices.reason, "malformed-reply")
    }))

  it.scopedLive("a server that never answers fails with timeout once the timeout has passed", () =>
    Effect.gen(function*() {
      const started = Date.now()
      const { outcome, received } = yield* summarizeAgainst([{ hang: true }], { timeout: "300 millis" })
      const elapsed = Date.now() - started
      const error = failure(outcome)
      assert.strictEqual(error.reason, "timeout")
      assert.include(error.message, "300ms")
      assert.strictEqual(received.length, 1)
      assert.isAtLeast(elapsed, 290)
      assert.isBelow(elapsed, 3_000)
    }))

  it.scopedLive("a closed port fails with unavailable, naming the refused connection", () =>
    Effect.gen(function*() {
      const baseUrl = yield* Server.refusingBaseUrl
      const summarizer = yield* SummarizerChatCompletions.make({ baseUrl })
      const error = failure(yield* Compat.result(summarizer.summarize(request)))
      assert.strictEqual(error.reason, "unavailable")
      assert.include(error.message, "ECONNREFUSED")
      assert.include(error.message, `${baseUrl}/chat/completions`)
    }).pipe(Effect.provide(Compat.nodeHttpClient)))

  it.scopedLive("layerConfig reads the base URL and sends its own key there; OPENAI_API_KEY only when OPENAI_BASE_URL names that server", () =>
    Effect.gen(function*() {
      const server = yield* Server.start([
        Server.completion(summary),
        Server.completion(summary),
        Server.completion(summary)
      ])
      const summarizeWith = (env: ReadonlyArray<readonly [string, string]>) =>
        Effect.flatMap(Summarizer.Summarizer, (s) => s.summarize(request)).pipe(
          Effect.provide(SummarizerChatCompletions.layerConfig.pipe(Layer.provide(Compat.nodeHttpClient))),
          TestCompat.withConfigFrom([["CONTEXT_COMPRESSOR_OPENAI_BASE_URL", server.baseUrl], ...env])
        )
      yield* summarizeWith([["OPENAI_API_KEY", "sk-openai"], ["OPENAI_BASE_URL", `${server.baseUrl}/`], [
        "CONTEXT_COMPRESSOR_SUMMARIZER_TIMEOUT",
        "5 seconds"
      ]])
      yield* summarizeWith([["OPENAI_API_KEY", "sk-openai"], ["CONTEXT_COMPRESSOR_OPENAI_API_KEY", "sk-own"]])
      yield* summarizeWith([["CONTEXT_COMPRESSOR_OPENAI_API_KEY", "sk-own"]])
      const received = yield* server.received
      assert.deepStrictEqual(received.map((r) => r.headers["authorization"]), [
        "Bearer sk-openai",
        "Bearer sk-own",
        "Bearer sk-own"
      ])
    }))

  it.scopedLive("layerConfig withholds OPENAI_API_KEY from a server it is not for, and says so in a warning that does not hold the key", () =>
    Effect.gen(function*() {
      const server = yield* Server.start([Server.completion(summary), Server.completion(summary)])
      const logged: Array<string> = []
      const recording = TestCompat.replaceLogger(
        Logger.make(({ logLevel, message }) => {
          logged.push(
            `${TestCompat.logLevelLabel(logLevel)} ${Array.isArray(message) ? message.join(" ") : String(message)}`
          )
        })
      )
      const summarizeWith = (env: ReadonlyArray<readonly [string, string]>) =>
        Effect.flatMap(Summarizer.Summarizer, (s) => s.summarize(request)).pipe(
          Effect.provide(SummarizerChatCompletions.layerConfig.pipe(Layer.provide(Compat.nodeHttpClient))),
          Effect.provide(recording),
          TestCompat.withConfigFrom([["CONTEXT_COMPRESSOR_OPENAI_BASE_URL", server.baseUrl], ...env])
        )
      // OPENAI_BASE_URL unset: the key is for api.openai.com only.
      yield* summarizeWith([["OPENAI_API_KEY", "sk-openai-secret"]])
      // Set for another port of the same host: another origin.
      const otherPort = server.baseUrl.replace(/:(\d+)/, (_, port: string) => `:${Number(port) + 1}`)
      yield* summarizeWith([["OPENAI_API_KEY", "sk-openai-secret"], ["OPENAI_BASE_URL", otherPort]])
      const received = yield* server.received
      assert.deepStrictEqual(received.map((r) => r.headers["authorization"]), [undefined, undefined])
      assert.strictEqual(logged.length, 2)
      assert.match(logged[0]!, /^WARN OPENAI_API_KEY is for https:\/\/api\.openai\.com, not http:\/\/127\.0\.0\.1:\d+/)
      assert.include(logged[1]!, `OPENAI_API_KEY is for ${new URL(otherPort).origin}`)
      for (const line of logged) assert.notInclude(line, "sk-openai-secret")
    }))

  it("apiKeyFor: each key only to its own server's origin, the first that fits wins, a whitespace key is no key", () => {
    const env = {
      CONTEXT_COMPRESSOR_OPENAI_API_KEY: "sk-own",
      CONTEXT_COMPRESSOR_OPENAI_BASE_URL: "http://127.0.0.1:8080/v1",
      OPENAI_API_KEY: Redacted.make("sk-openai")
    }
    const home = SummarizerChatCompletions.apiKeyFor("http://127.0.0.1:8080/other/path", env)
    assert.strictEqual(Redacted.value(home.apiKey!), "sk-own")
    const openai = SummarizerChatCompletions.apiKeyFor("https://api.openai.com/v1", env)
    assert.strictEqual(Redacted.value(openai.apiKey!), "sk-openai")
    assert.isUndefined(openai.withheld)
    const elsewhere = SummarizerChatCompletions.apiKeyFor("https://evil.example/v1", env)
    assert.isUndefined(elsewhere.apiKey)
    assert.include(elsewhere.withheld, "CONTEXT_COMPRESSOR_OPENAI_API_KEY is for http://127.0.0.1:8080")
    assert.deepStrictEqual(SummarizerChatCompletions.apiKeyFor("https://api.openai.com/v1", { OPENAI_API_KEY: "  " }), {
      apiKey: undefined,
      withheld: undefined
    })
    assert.isUndefined(SummarizerChatCompletions.apiKeyFor("not a url", { OPENAI_API_KEY: "sk" }).apiKey)
  })

  it.effect("layerConfig defaults to OpenAI's API root, 60 seconds and no key", () =>
    Effect.gen(function*() {
      const options = yield* SummarizerChatCompletions.config
      assert.strictEqual(options.baseUrl, "https://api.openai.com/v1")
      assert.isUndefined(options.apiKey)
      assert.strictEqual(String(options.timeout), String(SummarizerChatCompletions.defaultTimeout))
    }).pipe(TestCompat.withConfigFrom([["OPENAI_API_KEY", " "]])))

  it("the engine's two attempts at the default timeout fit the default checkpoint deadline of 120 seconds", () => {
    assert.strictEqual(Duration.toMillis(Compactor.defaultSummaryDeadline), 120_000)
    assert.isAtMost(
      2 * Duration.toMillis(SummarizerChatCompletions.defaultTimeout),
      Duration.toMillis(Compactor.defaultSummaryDeadline)
    )
  })
})

// --- the engine over the chat-completions summariser ---------------------------

const longSession = Generated.fromTurns(
  Array.from({ length: 12 }, (_, i) => ({
    user: `request ${i}: ` + "please fix the parser cache ".repeat(20),
    steps: [[
      {
        name: "bash",
        args: JSON.stringify({ command: `cat src/file${i}.ts` }),
        result: `<returncode>0</returncode>\n<output>\n${"line of code\n".repeat(300)}</output>`
      }
    ]],
    reply: `done with step ${i}`,
    accept: false
  }))
)

const goodSummary = (marker: string) =>
  SummaryPrompt.generalSections.map((heading) =>
    `${heading}\n${marker}: what the session did for ${heading.slice(3).toLowerCase()}, in a full sentence.`
  ).join("\n\n")

const engine = (baseUrl: string) =>
  Compactor.layer({ policies: builtInPolicies }).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        SummarizerChatCompletions.layer({ baseUrl }).pipe(Layer.provide(Compat.nodeHttpClient)),
        SummaryCacheMemory.layer,
        CompactionStoreMemory.layer,
        SettingsFixed.layer({ replyReserveTokens: 200 }),
        TokenizerApprox.layer,
        AttentionUnattended.layer
      )
    )
  )

const checkpointAgainst = (script: ReadonlyArray<Server.Reply>) =>
  Effect.gen(function*() {
    const server = yield* Server.start(script)
    const result = yield* Effect.flatMap(Compactor.Compactor, (compactor) =>
      compactor.checkpoint({ sessionId: "s1", transcript: longSession, model: "test-model", contextWindow: 8_000 }))
      .pipe(
        Effect.provide(engine(server.baseUrl))
      )
    return { result, report: Option.getOrThrow(result.compacted), received: yield* server.received }
  })

describe("Compactor over the chat-completions summariser", () => {
  it("the scripted summaries pass the quality gate", () => {
    assert.isTrue(TestCompat.isSuccess(QualityGate.check(goodSummary("x"), { agentic: false })))
  })

  it.scopedLive("a good summary from the server is used: one call, no cache hit, the summary in the block", () =>
    Effect.gen(function*() {
      const { received, report, result } = yield* checkpointAgainst([Server.completion(goodSummary("FROM-THE-SERVER"))])
      assert.strictEqual(report.fallback, "none")
      assert.isFalse(report.cacheHit)
      assert.strictEqual(report.summarizerCalls, 1)
      assert.deepStrictEqual(report.gate, ["passed"])
      assert.strictEqual(report.summaryChars, goodSummary("FROM-THE-SERVER").length)
      assert.include(result.view.find((m) => m._tag === "Compacted")!.content, "FROM-THE-SERVER")
      assert.strictEqual(received.length, 1)
      const body = received[0]!.body as {
        model: string
        max_tokens: number
        messages: ReadonlyArray<{ role: string; content: string }>
      }
      assert.strictEqual(body.model, "test-model")
      assert.strictEqual(body.max_tokens, SettingsFixed.settings({ replyReserveTokens: 200 }).summaryMaxTokens)
      assert.deepStrictEqual(body.messages.map((m) => m.role), ["system", "user"])
      assert.include(body.messages[1]!.content, SummaryPrompt.transcriptOpen)
      assert.isTrue(body.messages[1]!.content.trimEnd().endsWith(SummaryPrompt.firstHeading))
    }))

  it.scopedLive("a server error then a good summary: the engine's one retry succeeds and the summary is used", () =>
    Effect.gen(function*() {
      const { received, report, result } = yield* checkpointAgainst([
        Server.error(503, "overloaded"),
        Server.completion(goodSummary("SECOND-TRY"))
      ])
      assert.strictEqual(report.fallback, "none")
      assert.isFalse(report.cacheHit)
      assert.strictEqual(report.summarizerCalls, 2)
      assert.deepStrictEqual(report.gate, ["summarizer: server-error", "passed"])
      assert.include(result.view.find((m) => m._tag === "Compacted")!.content, "SECOND-TRY")
      assert.strictEqual(received.length, 2)
      assert.deepStrictEqual(received[1]!.body, received[0]!.body)
    }))

  it.scopedLive("two failures in a row: the unattended session trims after the one retry, no third call", () =>
    Effect.gen(function*() {
      const { received, report } = yield* checkpointAgainst([
        Server.error(500, "boom"),
        Server.completion("", "length"),
        Server.completion(goodSummary("never"))
      ])
      assert.strictEqual(report.fallback, "trim")
      assert.deepStrictEqual(report.gate, ["summarizer: server-error", "summarizer: cut-off"])
      assert.strictEqual(received.length, 2)
    }))
})

describe("SummarizerChatCompletions: the shared-prefix request", () => {
  const cachedCompletion = (content: string): Server.Reply => ({
    json: {
      id: "chatcmpl-cached",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "served-model",
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      usage: {
        prompt_tokens: 1_200,
        completion_tokens: 40,
        total_tokens: 1_240,
        prompt_tokens_details: { cached_tokens: 1_024 }
      }
    }
  })

  it.scopedLive("is sent as the view's messages in the chat format and one user message last, with no system message of ours; the cached input tokens are read", () =>
    Effect.gen(function*() {
      const server = yield* Server.start([cachedCompletion(summary)])
      // The HTTP client is given to the whole test: Effect 4 closes a layer given to one effect when it ends.
      const summarizer = yield* SummarizerChatCompletions.make({ baseUrl: server.baseUrl })
      const prefix = longSession.slice(0, 5)
      const shared = new Summarizer.SummaryRequest({ ...request, prefix })
      const reply = yield* summarizer.summarizeWithUsage!(shared)
      assert.strictEqual(reply.text, summary)
      assert.deepStrictEqual(reply.usage, { inputTokens: 1_200, cachedInputTokens: 1_024 })
      const [sent] = yield* server.received
      const messages = (sent!.body as { messages: ReadonlyArray<{ role: string; content: unknown }> }).messages
      assert.deepStrictEqual(messages.slice(0, -1), SummarizerChatCompletions.chatMessagesOf(prefix))
      assert.deepStrictEqual(messages.map((m) => m.role), ["system", "user", "assistant", "tool", "assistant", "user"])
      assert.deepStrictEqual(messages.at(-1), { role: "user", content: request.prompt })
      assert.notInclude(JSON.stringify(messages), request.system)
    }).pipe(Effect.provide(Compat.nodeHttpClient)))

  const sharedEngine = (baseUrl: string) =>
    Compactor.layer({ policies: builtInPolicies }).pipe(
      Layer.provide(
        Layer.mergeAll(
          SummarizerChatCompletions.layer({ baseUrl }).pipe(Layer.provide(Compat.nodeHttpClient)),
          SummaryCacheMemory.layer,
          CompactionStoreMemory.layer,
          SettingsFixed.layer({ replyReserveTokens: 200, summaryRequest: "shared-prefix" }),
          TokenizerApprox.layer,
          AttentionUnattended.layer
        )
      )
    )

  it.scopedLive("in a session, a compaction asks with the view exactly as last given back, reports the shape and the provider's cached tokens; with no view given back since, it asks delimited", () =>
    Effect.gen(function*() {
      const server = yield* Server.start([
        cachedCompletion(goodSummary("SHARED")),
        cachedCompletion(goodSummary("AGAIN"))
      ])
      const outcome = yield* Effect.gen(function*() {
        const compactor = yield* Compactor.Compactor
        let last: ReadonlyArray<unknown> = []
        const compactions: Array<Compactor.Compacted> = []
        const sentBefore: Array<ReadonlyArray<unknown>> = []
        for (let end = 2; end <= longSession.length; end++) {
          const checkpoint = yield* compactor.checkpoint({
            sessionId: "shared",
            transcript: longSession.slice(0, end),
            model: "test-model",
            contextWindow: 8_000
          })
          if (Option.isSome(checkpoint.compacted)) {
            compactions.push(checkpoint.compacted.value)
            sentBefore.push(last)
          }
          last = SummarizerChatCompletions.chatMessagesOf(checkpoint.view)
        }
        return { compactions, sentBefore }
      }).pipe(Effect.provide(sharedEngine(server.baseUrl)))
      const received = yield* server.received
      assert.isAtLeast(outcome.compactions.length, 1)
      const first = outcome.compactions[0]!
      assert.strictEqual(first.summaryRequest, "shared-prefix")
      assert.deepStrictEqual(first.summarizerUsage, { inputTokens: 1_200, cachedInputTokens: 1_024 })
      const messages = (received[0]!.body as { messages: ReadonlyArray<unknown> }).messages
      assert.deepStrictEqual(messages.slice(0, -1), outcome.sentBefore[0])
      assert.include(JSON.stringify(messages.at(-1)), SummaryPrompt.sharedPrefixOpening)
      // A new engine has given back no view for the session: its compaction asks delimited.
      const fresh = yield* Effect.flatMap(
        Compactor.Compactor,
        (compactor) =>
          compactor.checkpoint({
            sessionId: "fresh",
            transcript: longSession,
            model: "test-model",
            contextWindow: 8_000
          })
      ).pipe(Effect.provide(sharedEngine(server.baseUrl)))
      assert.strictEqual(Option.getOrThrow(fresh.compacted).summaryRequest, "delimited")
      assert.strictEqual(
        (((yield* server.received).at(-1)!.body as { messages: ReadonlyArray<{ role: string }> }).messages[0]!).role,
        "system"
      )
    }))
})
