import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import { afterAll, beforeAll } from "vitest"
import * as CompactorPromise from "../../../../src/apps/promise/index.js"
import * as SummaryPrompt from "../../../../src/face/engine/SummaryPrompt.js"
import * as ChatCompletionsServer from "../../../support/ChatCompletionsServer.js"
import * as Histories from "../../../support/Histories.js"
import * as Generated from "../../../transcripts.js"

const tempDir = () => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-promise-"))

const history = Histories.toOpenAiChat(Generated.longSession)
const shortHistory = history.slice(0, 4)

const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error("expected the promise to reject")
}

describe("createCompactor", () => {
  let directory: string
  let compactor: CompactorPromise.Compactor
  beforeAll(async () => {
    directory = tempDir()
    compactor = await CompactorPromise.createCompactor({ directory, env: {} })
  })
  afterAll(async () => {
    await compactor.close()
    Fs.rmSync(directory, { recursive: true, force: true })
  })

  it("gives a long OpenAI chat back compacted, in the same format, and the history unchanged", async () => {
    const before = JSON.stringify(history)
    const { format, messages, report, tokens, trigger } = await compactor.compact(history, {
      sessionId: "long",
      contextWindow: 8_000,
      model: "m"
    })
    assert.strictEqual(JSON.stringify(history), before)
    assert.strictEqual(format, "openai")
    assert.isDefined(report)
    assert.strictEqual(report!.sessionId, "long")
    assert.strictEqual(report!.compactions, 1)
    // At 8k the summary's view fits: the window's 1,600 tokens above the trigger are the reply's, none is reserved under it.
    assert.strictEqual(report!.fallback, "none")
    assert.strictEqual(report!.replyReserve, 0)
    assert.isBelow(report!.tokensAfter, report!.tokensBefore)
    assert.isAtMost(tokens, trigger)
    assert.isBelow(messages.length, history.length)
    // The system message stays first; the block is a user message right after it; the tail is the history's own objects.
    assert.deepStrictEqual(messages[0], history[0])
    assert.strictEqual(messages[1]!["role"], "user")
    assert.match(String(messages[1]!["content"]), /compacted|Summary|summary/)
    assert.strictEqual(messages[messages.length - 1], history[history.length - 1])
    // The next call of the session gives the same view without compacting again.
    const again = await compactor.compact(history, { sessionId: "long", contextWindow: 8_000, model: "m" })
    assert.isUndefined(again.report)
    assert.deepStrictEqual(again.messages, messages)
  })

  it("leaves a short history as it is, the same array, and derives a session id a growing history keeps", async () => {
    const first = await compactor.compact(shortHistory, { contextWindow: 128_000 })
    assert.deepStrictEqual(first.messages, shortHistory)
    first.messages.forEach((message, i) => assert.strictEqual(message, shortHistory[i]))
    assert.isUndefined(first.report)
    const grown = await compactor.compact(history.slice(0, 6), { contextWindow: 128_000 })
    assert.match(first.sessionId, /^session-[0-9a-f]{16}$/)
    assert.strictEqual(grown.sessionId, first.sessionId)
    const other = await compactor.compact([history[0]!, { role: "user", content: "another task" }], {
      contextWindow: 128_000
    })
    assert.notStrictEqual(other.sessionId, first.sessionId)
  })

  it("reports the ladder steps and repairs of a view changed without a compaction: a clipped newest result, a lost result answered", async () => {
    const huge = Histories.toOpenAiChat(Histories.hugeNewestResult)
    const clipped = await compactor.compact(huge, {
      sessionId: "huge",
      contextWindow: Histories.hugeNewestResultWindow
    })
    assert.isUndefined(clipped.report)
    const last = `m${huge.length - 1}`
    assert.deepStrictEqual(
      clipped.ladder.filter((step) => step.step === "clip-messages").map((step) => step.messageIds),
      [[last]]
    )
    assert.deepStrictEqual(clipped.repairs, [])
    assert.isAtMost(clipped.tokens, clipped.trigger)
    assert.isBelow(
      String(clipped.messages[clipped.messages.length - 1]!["content"]).length,
      String(huge[huge.length - 1]!["content"]).length
    )

    const lost = Histories.toOpenAiChat(Histories.lostResult)
    const repaired = await compactor.compact(lost, { sessionId: "lost", contextWindow: 128_000 })
    assert.isUndefined(repaired.report)
    assert.deepStrictEqual(repaired.ladder, [])
    assert.deepStrictEqual(repaired.repairs.map((r) => [r.kind, r.toolCallId]), [["lost-result", "call_1"]])
    assert.strictEqual(repaired.messages.length, lost.length + 1)
    assert.isTrue(repaired.messages.some((m) => m["role"] === "tool" && m["tool_call_id"] === "call_1"))
  })

  it("reads a JSON Lines text and gives back JSON Lines text", async () => {
    const text = history.map((message) => JSON.stringify(message)).join("\n") + "\n"
    const { format, messages } = await compactor.compact(text, { sessionId: "text", contextWindow: 8_000 })
    assert.strictEqual(format, "openai")
    assert.isString(messages)
    const lines = messages.trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>)
    assert.isBelow(lines.length, history.length)
    assert.deepStrictEqual(lines[0], history[0])
  })

  it("uses the reported context tokens instead of counting: a short history reported as full compacts", async () => {
    const small = history.slice(0, 12)
    const counted = await compactor.compact(small, { sessionId: "reported", contextWindow: 128_000 })
    assert.isUndefined(counted.report)
    // Past the trigger (102,400; the window's 25,600 above it are the reply's) by a fixed overhead the messages can make room for.
    const full = 102_400 + Math.floor(counted.tokens / 2)
    const reported = await compactor.compact(small, {
      sessionId: "reported",
      contextWindow: 128_000,
      reportedContextTokens: full
    })
    assert.isDefined(reported.report)
    assert.strictEqual(reported.report!.tokensBefore, full)
    assert.isAtMost(reported.tokens, 102_400)
    // An overhead that alone passes the trigger is refused, with both counts.
    const over = await rejection(
      compactor.compact(small, { sessionId: "reported", contextWindow: 128_000, reportedContextTokens: 127_000 })
    )
    assert.include((over as Error).message, "fixed overhead")
  })

  it("rejects a history of no known format, or not of the format named, with a TranscriptError naming the message", async () => {
    const unknown = await rejection(compactor.compact({ not: "a transcript" }, { contextWindow: 8_000 }))
    assert.instanceOf(unknown, CompactorPromise.TranscriptError)
    assert.instanceOf(unknown, CompactorPromise.CompressorError)
    assert.instanceOf(unknown, Error)
    assert.strictEqual((unknown as CompactorPromise.TranscriptError).reason, "invalid-transcript")
    assert.strictEqual((unknown as Error).name, "TranscriptError")
    const named = await rejection(
      compactor.compact([{ role: "user", content: "hi" }, { role: "robot", content: 1 }], {
        contextWindow: 8_000,
        format: "openai"
      })
    )
    assert.instanceOf(named, CompactorPromise.TranscriptError)
    assert.strictEqual((named as CompactorPromise.TranscriptError).format, "openai")
    assert.strictEqual((named as CompactorPromise.TranscriptError).index, 1)
  })

  it("rejects a format no adapter has with an OptionError listing auto and every adapter's format", async () => {
    const wrong = await rejection(
      compactor.compact([{ role: "user", content: "hi" }], { contextWindow: 8_000, format: "gemini" as never })
    )
    assert.instanceOf(wrong, CompactorPromise.OptionError)
    assert.include(
      (wrong as Error).message,
      "expected one of auto, openai, anthropic, effect-ai, ai-sdk, openai-responses, not gemini"
    )
  })

  it.effect.prop("rejects every context window that is not a positive number with an OptionError naming it", [
    fc.oneof(
      fc.constantFrom(0, -1, Number.NaN, Number.POSITIVE_INFINITY, -Infinity),
      fc.double({ max: 0 }),
      fc.string(),
      fc.constant(undefined),
      fc.constant(null)
    )
  ], ([contextWindow]) =>
    Effect.promise(async () => {
      const error = await rejection(compactor.compact(shortHistory, { contextWindow } as never))
      assert.instanceOf(error, CompactorPromise.OptionError)
      assert.strictEqual((error as CompactorPromise.OptionError).reason, "invalid-option")
      assert.strictEqual((error as CompactorPromise.OptionError).option, "contextWindow")
    }), { fastCheck: { numRuns: 30 } })

  it.effect.prop(
    "never rejects with anything but a CompressorError, whatever the history",
    [fc.anything()],
    ([document]) =>
      Effect.promise(async () => {
        try {
          await compactor.compact(document, { contextWindow: 8_000, sessionId: "anything" })
        } catch (error) {
          assert.instanceOf(error, CompactorPromise.CompressorError)
          assert.isString((error as CompactorPromise.CompressorError).reason)
        }
      }),
    { fastCheck: { numRuns: 100 } }
  )

  it("rejects with reason aborted when the call's signal is aborted", async () => {
    const controller = new AbortController()
    controller.abort()
    const error = await rejection(compactor.compact(history, { contextWindow: 8_000, signal: controller.signal }))
    assert.instanceOf(error, CompactorPromise.StateError)
    assert.strictEqual((error as CompactorPromise.StateError).reason, "aborted")
  })

  it("reduces a tool result with the built-in rules under the cap", async () => {
    const envelope = JSON.parse(
      Fs.readFileSync(new URL("../../../../examples/envelopes/command-output.json", import.meta.url), "utf8")
    ) as unknown
    const reduction = await compactor.reduce(envelope, { cap: 2_000 })
    assert.isAtMost(reduction.text.length, 2_000)
    assert.strictEqual(reduction.report.cap, 2_000)
    assert.notStrictEqual(reduction.report.route, "generic")
    const plain = await compactor.reduce("x".repeat(5_000), { cap: 1_000 })
    assert.strictEqual(plain.report.route, "generic")
    assert.isAtMost(plain.text.length, 1_000)
  })
})

