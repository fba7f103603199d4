import * as Compat from "#compat"
import * as HttpCompat from "#compat-http"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as Server from "../../../../src/apps/http/HttpServer.js"
import * as ViewRepair from "../../../../src/core/checkpoint/ViewRepair.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Reduce from "../../../../src/face/engine/Reduce.js"
import * as SummarizerOffline from "../../../../src/face/layers/SummarizerOffline.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as Summarizer from "../../../../src/face/services/Summarizer.js"
import * as Histories from "../../../support/Histories.js"

const repository = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))

const session: ReadonlyArray<Record<string, unknown>> = JSON.parse(
  Fs.readFileSync(NodePath.join(repository, "examples/session/agent-session.json"), "utf8")
)
const toolMessages = (messages: ReadonlyArray<Record<string, unknown>>) =>
  messages.filter((message) => message["role"] === "tool").length

const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-http-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/** A server on 127.0.0.1 and a free port, over `directory`, for as long as the scope lasts; its base URL. */
const serve = (options: Server.Options = {}) =>
  Effect.gen(function*() {
    const directory = options.directory ?? (yield* tempDir)
    const context = yield* Layer.build(Server.layerNode({ port: 0, env: () => ({}), ...options, directory }))
    const address = HttpCompat.tcpAddress(Context.get(context, HttpCompat.HttpServer.HttpServer).address)
    if (address === undefined) throw new Error("not a TCP address")
    return { base: `http://127.0.0.1:${address.port}`, directory }
  })

interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: any
}

const send = (url: string, init: RequestInit = {}): Effect.Effect<Answer> =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    const text = await response.text()
    return { status: response.status, headers: response.headers, body: text === "" ? undefined : JSON.parse(text) }
  })

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  send(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })

/** Reads the events of a text/event-stream response, each call until `done` says so. */
const eventReader = (response: Response) => {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  const events: Array<string> = []
  let buffer = ""
  return (done: (events: ReadonlyArray<string>) => boolean) =>
    Effect.promise(async () => {
      while (!done(events)) {
        const { value, done: ended } = await reader.read()
        if (ended) break
        buffer += value
        let end: number
        while ((end = buffer.indexOf("\n\n")) !== -1) {
          events.push(buffer.slice(0, end))
          buffer = buffer.slice(end + 2)
        }
      }
      return events
    })
}

