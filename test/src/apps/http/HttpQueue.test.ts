/**
 * `serve` and the proxy under a burst: compactions past the running limit wait in a bounded
 * queue instead of being refused; only past its bound or its deadline is the
 * answer 503, with a `Retry-After` from the queue's drain rate.
 */
import * as HttpCompat from "#compat-http"
import { it } from "#test-compat"
import * as TestCompat from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Http from "node:http"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as Summarizer from "../../../../src/face/services/Summarizer.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import { post, serve } from "../../../support/HttpTestServer.js"

/** A summariser that takes `millis` per summary and records how many summaries ran at once. */
const slowSummarizer = (millis: number) => {
  const seen = { now: 0, most: 0, calls: 0 }
  const layer = Layer.succeed(
    Summarizer.Summarizer,
    Summarizer.Summarizer.of({
      summarize: () =>
        Effect.acquireUseRelease(
          Effect.sync(() => {
            seen.calls++
            seen.most = Math.max(seen.most, ++seen.now)
          }),
          () =>
            Effect.as(
              Effect.sleep(`${millis} millis`),
              "The user asked for the parser to be fixed; the agent read the files and ran the tests."
            ),
          () => Effect.sync(() => void seen.now--)
        )
    })
  )
  return { layer, seen }
}

/** A chat history of its own session (its first user message differs), long enough to compact in a window of 4,000 tokens. */
const history = (client: number) => [
  { role: "system", content: "You are a coding agent." },
  ...Array.from({ length: 30 }, (_, turn) => ({
    role: turn % 2 === 0 ? "user" : "assistant",
    content: `client ${client} turn ${turn}: ` + "the parser drops the last token of a quoted string; ".repeat(16)
  }))
]

const compact = (base: string, client: number) =>
  post(`${base}/v1/compact`, { transcript: history(client), window: 4_000 })

describe("serve: a burst of compactions waits in the queue", () => {
  it.scopedLive(
    "50 concurrent compactions against a running limit of 2 are all answered 200, never more than 2 at once",
    () =>
      Effect.gen(function*() {
        const summarizer = slowSummarizer(20)
        const { base } = yield* serve({ maxCompactions: 2, summarizer: summarizer.layer })
        const answers = yield* Effect.forEach(Array.from({ length: 50 }, (_, client) => client), (client) =>
          compact(base, client), { concurrency: "unbounded" })
        assert.deepStrictEqual(
          answers.map((answer) =>
            answer.status
          ),
          answers.map(() => 200),
          JSON.stringify(answers.find((answer) => answer.status !== 200)?.body)
        )
        assert.isAtLeast(summarizer.seen.calls, 50)
        assert.isAtMost(summarizer.seen.most, 2)
        const waits = answers.map((answer) =>
          Number(/queue;dur=(\d+)/.exec(answer.headers.get("server-timing") ?? "")?.[1])
        )
        assert.isTrue(waits.every(Number.isFinite), "every answer says how long it waited")
        assert.isAbove(Math.max(...waits), 0, "some compactions waited for a place")
      }),
    60_000
  )

  it.scopedLive(
    "past the queue's bound a compaction gets 503 Busy at once, with a Retry-After that is not 0; the ones queued are answered",
    () =>
      Effect.gen(function*() {
        const summarizer = slowSummarizer(400)
        const { base } = yield* serve({ maxCompactions: 1, maxQueue: 1, summarizer: summarizer.layer })
        const first = yield* TestCompat.forkChild(compact(base, 1))
        yield* Effect.sleep("100 millis")
        const second = yield* TestCompat.forkChild(compact(base, 2))
        yield* Effect.sleep("100 millis")
        const third = yield* compact(base, 3)
        assert.strictEqual(third.status, 503)
        assert.strictEqual(third.body._tag, "Busy")
        assert.strictEqual(third.body.limit, "compactions waiting")
        const retryAfter = Number(third.headers.get("retry-after"))
        assert.isTrue(
          Number.isInteger(retryAfter) && retryAfter >= 1,
          `Retry-After: ${third.headers.get("retry-after")}`
        )
        assert.include(third.body.message, `retry in ${retryAfter} s`)
        assert.strictEqual((yield* Fiber.join(first)).status, 200)
        assert.strictEqual((yield* Fiber.join(second)).status, 200)
      }),
    30_000
  )

  it.scopedLive(
    "a compaction that waits past the queue's deadline gets 503 Busy with a Retry-After that is not 0",
    () =>
      Effect.gen(function*() {
        const summarizer = slowSummarizer(1_200)
        const { base } = yield* serve({ maxCompactions: 1, queueTimeoutMs: 300, summarizer: summarizer.layer })
        const first = yield* TestCompat.forkChild(compact(base, 1))
        yield* Effect.sleep("100 millis")
        const started = Date.now()
        const late = yield* compact(base, 2)
        const waited = Date.now() - started
        assert.strictEqual(late.status, 503)
        assert.strictEqual(late.body.limit, "milliseconds a compaction waits")
        assert.strictEqual(late.body.max, 300)
        assert.isAtLeast(Number(late.headers.get("retry-after")), 1)
        assert.isAtLeast(waited, 250)
        assert.isBelow(waited, 1_000, "refused at the deadline, not when the running one ended")
        assert.strictEqual((yield* Fiber.join(first)).status, 200)
      }),
    30_000
  )
})