describe("createCompactor events", () => {
  it("sends every compaction to the listeners and the iterators; close ends the iterators and later calls reject", async () => {
    const directory = tempDir()
    const compactor = await CompactorPromise.createCompactor({ directory, env: {} })
    try {
      const heard: Array<CompactorPromise.CompactionReport> = []
      const stop = compactor.onCompacted((report) => heard.push(report))
      compactor.onCompacted(() => {
        throw new Error("a faulty listener")
      })
      const iterator = compactor.events()
      const { report } = await compactor.compact(history, { sessionId: "events", contextWindow: 8_000 })
      const next = await iterator.next()
      assert.isFalse(next.done)
      assert.deepStrictEqual(next.value, report)
      assert.deepStrictEqual(heard, [report!])
      stop()
      await compactor.compact(history, { sessionId: "events-2", contextWindow: 8_000 })
      assert.strictEqual(heard.length, 1)
      const second = await iterator.next()
      assert.strictEqual(second.value?.sessionId, "events-2")
      const pending = iterator.next()
      await compactor.close()
      assert.isTrue((await pending).done)
      const closed = await rejection(compactor.compact(history, { contextWindow: 8_000 }))
      assert.instanceOf(closed, CompactorPromise.StateError)
      assert.strictEqual((closed as CompactorPromise.StateError).reason, "closed")
    } finally {
      await compactor.close()
      Fs.rmSync(directory, { recursive: true, force: true })
    }
  })

  it("keeps the compacted view across compactors on one folder, as a restart would", async () => {
    const directory = tempDir()
    try {
      const first = await CompactorPromise.createCompactor({ directory, env: {} })
      const compacted = await first.compact(history, { sessionId: "restart", contextWindow: 8_000 })
      await first.close()
      const second = await CompactorPromise.createCompactor({ directory, env: {} })
      const reloaded = await second.compact(history, { sessionId: "restart", contextWindow: 8_000 })
      await second.close()
      assert.isUndefined(reloaded.report)
      assert.deepStrictEqual(reloaded.messages, compacted.messages)
    } finally {
      Fs.rmSync(directory, { recursive: true, force: true })
    }
  })
})