describe("settings", () => {
  it.scopedLive("GET gives the settings in effect, their ranges and no overrides on a new folder", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const answer = yield* send(`${base}/v1/settings/compaction`)
      assert.strictEqual(answer.status, 200)
      assert.deepStrictEqual(answer.body.settings, {
        trigger_pct: 80,
        cap_tokens: 250_000,
        summary_max_tokens: 16_000,
        summarizer_model: null,
        keep_fraction: 0.3,
        envelope_cap_chars: 4_000,
        reply_reserve_tokens: 4_096,
        target_after_pct: 50,
        summary_request: "delimited"
      })
      assert.deepStrictEqual(answer.body.overrides, {})
      assert.deepStrictEqual(answer.body.ranges.trigger_pct, [10, 95])
      assert.deepStrictEqual(answer.body.ranges.cap_tokens, [10_000, 2_000_000])
    }))

  it.scopedLive("POST clamps numbers into their range and says so, takes snake or camel keys, and a new server on the folder reads them back", () =>
    Effect.gen(function*() {
      const directory = yield* tempDir
      const changed = yield* Effect.scoped(Effect.gen(function*() {
        const { base } = yield* serve({ directory })
        return yield* post(`${base}/v1/settings/compaction`, {
          trigger_pct: 99,
          capTokens: "5",
          summarizer_model: "small-model"
        })
      }))
      assert.strictEqual(changed.status, 200)
      assert.strictEqual(changed.body.settings.trigger_pct, 95)
      assert.strictEqual(changed.body.settings.cap_tokens, 10_000)
      assert.strictEqual(changed.body.settings.summarizer_model, "small-model")
      assert.deepStrictEqual(changed.body.clamped, [
        { key: "trigger_pct", given: 99, stored: 95, allowed: "a number from 10 to 95" },
        { key: "cap_tokens", given: 5, stored: 10_000, allowed: "a number from 10000 to 2000000" }
      ])
      const { base } = yield* serve({ directory })
      const reread = yield* send(`${base}/v1/settings/compaction`)
      assert.deepStrictEqual(reread.body.overrides, {
        trigger_pct: 95,
        cap_tokens: 10_000,
        summarizer_model: "small-model"
      })
      const reset = yield* post(`${base}/v1/settings/compaction`, {
        trigger_pct: null,
        cap_tokens: null,
        summarizerModel: null
      })
      assert.deepStrictEqual(reset.body.overrides, {})
      assert.strictEqual(reset.body.settings.trigger_pct, 80)
      assert.strictEqual(reset.body.settings.summarizer_model, null)
    }))

  it.scopedLive("a refused value gets 400 naming the key and its range, and nothing of the change is written", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const notNumber = yield* post(`${base}/v1/settings/compaction`, { trigger_pct: 50, cap_tokens: "lots" })
      assert.strictEqual(notNumber.status, 400)
      assert.strictEqual(notNumber.body._tag, "InvalidSetting")
      assert.strictEqual(notNumber.body.key, "cap_tokens")
      assert.strictEqual(notNumber.body.allowed, "a number from 10000 to 2000000")
      assert.include(notNumber.body.message, "cap_tokens")
      const unknown = yield* post(`${base}/v1/settings/compaction`, { trigger_percent: 50 })
      assert.strictEqual(unknown.status, 400)
      assert.strictEqual(unknown.body.key, "trigger_percent")
      assert.include(unknown.body.message, "trigger_pct")
      const wrongType = yield* post(`${base}/v1/settings/compaction`, { trigger_pct: true })
      assert.strictEqual(wrongType.status, 400)
      assert.strictEqual(wrongType.body._tag, "HttpApiDecodeError")
      assert.deepStrictEqual(wrongType.body.issues[0].path, ["trigger_pct"])
      const after = yield* send(`${base}/v1/settings/compaction`)
      assert.deepStrictEqual(after.body.overrides, {})
    }))
})

