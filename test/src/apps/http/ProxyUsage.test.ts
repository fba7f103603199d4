/**
 * The token counts an upstream reports are the proxy's next signal, but a
 * count below the proxy's own of the same messages never lowers it, and the
 * messages a history gained since the reported request count on top.
 */
import * as Compat from "#compat"
import * as HttpCompat from "#compat-http"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fc from "fast-check"
import * as Http from "node:http"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as ProxyReported from "../../../../src/apps/http/ProxyReported.js"
import * as ProxyUsage from "../../../../src/apps/http/ProxyUsage.js"
import * as SameMessage from "../../../../src/core/checkpoint/SameMessage.js"
import * as OpenAiChat from "../../../../src/face/adapters/OpenAiChat.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import { prop } from "../../../support/Property.js"

const window = 16_000

/** A proxy with a window of 16,000 tokens in front of a fake upstream, over the test layers. */
const proxy = Effect.gen(function*() {
  const fake = yield* Effect.acquireRelease(
    Effect.promise(() => FakeUpstream.start()),
    (f) => Effect.promise(() => f.close())
  )
  const engine = Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provideMerge(Testing.layer()))
  const context = yield* Layer.build(
    Proxy.layer({ upstream: fake.url, window }).pipe(
      Layer.provideMerge(HttpCompat.layerNodeServer(() => Http.createServer(), { port: 0, host: "127.0.0.1" })),
      Layer.provideMerge(engine),
      Layer.provide(HttpCompat.layerUndiciAgent({}))
    )
  )
  const address = HttpCompat.tcpAddress(Context.get(context, HttpCompat.HttpServer.HttpServer).address)
  if (address === undefined) throw new Error("not a TCP address")
  return { fake, base: `http://127.0.0.1:${address.port}`, compactor: Context.get(context, Compactor.Compactor) }
})

/** The engine's count of the messages of a chat-completions body. */
const ownCount = (compactor: Compactor.Service, body: unknown): number =>
  Compat.matchResult(OpenAiChat.adapter.decodeResult(body), {
    onFailure: (error) => {
      throw new Error(error.reason)
    },
    onSuccess: (decoded) => decoded.transcript.reduce((sum, message) => sum + compactor.tokensOf(message), 0)
  })

/** A session that gains about 3,000 tokens a turn: an answer and a question of 6,000 characters each. */
const turns = (count: number) => [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "Find why the parser drops the last token of a quoted string." },
  ...Array.from({ length: count }, (_, turn) => [
    {
      role: "assistant",
      content: `Step ${turn}: ` + "I read src/parser.ts and traced the quoted string through the lexer. ".repeat(86)
    },
    {
      role: "user",
      content: `Turn ${turn}: ` +
        "Go on; the failing case is a string that ends the input without a newline. ".repeat(78)
    }
  ]).flat()
]

/**
 * Sends the session turn by turn, the upstream reporting `report(ownCount)` for
 * each request; the turn of the first compaction and the largest count sent.
 */