describe("createCompactor start", () => {
  it("rejects with a StartError of reason database when the folder cannot hold the databases", async () => {
    const directory = tempDir()
    const file = NodePath.join(directory, "a-file")
    Fs.writeFileSync(file, "not a folder")
    try {
      const error = await rejection(CompactorPromise.createCompactor({ directory: file, env: {} }))
      assert.instanceOf(error, CompactorPromise.StartError)
      assert.strictEqual((error as CompactorPromise.StartError).reason, "database")
    } finally {
      Fs.rmSync(directory, { recursive: true, force: true })
    }
  })

  it("rejects with a StartError of reason settings for an invalid setting in the environment", async () => {
    const directory = tempDir()
    try {
      const error = await rejection(
        CompactorPromise.createCompactor({
          directory,
          env: { CONTEXT_COMPRESSOR_COMPACTION_SUMMARY_MAX_TOKENS: "many" }
        })
      )
      assert.instanceOf(error, CompactorPromise.StartError)
      assert.strictEqual((error as CompactorPromise.StartError).reason, "settings")
    } finally {
      Fs.rmSync(directory, { recursive: true, force: true })
    }
  })
})

describe("createCompactor with a chat-completions summariser", () => {
  it.scoped("asks onQuestion after two failed summaries; retry calls the server again, trim compacts without a summary", () =>
    Effect.gen(function*() {
      const server = yield* ChatCompletionsServer.start([])
      const directory = tempDir()
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(directory, { recursive: true, force: true })))
      const asked: Array<CompactorPromise.Question> = []
      const compactor = yield* Effect.acquireRelease(
        Effect.promise(() =>
          CompactorPromise.createCompactor({
            directory,
            env: {},
            summarizer: { baseUrl: server.baseUrl, timeoutMs: 5_000 }
          })
        ),
        (compactor) => Effect.promise(() => compactor.close())
      )
      const { report } = yield* Effect.promise(() =>
        compactor.compact(history, {
          sessionId: "attended",
          contextWindow: 12_000,
          onQuestion: async (question) => {
            asked.push(question)
            return asked.length === 1 ? "retry" : "trim"
          }
        })
      )
      assert.strictEqual(asked.length, 2)
      assert.strictEqual(asked[0]!.sessionId, "attended")
      assert.deepStrictEqual(asked[0]!.choices, ["retry", "trim"])
      assert.match(asked[0]!.problem, /summariser failed/)
      assert.strictEqual(report!.fallback, "trim")
      assert.strictEqual(report!.summarizerCalls, 3)
      // Unattended (no callback), and a callback that throws: trimmed after the retry, nobody waited for.
      const unattended = yield* Effect.promise(() =>
        compactor.compact(history, { sessionId: "unattended", contextWindow: 12_000 })
      )
      assert.strictEqual(unattended.report!.summarizerCalls, 2)
      const throwing = yield* Effect.promise(() =>
        compactor.compact(history, {
          sessionId: "throwing",
          contextWindow: 12_000,
          onQuestion: () => {
            throw new Error("no")
          }
        })
      )
      assert.strictEqual(throwing.report!.fallback, "trim")
      assert.strictEqual(throwing.report!.summarizerCalls, 2)
    }))
})