describe("compact", () => {
  it.scopedLive("compacts a transcript past the trigger: the view in its own format, the report, the view message by message and each tool result's reduction", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const answer = yield* post(`${base}/v1/compact`, { transcript: JSON.stringify(session), window: 128_000 })
      assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
      const { container, output, report, toolResults, view } = answer.body
      assert.strictEqual(report.format, "openai")
      assert.strictEqual(report.messages, session.length)
      assert.strictEqual(report.trigger, 102_400)
      assert.isNotNull(report.compacted)
      assert.isBelow(report.tokensAfter, report.trigger)
      assert.strictEqual(container, "json")
      assert.strictEqual(output.length, report.viewMessages)
      assert.isTrue(
        output.some((message: any) => message.role === "user" && message.content.startsWith("# Context compacted"))
      )
      const blocks = view.filter((message: any) => message.role === "compacted")
      assert.strictEqual(blocks.length, 1)
      assert.isAbove(blocks[0].tokensBefore, blocks[0].tokens)
      assert.strictEqual(view.reduce((sum: number, message: any) => sum + message.tokens, 0), report.tokensAfter)
      assert.strictEqual(toolResults.length, toolMessages(session))
      assert.isTrue(
        toolResults.some((result: any) => !result.inView) && toolResults.some((result: any) => result.inView)
      )
      const reduced = toolResults.find((result: any) =>
        result.route === "envelope" && result.tokensAfter < result.tokensBefore
      )
      assert.isDefined(reduced)
      assert.isAbove(reduced.totals.kept, 0)
      assert.strictEqual(reduced.capChars, 4_000)
    }))

  it.scopedLive("a newest tool result too big for the window is clipped without a compaction: the report names the ladder's step, the view the clipped message", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const history = Histories.toOpenAiChat(Histories.hugeNewestResult)
      const answer = yield* post(`${base}/v1/compact`, {
        transcript: history,
        window: Histories.hugeNewestResultWindow
      })
      assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
      const { report, view } = answer.body
      assert.isNull(report.compacted)
      const last = `m${history.length - 1}`
      const clip = report.ladder.find((step: any) => step.step === "clip-messages")
      assert.deepStrictEqual(clip?.messageIds, [last], JSON.stringify(report.ladder))
      assert.deepStrictEqual(report.repairs, [])
      assert.isAbove(report.tokensBefore, report.tokensAfter)
      assert.isAtMost(report.tokensAfter, report.trigger)
      const clipped = view.find((message: any) => message.id === last)
      assert.isAbove(clipped.tokensBefore, clipped.tokens)
      assert.include(clipped.text, `clipped tool result ${last} in this view`)
    }))

  it.scopedLive("a tool call whose result was lost is answered in the view without a compaction: the report names the repair", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const history = Histories.toOpenAiChat(Histories.lostResult)
      const answer = yield* post(`${base}/v1/compact`, { transcript: history })
      assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
      const { output, report, view } = answer.body
      assert.isNull(report.compacted)
      assert.deepStrictEqual(report.ladder, [])
      assert.deepStrictEqual(report.repairs.map((r: any) => [r.kind, r.toolCallId]), [["lost-result", "call_1"]])
      assert.strictEqual(report.viewMessages, history.length + 1)
      const synthetic = view.find((message: any) => message.toolCallId === "call_1")
      assert.strictEqual(synthetic.text, ViewRepair.lostResultText)
      assert.isNull(synthetic.transcriptIndex)
      assert.isTrue(
        output.some((message: any) =>
          message.tool_call_id === "call_1" && message.content === ViewRepair.lostResultText
        )
      )
    }))

  it.scopedLive("instructions compact a transcript under the trigger, as a manual compaction that reports them", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const short = session.slice(0, 60)
      const answer = yield* post(`${base}/v1/compact`, {
        transcript: short,
        sessionId: "manual",
        instructions: "Keep the ids of the transactions."
      })
      assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
      assert.strictEqual(answer.body.report.compacted.cause, "manual")
      assert.strictEqual(answer.body.report.compacted.instructions, "Keep the ids of the transactions.")
      assert.isBelow(answer.body.report.viewMessages, short.length)
    }))

  it.scopedLive("the parsed document is taken as well as its text, and a JSON Lines text comes back as JSON Lines", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const short = session.slice(0, 6)
      const parsed = yield* post(`${base}/v1/compact`, { transcript: short })
      assert.strictEqual(parsed.status, 200)
      assert.isNull(parsed.body.report.compacted)
      assert.deepStrictEqual(parsed.body.output, short)
      const lines = yield* post(`${base}/v1/compact`, {
        transcript: short.map((message) => JSON.stringify(message)).join("\n")
      })
      assert.strictEqual(lines.body.container, "jsonl")
    }))

  it.scopedLive("a growing transcript posted again continues its session, and a setting changed meanwhile applies at its next checkpoint", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const first = yield* post(`${base}/v1/compact`, { transcript: session.slice(0, 300) })
      assert.strictEqual(first.body.report.compacted.compactions, 1)
      const grown = yield* post(`${base}/v1/compact`, { transcript: session })
      assert.strictEqual(grown.body.report.sessionId, first.body.report.sessionId)
      assert.isNull(grown.body.report.compacted)
      assert.isTrue(
        grown.body.view.some((message: any) => message.role === "compacted"),
        "the session's block stays in the view"
      )
      assert.strictEqual(grown.body.report.trigger, 102_400)
      yield* post(`${base}/v1/settings/compaction`, { trigger_pct: 20 })
      const next = yield* post(`${base}/v1/compact`, { transcript: session })
      assert.strictEqual(next.body.report.trigger, 25_600)
      assert.strictEqual(next.body.report.compacted.compactions, 2)
      assert.strictEqual(next.body.report.compacted.trigger, 25_600)
    }))

  it.scopedLive("the summariser model pinned in the settings summarises the next compaction; unpinned, the session's own model does", () =>
    Effect.gen(function*() {
      const models: Array<string> = []
      const recording = Layer.effect(
        Summarizer.Summarizer,
        Effect.map(Summarizer.Summarizer, (offline) => ({
          summarize: (request: Summarizer.SummaryRequest) =>
            Effect.suspend(() => (models.push(request.model), offline.summarize(request)))
        }))
      ).pipe(Layer.provide(SummarizerOffline.layer))
      const { base } = yield* serve({ summarizer: recording })
      yield* post(`${base}/v1/settings/compaction`, { summarizer_model: "pinned-model" })
      yield* post(`${base}/v1/compact`, { transcript: session, sessionId: "pinned", model: "session-model" })
      assert.deepStrictEqual(Array.from(new Set(models)), ["pinned-model"])
      models.length = 0
      yield* post(`${base}/v1/settings/compaction`, { summarizer_model: null })
      yield* post(`${base}/v1/compact`, { transcript: session, sessionId: "unpinned", model: "session-model" })
      assert.deepStrictEqual(Array.from(new Set(models)), ["session-model"])
    }))

  it.scopedLive("a window too small for what must stay gets 422 naming the window", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const answer = yield* post(`${base}/v1/compact`, { transcript: session, window: 1_000 })
      assert.strictEqual(answer.status, 422, JSON.stringify(answer.body))
      assert.strictEqual(answer.body._tag, "CompactionFailed")
      assert.include(answer.body.message, "1000 tokens")
    }))
})