const grow = (report: (own: number) => number) =>
  Effect.gen(function*() {
    const { base, compactor, fake } = yield* proxy
    fake.usageOf = (request) => Math.round(report(ownCount(compactor, request.body)))
    let firstCompaction: number | undefined
    let largestSent = 0
    const headers: Array<string> = []
    for (let turn = 1; turn <= 8; turn++) {
      const answer = yield* Effect.promise(() =>
        fetch(`${base}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "gpt-test", messages: turns(turn) })
        })
          .then(async (response) => ({
            status: response.status,
            header: response.headers.get(Proxy.reportHeader) ?? "",
            text: await response.text()
          }))
      )
      assert.strictEqual(answer.status, 200, answer.text)
      headers.push(answer.header)
      if (firstCompaction === undefined && answer.header.startsWith("compacted")) firstCompaction = turn
      largestSent = Math.max(largestSent, ownCount(compactor, fake.received.at(-1)!.body))
    }
    return { firstCompaction, largestSent, headers }
  })

describe("Proxy: what the upstream reports", () => {
  it.scopedLive(
    "reports of 1, of half and of all of the proxy's own count compact the growing session at the same turn as no report at all, and nothing sent is past the window",
    () =>
      Effect.gen(function*() {
        const unreported = yield* grow(() => 0)
        assert.isDefined(unreported.firstCompaction, unreported.headers.join("\n"))
        for (
          const [name, report] of [["1 token", () => 1], ["half our count", (own: number) => own / 2], [
            "our count",
            (own: number) => own
          ]] as const
        ) {
          const reported = yield* grow(report)
          assert.strictEqual(
            reported.firstCompaction,
            unreported.firstCompaction,
            `${name}: ${reported.headers.join("\n")}`
          )
          assert.isAtMost(reported.largestSent, window, name)
        }
      }),
    60_000
  )

  it.scopedLive(
    "a report above the proxy's own count stays the signal (tools, images), with the messages added since on top",
    () =>
      Effect.gen(function*() {
        const unreported = yield* grow(() => 0)
        const overhead = yield* grow((own) => own + 4_000)
        assert.isDefined(overhead.firstCompaction)
        assert.isBelow(overhead.firstCompaction!, unreported.firstCompaction!, overhead.headers.join("\n"))
      }),
    60_000
  )

  it.scopedLive(
    "two conversations that open alike, taking turns: each is steered by its own reports and compacts at the turn it does alone",
    () =>
      Effect.gen(function*() {
        const overhead = (own: number) => own + 4_000
        const alone = yield* grow(overhead)
        assert.isDefined(alone.firstCompaction)
        const { base, compactor, fake } = yield* proxy
        fake.usageOf = (request) => Math.round(overhead(ownCount(compactor, request.body)))
        // The same system prompt and task; every later message its own.
        const second = (messages: ReadonlyArray<any>) =>
          messages.map((message, index) => index < 2 ? message : { ...message, content: `${message.content} (b)` })
        const first: Array<number | undefined> = [undefined, undefined]
        const headers: Array<string> = []
        for (let turn = 1; turn <= 8; turn++) {
          for (const run of [0, 1]) {
            const messages = run === 0 ? turns(turn) : second(turns(turn))
            const header = yield* Effect.promise(() =>
              fetch(`${base}/v1/chat/completions`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ model: "gpt-test", messages })
              }).then(async (response) => {
                await response.text()
                return response.headers.get(Proxy.reportHeader) ?? ""
              })
            )
            headers.push(`${run} at turn ${turn}: ${header}`)
            if (first[run] === undefined && header.startsWith("compacted")) first[run] = turn
          }
        }
        assert.deepStrictEqual(first, [alone.firstCompaction, alone.firstCompaction], headers.join("\n"))
      }),
    60_000
  )
})

describe("ProxyUsage.signalOf and ProxyReported", () => {
  const message = (id: string, text: string): Transcript.Message => new Transcript.UserMessage({ id, content: text })
  const tokensOf = (m: Transcript.Message) => Transcript.text(m).length
  const digests = SameMessage.digests()
  const history = [message("m0", "aaaa"), message("m1", "bbbbbbbb")]
  const basis = ProxyUsage.basisOf(history, history, tokensOf, digests)

  it("the signal is the report or the proxy's count of what was sent, whichever is larger, plus the messages added since", () => {
    assert.strictEqual(ProxyUsage.signalOf({ tokens: 3, basis }, history, tokensOf, digests), 12)
    assert.strictEqual(
      ProxyUsage.signalOf({ tokens: 3, basis }, [...history, message("m2", "cc")], tokensOf, digests),
      14
    )
    assert.strictEqual(
      ProxyUsage.signalOf({ tokens: 100, basis }, [...history, message("m2", "cc")], tokensOf, digests),
      102
    )
  })

  it("a history that does not continue the reported one gets no signal", () => {
    assert.isUndefined(ProxyUsage.signalOf({ tokens: 50, basis }, [history[0]!], tokensOf, digests))
    assert.isUndefined(
      ProxyUsage.signalOf(
        { tokens: 50, basis },
        [history[0]!, message("m1", "rewritten"), message("m2", "x")],
        tokensOf,
        digests
      )
    )
  })

  prop(
    "an edit anywhere in the reported history, to the same length or not, gives no signal; the same messages do",
    [
      fc.array(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 8 }),
      fc.nat(),
      fc.string({ minLength: 1, maxLength: 12 }),
      fc.boolean()
    ],
    ([texts, at, replacement, sameLength]) => {
      const reported = texts.map((text, index) => message(`m${index}`, text))
      const reportedBasis = ProxyUsage.basisOf(reported, reported, tokensOf, digests)
      // The same messages as new objects (a body read again): the same history.
      const again = texts.map((text, index) => message(`m${index}`, text))
      assert.isDefined(
        ProxyUsage.signalOf({ tokens: 1, basis: reportedBasis }, [...again, message("n", "x")], tokensOf, digests)
      )
      const index = at % texts.length
      const original = texts[index]!
      const edited = sameLength
        ? original.split("").map((c) => (c === "a" ? "b" : "a")).join("")
        : `${original}${replacement}`
      const next = texts.map((text, i) => message(`m${i}`, i === index ? edited : text))
      assert.isUndefined(
        ProxyUsage.signalOf({ tokens: 1, basis: reportedBasis }, [...next, message("n", "x")], tokensOf, digests)
      )
    }
  )

  prop(
    "a basis read back from its shared text is the same basis",
    [fc.nat(), fc.nat(), fc.hexaString({ minLength: 32, maxLength: 32 }), fc.option(fc.nat(), { nil: undefined })],
    ([counted, messages, history, compactions]) => {
      const basis = { counted, messages, history, ...(compactions === undefined ? {} : { compactions }) }
      assert.deepStrictEqual(ProxyUsage.basisText.decode(ProxyUsage.basisText.encode(basis)), basis)
    }
  )

  it("a text that is not a basis reads as none, an older version's (the last message's number) among them", () => {
    for (const text of ["", "[1,2]", "{\"counted\":1}", "[1,2,3]", "[1,2,3,0]", "[1,\"x\",\"y\"]", "not json"]) {
      assert.isUndefined(ProxyUsage.basisText.decode(text))
    }
  })

  it.effect("one process: a session never reported, or reported without a count, has no report; the newest report is kept", () =>
    Effect.gen(function*() {
      const reported = ProxyReported.make(undefined)
      reported.remember("s", 50, basis)
      reported.remember("t", undefined, basis)
      assert.deepStrictEqual(yield* reported.get("s"), { tokens: 50, basis })
      assert.isUndefined(yield* reported.get("t"))
      assert.isUndefined(yield* reported.get("other"))
      reported.remember("s", 70, basis)
      assert.strictEqual((yield* reported.get("s"))?.tokens, 70)
    }))
})