/** The proxy in front of a fake upstream, over the test layers with `summarizer`; its base URL. */
const proxy = (summarizer: Layer.Layer<Summarizer.Summarizer>, options: Partial<Proxy.Options>) =>
  Effect.gen(function*() {
    const fake = yield* Effect.acquireRelease(
      Effect.promise(() => FakeUpstream.start()),
      (f) => Effect.promise(() => f.close())
    )
    const engine = Compactor.layer({ policies: builtInPolicies }).pipe(
      Layer.provideMerge(Layer.merge(Testing.layer(), summarizer))
    )
    const context = yield* Layer.build(
      Proxy.layer({ upstream: fake.url, window: 4_000, ...options }).pipe(
        Layer.provideMerge(HttpCompat.layerNodeServer(() => Http.createServer(), { port: 0, host: "127.0.0.1" })),
        Layer.provideMerge(engine),
        Layer.provide(HttpCompat.layerUndiciAgent({}))
      )
    )
    const address = HttpCompat.tcpAddress(Context.get(context, HttpCompat.HttpServer.HttpServer).address)
    if (address === undefined) throw new Error("not a TCP address")
    return { base: `http://127.0.0.1:${address.port}`, fake }
  })

const chat = (base: string, client: number) =>
  post(`${base}/v1/chat/completions`, { model: "gpt-test", messages: history(client) }, {
    [Proxy.sessionHeader]: `client-${client}`
  })

describe("proxy: a burst of compactions waits in the queue", () => {
  it.scopedLive(
    "50 concurrent chat requests against a running limit of 2 are all answered 200, never more than 2 compactions at once",
    () =>
      Effect.gen(function*() {
        const summarizer = slowSummarizer(20)
        const { base } = yield* proxy(summarizer.layer, { maxCompactions: 2 })
        const answers = yield* Effect.forEach(Array.from({ length: 50 }, (_, client) => client), (client) =>
          chat(base, client), { concurrency: "unbounded" })
        assert.deepStrictEqual(
          answers.map((answer) =>
            answer.status
          ),
          answers.map(() => 200)
        )
        assert.isTrue(answers.every((answer) => (answer.headers.get(Proxy.reportHeader) ?? "").startsWith("compacted")))
        assert.isAtLeast(summarizer.seen.calls, 50)
        assert.isAtMost(summarizer.seen.most, 2)
      }),
    60_000
  )

  it.scopedLive(
    "past the queue's bound a chat request gets 503 overloaded with a Retry-After that is not 0, and nothing reaches the upstream for it",
    () =>
      Effect.gen(function*() {
        const summarizer = slowSummarizer(400)
        const { base, fake } = yield* proxy(summarizer.layer, { maxCompactions: 1, maxQueue: 1 })
        const first = yield* TestCompat.forkChild(chat(base, 1))
        yield* Effect.sleep("100 millis")
        const second = yield* TestCompat.forkChild(chat(base, 2))
        yield* Effect.sleep("100 millis")
        const third = yield* chat(base, 3)
        assert.strictEqual(third.status, 503)
        assert.strictEqual(third.body.error.type, "overloaded")
        assert.isAtLeast(Number(third.headers.get("retry-after")), 1)
        assert.strictEqual((yield* Fiber.join(first)).status, 200)
        assert.strictEqual((yield* Fiber.join(second)).status, 200)
        assert.strictEqual(fake.received.length, 2)
      }),
    30_000
  )
})