describe("events", () => {
  it.scopedLive("GET /v1/events streams a Compacted event for every compaction, with keep-alive comments between them", () =>
    Effect.gen(function*() {
      const { base } = yield* serve({ keepAliveMs: 50 })
      const controller = new AbortController()
      yield* Effect.addFinalizer(() => Effect.sync(() => controller.abort()))
      const response = yield* Effect.promise(() => fetch(`${base}/v1/events`, { signal: controller.signal }))
      assert.strictEqual(response.status, 200)
      assert.include(response.headers.get("content-type"), "text/event-stream")
      const read = eventReader(response)
      const opened = yield* read((events) => events.some((event) => event.startsWith(": keep-alive")))
      assert.isTrue(opened[0]!.startsWith("event: ready"))
      yield* post(`${base}/v1/compact`, { transcript: session, sessionId: "watched" })
      const events = yield* read((events) => events.some((event) => event.startsWith("event: compacted")))
      const compacted = events.find((event) => event.startsWith("event: compacted"))!
      const data = JSON.parse(compacted.split("\n").find((line) => line.startsWith("data: "))!.slice(6))
      const report = Schema.decodeUnknownSync(Compactor.Compacted)(data)
      assert.strictEqual(report.sessionId, "watched")
      assert.strictEqual(report.compactions, 1)
    }))

  it.live("closing the server ends the open event streams instead of waiting for their clients", () =>
    Effect.gen(function*() {
      const reader = yield* Effect.scoped(Effect.gen(function*() {
        const { base } = yield* serve()
        const response = yield* Effect.promise(() => fetch(`${base}/v1/events`))
        const reader = response.body!.getReader()
        yield* Effect.promise(() => reader.read())
        return reader
      })).pipe(
        Compat.timeoutOrElse({
          duration: "5 seconds",
          orElse: () => Effect.fail(new Error("the server did not close"))
        })
      )
      const ended = yield* Effect.promise(async () => {
        for (;;) {
          const chunk = await reader.read().catch(() => ({ done: true }))
          if (chunk.done) return true
        }
      })
      assert.isTrue(ended)
    }))
})