describe("createCompactor: a cached summary is the summariser's that made it (issue 43)", () => {
  const goodSummary = SummaryPrompt.generalSections
    .map((heading) => `${heading}\nWhat the server's model wrote for ${heading.slice(3).toLowerCase()}, in a sentence.`)
    .join("\n\n")

  /** One compactor over `directory`, opened for one compaction of `history` and closed. */
  const compactOnce = (options: CompactorPromise.CreateOptions, sessionId: string) =>
    Effect.scoped(
      Effect.gen(function*() {
        const compactor = yield* Effect.acquireRelease(
          Effect.promise(() => CompactorPromise.createCompactor(options)),
          (compactor) => Effect.promise(() => compactor.close())
        )
        return yield* Effect.promise(() => compactor.compact(history, { sessionId, contextWindow: 12_000, model: "m" }))
      })
    )

  it.scoped("after an offline run over a folder, the chat-completions summariser's first compaction of the same history asks its server", () =>
    Effect.gen(function*() {
      const server = yield* ChatCompletionsServer.start([ChatCompletionsServer.completion(goodSummary)])
      const directory = tempDir()
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(directory, { recursive: true, force: true })))
      const offline = yield* compactOnce({ directory, env: {} }, "offline-first")
      assert.strictEqual(offline.report?.fallback, "none")
      assert.isFalse(offline.report!.cacheHit)
      // The "chat-completions" summariser reads its server from the environment.
      const variable = "CONTEXT_COMPRESSOR_OPENAI_BASE_URL"
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          const before = process.env[variable]
          process.env[variable] = server.baseUrl
          return before
        }),
        (before) =>
          Effect.sync(() => {
            if (before === undefined) delete process.env[variable]
            else process.env[variable] = before
          })
      )
      const chat = yield* compactOnce({ directory, env: {}, summarizer: "chat-completions" }, "chat-next")
      assert.deepStrictEqual(
        {
          cacheHit: chat.report?.cacheHit,
          calls: chat.report?.summarizerCalls,
          fallback: chat.report?.fallback
        },
        { cacheHit: false, calls: 1, fallback: "none" }
      )
      assert.strictEqual((yield* server.received).length, 1)
      assert.include(JSON.stringify(chat.messages), "What the server's model wrote")
      // The same summariser again, in another session: its own summary is found.
      const again = yield* compactOnce({ directory, env: {}, summarizer: "chat-completions" }, "chat-again")
      assert.deepStrictEqual([again.report?.cacheHit, again.report?.summarizerCalls], [true, 0])
    }))
})