describe("reduce", () => {
  it.scopedLive("POST /v1/reduce reduces one envelope with the built-in policies: the reduced envelope and the rule report", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const envelope = JSON.parse(
        Fs.readFileSync(NodePath.join(repository, "examples/envelopes/command-output.json"), "utf8")
      )
      const answer = yield* post(`${base}/v1/reduce`, { envelope, cap: 4_000 })
      assert.strictEqual(answer.status, 200)
      const expected = Reduce.reduce(envelope, { policies: builtInPolicies, cap: 4_000 })
      assert.strictEqual(answer.body.text, expected.text)
      assert.deepStrictEqual(answer.body.value, expected.value)
      assert.strictEqual(answer.body.report.route, expected.report.route)
      assert.strictEqual(answer.body.report.policy, "agentic-workspace/v1")
      assert.isAbove(answer.body.totals.kept, 0)
      const tooSmall = yield* post(`${base}/v1/reduce`, { envelope, cap: 10 })
      assert.strictEqual(tooSmall.status, 400)
      assert.deepStrictEqual(tooSmall.body.issues[0].path, ["cap"])
    }))
})

describe("bad requests", () => {
  it.scopedLive("each gets a 4xx with a JSON body naming the problem, and the server goes on serving", () =>
    Effect.gen(function*() {
      const { base } = yield* serve({ maxBodyBytes: 64 * 1024 })
      const badJson = yield* send(`${base}/v1/compact`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{\"transcript\": ["
      })
      assert.strictEqual(badJson.status, 400)
      assert.strictEqual(badJson.body._tag, "InvalidJson")
      assert.include(badJson.body.message, "not valid JSON")
      const wrongType = yield* post(`${base}/v1/compact`, { transcript: "[]", window: "large" })
      assert.strictEqual(wrongType.status, 400)
      assert.strictEqual(wrongType.body._tag, "HttpApiDecodeError")
      assert.deepStrictEqual(wrongType.body.issues[0].path, ["window"])
      const missing = yield* post(`${base}/v1/compact`, { window: 64_000 })
      assert.strictEqual(missing.status, 400)
      assert.deepStrictEqual(missing.body.issues[0].path, ["transcript"])
      const notTranscript = yield* post(`${base}/v1/compact`, { transcript: "{\"hello\": \"world\"}" })
      assert.strictEqual(notTranscript.status, 400)
      assert.strictEqual(notTranscript.body._tag, "InvalidTranscript")
      assert.include(notTranscript.body.message, "not a transcript in any known format")
      const badMessage = yield* post(`${base}/v1/compact`, {
        transcript: [{ role: "user", content: "hi" }, { role: "wizard", content: "x" }],
        format: "openai"
      })
      assert.strictEqual(badMessage.status, 400)
      assert.strictEqual(badMessage.body.index, 1)
      const tooLarge = yield* post(`${base}/v1/compact`, { transcript: "x".repeat(100 * 1024) })
      assert.strictEqual(tooLarge.status, 413)
      assert.strictEqual(tooLarge.body._tag, "PayloadTooLarge")
      assert.strictEqual(tooLarge.body.limitBytes, 64 * 1024)
      const unknown = yield* send(`${base}/v1/compactions`)
      assert.strictEqual(unknown.status, 404)
      assert.strictEqual(unknown.body._tag, "NotFound")
      assert.strictEqual(unknown.body.path, "/v1/compactions")
      const wrongMethod = yield* send(`${base}/v1/compact`)
      assert.strictEqual(wrongMethod.status, 404)
      const still = yield* send(`${base}/v1/settings/compaction`)
      assert.strictEqual(still.status, 200)
    }))

  it.scopedLive("a body sent as a form (curl -d) is read as JSON", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const answer = yield* send(`${base}/v1/settings/compaction`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: JSON.stringify({ trigger_pct: 70 })
      })
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(answer.body.settings.trigger_pct, 70)
    }))
})

describe("token", () => {
  it.scopedLive("a token protects every API route and unknown ones (401 with WWW-Authenticate: Bearer); the page and the OpenAPI description stay public", () =>
    Effect.gen(function*() {
      const { base } = yield* serve({ token: Redacted.make("s3cret") })
      const bearer = { authorization: "Bearer s3cret" }
      for (
        const [path, init] of [
          ["/v1/settings/compaction", {}],
          ["/v1/settings/compaction", { method: "POST", body: "{\"trigger_pct\": 50}" }],
          ["/v1/compact", { method: "POST", body: "{\"transcript\": \"[]\"}" }],
          ["/v1/reduce", { method: "POST", body: "{\"envelope\": {}}" }],
          ["/v1/events", {}],
          ["/v1/nothing-here", {}]
        ] as const
      ) {
        const answer = yield* send(`${base}${path}`, init)
        assert.strictEqual(answer.status, 401, `${path} without the token`)
        assert.strictEqual(answer.body._tag, "Unauthorized")
        assert.strictEqual(answer.headers.get("www-authenticate"), "Bearer")
      }
      const wrong = yield* send(`${base}/v1/settings/compaction`, { headers: { authorization: "Bearer guess" } })
      assert.strictEqual(wrong.status, 401)
      assert.include(wrong.body.message, "not this server's")
      const right = yield* send(`${base}/v1/settings/compaction`, { headers: bearer })
      assert.strictEqual(right.status, 200)
      const unknown = yield* send(`${base}/v1/nothing-here`, { headers: bearer })
      assert.strictEqual(unknown.status, 404)
      const page = yield* Effect.promise(() => fetch(`${base}/`))
      assert.strictEqual(page.status, 200)
      yield* Effect.promise(() => page.text())
      const description = yield* send(`${base}/v1/openapi.json`)
      assert.strictEqual(description.status, 200)
      const settings = yield* send(`${base}/v1/settings/compaction`, { headers: bearer })
      assert.deepStrictEqual(settings.body.overrides, {}, "the refused POST wrote nothing")
    }))
})

describe("page", () => {
  it.scopedLive("/ serves the inspector page, its script and stylesheet, under a policy that allows no other origin; /v1/openapi.json describes the API", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const page = yield* Effect.promise(() => fetch(`${base}/`))
      assert.strictEqual(page.status, 200)
      assert.include(page.headers.get("content-type"), "text/html")
      assert.include(page.headers.get("content-security-policy"), "default-src 'self'")
      const html = yield* Effect.promise(() => page.text())
      assert.include(html, "<script type=\"module\" src=\"/app.js\"></script>")
      for (const [path, type] of [["/app.js", "text/javascript"], ["/style.css", "text/css"]] as const) {
        const asset = yield* Effect.promise(() => fetch(`${base}${path}`))
        assert.strictEqual(asset.status, 200)
        assert.include(asset.headers.get("content-type"), type)
        yield* Effect.promise(() => asset.text())
      }
      const openApi = yield* send(`${base}/v1/openapi.json`)
      assert.strictEqual(openApi.status, 200)
      assert.strictEqual(openApi.body.info.title, "context-compressor")
      assert.deepStrictEqual(Object.keys(openApi.body.paths).sort(), [
        "/v1/compact",
        "/v1/events",
        "/v1/questions/{id}",
        "/v1/reduce",
        "/v1/settings/compaction"
      ])
      // The report's ladder and repairs are described, with their steps and kinds.
      const described = JSON.stringify(openApi.body.components?.schemas ?? openApi.body)
      for (
        const word of ["ladder", "repairs", "reduce-tool-results", "clip-messages", "lost-result", "duplicate-result"]
      ) assert.include(described, word)
    }))
})