describe("createCompactor: a fallback to a trim is told", () => {
  it("with no summariser server reachable, each compaction that trims calls onFallback before the call resolves, lists it in warnings and logs it on stderr; one that summarises does neither", async () => {
    const told: Array<CompactorPromise.Fallback> = []
    const logged: Array<string> = []
    const consoleError = console.error
    console.error = (...parts: Array<unknown>) => void logged.push(parts.map(String).join(" "))
    try {
      // Port 1 on loopback: nothing listens there, so every summary request is refused.
      const compactor = await CompactorPromise.createCompactor({
        env: {},
        summarizer: { baseUrl: "http://127.0.0.1:1/v1", timeoutMs: 2_000 },
        onFallback: (fallback) => void told.push(fallback)
      })
      try {
        const result = await compactor.compact(history, { sessionId: "unreachable", contextWindow: 12_000 })
        assert.strictEqual(result.report?.fallback, "trim")
        assert.strictEqual(told.length, 1)
        assert.strictEqual(told[0]!.sessionId, "unreachable")
        assert.deepStrictEqual(told[0]!.gate, result.report!.gate)
        assert.match(told[0]!.gate[0]!, /^summarizer: /)
        assert.match(told[0]!.reason, /^the summariser failed \(/)
        assert.strictEqual(result.report?.fallbackReason, told[0]!.reason)
        assert.deepStrictEqual(result.warnings, [
          `compaction 1 of session unreachable fell back to a trim: ${told[0]!.reason} (gate: ${
            told[0]!.gate.join(", ")
          })`
        ])
        assert.isTrue(
          logged.some((line) =>
            line.includes("level=WARN") && line.includes("fell back to a trim") && line.includes("unreachable")
          ),
          logged.join("\n")
        )
        const small = await compactor.compact(shortHistory, { sessionId: "small", contextWindow: 12_000 })
        assert.deepStrictEqual(small.warnings, [])
        assert.strictEqual(told.length, 1)
      } finally {
        await compactor.close()
      }
    } finally {
      console.error = consoleError
    }
  })

  it("an offline summary raises no fallback, and onFallback must be a function", async () => {
    let told = 0
    const compactor = await CompactorPromise.createCompactor({ env: {}, onFallback: () => void told++ })
    try {
      const result = await compactor.compact(history, { sessionId: "offline", contextWindow: 12_000 })
      assert.strictEqual(result.report?.fallback, "none")
      assert.deepStrictEqual(result.warnings, [])
      assert.strictEqual(told, 0)
    } finally {
      await compactor.close()
    }
    const error = await rejection(CompactorPromise.createCompactor({ onFallback: "loudly" as never }))
    assert.instanceOf(error, CompactorPromise.OptionError)
    assert.strictEqual((error as CompactorPromise.OptionError).option, "onFallback")
  })
})
