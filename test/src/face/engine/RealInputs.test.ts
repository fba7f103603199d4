/**
 * Real inputs as they are: call ids a later call uses again (paired by
 * position, ids kept as sent), a call id used twice inside one assistant
 * message in every format (written back by position: no stray result), an overflow the engine must fit after (R2.13 on
 * the overflow path), a provider's count above ours (the request's fixed
 * overhead), the newest message's head kept over recorded sessions (the
 * ladder's order itself: test/src/core/checkpoint/ViewFit.test.ts), and a document
 * named as a format it is not.
 */
import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Adapters from "../../../../src/face/adapters/Adapters.js"
import * as AnthropicMessages from "../../../../src/face/adapters/AnthropicMessages.js"
import * as Formats from "../../../../src/face/adapters/Formats.js"
import * as OpenAiChat from "../../../../src/face/adapters/OpenAiChat.js"
import * as Budget from "../../../../src/face/engine/Budget.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Overflow from "../../../../src/face/engine/Overflow.js"
import * as ViewCheck from "../../../../src/face/engine/ViewCheck.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as Settings from "../../../../src/face/services/Settings.js"
import { hasTranscripts, pairingProblems, toAnthropic, transcriptsDirectory } from "../../../openai.js"
import { toOpenAiChat as toOpenAI } from "../../../support/Histories.js"
import { effectProp } from "../../../support/Property.js"
import * as Generated from "../../../transcripts.js"

const engine = () => Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provideMerge(Testing.layer()))

const approxTokens = (text: string) => Math.ceil(text.length / 4)
const viewTokens = (view: Transcript.Transcript) =>
  view.reduce((sum, message) => sum + approxTokens(Transcript.text(message)) + 4, 0)
const defaults = Settings.defaults

/** The same transcript with its call ids drawn from a pool of `pool`: later calls use ids earlier ones used. */
const reusingIds = (transcript: Transcript.Transcript, pool: number, sameMessage: boolean): Transcript.Transcript => {
  let next = 0
  let current = new Map<string, Array<string>>()
  return transcript.map((message) => {
    if (message._tag === "Assistant" && message.toolCalls.length > 0) {
      current = new Map()
      const toolCalls = message.toolCalls.map((call, k) => {
        // With `sameMessage`, the calls of one message share an id too.
        const id = sameMessage && k > 0 ? `call_${(next - 1) % pool}` : `call_${next++ % pool}`
        current.set(call.id, [...(current.get(call.id) ?? []), id])
        return new Transcript.ToolCall({ ...call, id })
      })
      return new Transcript.AssistantMessage({ ...message, toolCalls })
    }
    if (message._tag === "ToolResult") {
      const ids = current.get(message.toolCallId)
      const id = ids?.shift()
      return id === undefined ? message : new Transcript.ToolResult({ ...message, toolCallId: id })
    }
    return message
  })
}

const sentIds = (transcript: Transcript.Transcript): ReadonlySet<string> =>
  new Set(
    transcript.flatMap((message) =>
      message._tag === "Assistant"
        ? message.toolCalls.map((call) => call.id)
        : message._tag === "ToolResult"
        ? [message.toolCallId]
        : []
    )
  )

describe("a call id used again by a later call", () => {
  effectProp(
    "is paired by position: every checkpoint compacts, its view passes ViewCheck, fits, and carries only the ids as sent, paired in the encoded document",
    [Generated.transcript(24), fc.integer({ min: 1, max: 3 }), fc.boolean(), fc.constantFrom(8_000, 16_000, 32_000)],
    ([generated, pool, sameMessage, window]) =>
      Effect.gen(function*() {
        const compactor = yield* Compactor.Compactor
        const transcript = reusingIds(generated, pool, sameMessage)
        const before = JSON.stringify(transcript)
        const sent = sentIds(transcript)
        const document = toOpenAI(transcript)
        const decoded = TestCompat.getOrThrow(OpenAiChat.decodeResult(document))
        for (let end = 2; end <= decoded.transcript.length; end += 5) {
          const prefix = decoded.transcript.slice(0, end)
          const checkpoint = yield* compactor.checkpoint({
            sessionId: `reuse-${window}`,
            transcript: prefix,
            model: "m",
            contextWindow: window
          })
          const trigger = Budget.trigger(defaults, window)
          const reserve = Budget.replyReserve(defaults, trigger, window)
          assert.deepStrictEqual(
            ViewCheck.check(checkpoint.view, {
              fit: {
                trigger,
                replyReserve: reserve,
                tokens: (m) => approxTokens(Transcript.text(m)) + 4
              }
            }),
            []
          )
          for (const id of sentIds(checkpoint.view.filter((m) => !m.id.includes(":lost:")))) {
            assert.isTrue(sent.has(id), `${id} was not sent`)
          }
          const encoded = decoded.encode(checkpoint.view)
          assert.deepStrictEqual(pairingProblems(encoded), [])
        }
        assert.strictEqual(JSON.stringify(transcript), before, "the transcript was modified")
      }).pipe(Effect.provide(engine())),
    { fastCheck: { numRuns: 12 } }
  )

  it("a call id used twice is no malformed transcript, and the view gets the ids as sent (the tau-bench shape: the same id at messages 2 and 4)", () => {
    const document = [
      { role: "system", content: "You are an airline agent." },
      { role: "user", content: "change my flight" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: "call_HGn16KZh9oNCruxsMJ4gYXan",
          type: "function",
          function: { name: "get_user", arguments: "{}" }
        }]
      },
      { role: "tool", tool_call_id: "call_HGn16KZh9oNCruxsMJ4gYXan", content: "user 1" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: "call_HGn16KZh9oNCruxsMJ4gYXan",
          type: "function",
          function: { name: "get_booking", arguments: "{}" }
        }]
      },
      { role: "tool", tool_call_id: "call_HGn16KZh9oNCruxsMJ4gYXan", content: "booking 2" },
      { role: "assistant", content: "done" }
    ]
    const decoded = TestCompat.getOrThrow(OpenAiChat.decodeResult(document))
    const checkpoint = Effect.runSync(
      Effect.gen(function*() {
        const compactor = yield* Compactor.Compactor
        return yield* compactor.compactNow({
          sessionId: "tau",
          transcript: decoded.transcript,
          model: "m",
          contextWindow: 8_000
        })
      }).pipe(Effect.provide(engine()))
    )
    const encoded = decoded.encode(checkpoint.view) as ReadonlyArray<Record<string, unknown>>
    assert.deepStrictEqual(pairingProblems(encoded), [])
    assert.notInclude(JSON.stringify(encoded.filter((m) => m["role"] !== "user")), "#2")
  })

  it("a result answering no call is still refused, with one line naming the message", () => {
    const document = [
      { role: "user", content: "hi" },
      { role: "tool", tool_call_id: "call_x", content: "stray" }
    ]
    const error = Option.getOrThrow(TestCompat.getFailure(OpenAiChat.decodeResult(document)))
    assert.include(error.reason, "tool message 1")
    assert.notInclude(error.reason, "\n")
  })
})

/**
 * A transcript in AI SDK form with each call's result right after the call,
 * inside the assistant message (`inline`), or in the tool message after it.
 */
const toAiSdk = (transcript: Transcript.Transcript, inline: boolean): Array<Record<string, unknown>> => {
  const out: Array<Record<string, unknown>> = []
  const resultPart = (result: Transcript.ToolResult) => ({
    type: "tool-result",
    toolCallId: result.toolCallId,
    toolName: result.name ?? "tool",
    output: { type: "text", value: result.content }
  })
  for (let i = 0; i < transcript.length; i++) {
    const message = transcript[i]!
    switch (message._tag) {
      case "System":
        out.push({ role: "system", content: message.content })
        break
      case "User":
      case "Compacted":
        out.push({ role: "user", content: [{ type: "text", text: message.content }] })
        break
      case "ToolResult":
        out.push({ role: "tool", content: [resultPart(message)] })
        break
      case "Assistant": {
        const results: Array<Transcript.ToolResult> = []
        while (inline && transcript[i + 1]?._tag === "ToolResult") {
          results.push(transcript[++i] as Transcript.ToolResult)
        }
        const parts: Array<unknown> = [{ type: "text", text: message.content }]
        for (const call of message.toolCalls) {
          parts.push({ type: "tool-call", toolCallId: call.id, toolName: call.name, input: JSON.parse(call.arguments) })
          // By position: the first result of the call's id not yet placed.
          const k = results.findIndex((result) => result.toolCallId === call.id)
          if (k !== -1) parts.push(resultPart(results.splice(k, 1)[0]!))
        }
        out.push({ role: "assistant", content: [...parts, ...results.map(resultPart)] })
      }
    }
  }
  return out
}

/**
 * Where an AI SDK document's pairing fails: a result answering no open call
 * of the turn (a stray), or a turn that ends with a call unanswered.
 */
const aiSdkPairingProblems = (document: unknown): ReadonlyArray<string> => {
  const problems: Array<string> = []
  let open: Array<string> = []
  ;(document as ReadonlyArray<Record<string, unknown>>).forEach((message, index) => {
    if (message["role"] !== "tool") {
      if (open.length > 0) problems.push(`message ${index} comes before the results of ${open.join(", ")}`)
      open = []
    }
    const parts = Array.isArray(message["content"])
      ? (message["content"] as ReadonlyArray<Record<string, unknown>>)
      : []
    for (const part of parts) {
      const id = String(part["toolCallId"])
      if (part["type"] === "tool-call") open.push(id)
      if (part["type"] !== "tool-result") continue
      const at = open.indexOf(id)
      if (at === -1) problems.push(`stray result ${id} in message ${index}`)
      else open.splice(at, 1)
    }
  })
  return problems
}

const calledIds = (document: unknown): ReadonlyArray<string> =>
  JSON.stringify(document).match(/"(?:toolCallId|id|tool_call_id|tool_use_id)":"call_00_[^"]*"/g) ?? []

type Form = "openai" | "anthropic" | "ai-sdk" | "ai-sdk-inline"

const documentOf = (transcript: Transcript.Transcript, form: Form): unknown =>
  form === "openai"
    ? toOpenAI(transcript)
    : form === "anthropic"
    ? toAnthropic(toOpenAI(transcript) as never)
    : toAiSdk(transcript, form === "ai-sdk-inline")

const problemsOf = (document: unknown, form: Form): ReadonlyArray<string> =>
  form === "ai-sdk" || form === "ai-sdk-inline" ? aiSdkPairingProblems(document) : pairingProblems(document)

const forms: ReadonlyArray<Form> = ["openai", "anthropic", "ai-sdk", "ai-sdk-inline"]

/** The shape some providers' streams write: two calls under one id in one message, each followed by its result; the second result is too long to stay whole. */
const reusedInOneMessage: Transcript.Transcript = [
  new Transcript.SystemMessage({ id: "s", content: "You are a coding agent." }),
  new Transcript.UserMessage({ id: "u", content: "compare the two parsers" }),
  new Transcript.AssistantMessage({
    id: "a",
    content: "Reading both.",
    toolCalls: [
      new Transcript.ToolCall({
        id: "call_00_dup",
        name: "bash",
        arguments: JSON.stringify({ command: "cat src/old_parser.py" })
      }),
      new Transcript.ToolCall({
        id: "call_00_dup",
        name: "bash",
        arguments: JSON.stringify({ command: "cat src/new_parser.py" })
      })
    ]
  }),
  new Transcript.ToolResult({
    id: "r1",
    toolCallId: "call_00_dup",
    name: "bash",
    content: "def parse(text):\n    return old(text)\n"
  }),
  new Transcript.ToolResult({
    id: "r2",
    toolCallId: "call_00_dup",
    name: "bash",
    content: "def parse(text):\n    return new(text)\n".repeat(12_000)
  }),
  new Transcript.AssistantMessage({ id: "d", content: "The new parser calls new().", toolCalls: [] })
]

describe("a call id used twice inside one assistant message (each call followed by its result)", () => {
  for (const form of forms) {
    it(`${form}: a view that clips the second result keeps both calls, each answered, and no stray result`, () => {
      const adapter = Adapters.all.find((candidate) =>
        candidate.format === (form.startsWith("ai-sdk") ? "ai-sdk" : form)
      )!
      const document = documentOf(reusedInOneMessage, form)
      const before = JSON.stringify(document)
      const decoded = TestCompat.getOrThrow(adapter.decodeResult(document))
      const checkpoint = Effect.runSync(
        Effect.gen(function*() {
          const compactor = yield* Compactor.Compactor
          return yield* compactor.checkpoint({
            sessionId: `dup-${form}`,
            transcript: decoded.transcript,
            model: "m",
            contextWindow: 32_000
          })
        }).pipe(Effect.provide(engine()))
      )
      const encoded = decoded.encode(checkpoint.view)
      assert.deepStrictEqual(problemsOf(encoded, form), [])
      // Two calls and two results under the one id, as sent; the second result clipped.
      assert.strictEqual(calledIds(encoded).length, 4)
      assert.isBelow(JSON.stringify(encoded).length, before.length / 2)
      assert.include(JSON.stringify(encoded), "new_parser.py")
      assert.strictEqual(JSON.stringify(document), before, "the document was modified")
    })
  }

  effectProp(
    "for any reuse of ids within and across messages, in any format, every checkpoint's encoded view is paired: no stray result, no unanswered call",
    [
      Generated.transcript(16),
      fc.integer({ min: 1, max: 2 }),
      fc.constantFrom(...forms),
      fc.constantFrom(8_000, 16_000)
    ],
    ([generated, pool, form, window]) =>
      Effect.gen(function*() {
        const compactor = yield* Compactor.Compactor
        const transcript = reusingIds(generated, pool, true)
        const adapter = Adapters.all.find((candidate) =>
          candidate.format === (form.startsWith("ai-sdk") ? "ai-sdk" : form)
        )!
        const decoded = TestCompat.getOrThrow(adapter.decodeResult(documentOf(transcript, form)))
        for (let end = 3; end <= decoded.transcript.length; end += 6) {
          const checkpoint = yield* compactor.checkpoint({
            sessionId: `dup-${form}-${window}`,
            transcript: decoded.transcript.slice(0, end),
            model: "m",
            contextWindow: window
          })
          assert.deepStrictEqual(problemsOf(decoded.encode(checkpoint.view), form), [], `${form} at ${end}`)
        }
      }).pipe(Effect.provide(engine())),
    { fastCheck: { numRuns: 16 } }
  )
})

/** 220 turns of long command output: about 230,000 tokens, compacts at 160k. */
const longerSession = Generated.fromTurns(
  Array.from({ length: 220 }, (_, i) => ({
    user: `request ${i}: ` + "please fix the parser cache ".repeat(20),
    steps: [[{
      name: "bash",
      args: JSON.stringify({ command: `cat src/file${i}.ts` }),
      result: `<returncode>0</returncode>\n<output>\n${"line of code\n".repeat(300)}</output>`
    }]],
    reply: `done with step ${i}`,
    accept: false
  }))
)

describe("an overflow the engine can fit after (R2.13 on the overflow path)", () => {
  effectProp(
    "at any window the engine accepts up to 128k and a provider count up to 3× ours, the retry's view fits the provider's window as it counts; else the error names a smallest window above it",
    [fc.integer({ min: 4_000, max: 128_000 }), fc.double({ min: 1, max: 3, noNaN: true })],
    ([limit, ratio]) =>
      Effect.gen(function*() {
        const compactor = yield* Compactor.Compactor
        const transcript = longerSession
        // A view compacted for a 160k window went out first.
        const sent = yield* compactor.checkpoint({ sessionId: "wide", transcript, model: "m", contextWindow: 160_000 })
        assert.isTrue(Option.isSome(sent.compacted))
        const sentTokens = sent.tokens
        const overflow = new Overflow.ContextOverflow({
          provider: "openai",
          limit,
          promptTokens: Math.max(Math.ceil(sentTokens * ratio), limit + 1),
          message: "too long"
        })
        const outcome = yield* Compat.result(
          compactor.contextOverflow({ sessionId: "wide", transcript, model: "m", contextWindow: 160_000, overflow })
        )
        if (TestCompat.isFailure(outcome)) {
          const error = Option.getOrThrow(TestCompat.getFailure(outcome))
          assert.strictEqual(error.reason, "no-progress", error.message)
          assert.isDefined(error.minimumWindow, error.message)
          assert.isAbove(error.minimumWindow!, limit, error.message)
          return
        }
        const checkpoint = TestCompat.getOrThrow(outcome)
        const providerRatio = overflow.promptTokens! / sentTokens
        const scaled = Math.max(providerRatio, 1)
        const trigger = Budget.trigger(defaults, limit)
        assert.isAtMost(
          Math.floor(checkpoint.tokens * scaled),
          trigger,
          `${checkpoint.tokens} tokens at ${scaled}×`
        )
        assert.deepStrictEqual(ViewCheck.check(checkpoint.view), [])
      }).pipe(Effect.provide(engine())),
    { fastCheck: { numRuns: 25 } }
  )
})

describe("the provider's count above ours: the request's fixed overhead", () => {
  effectProp(
    "reported counts from 1× to 10× ours: a compaction leaves overhead plus view under the trigger and is smaller than the view; an overhead past the trigger fails with both numbers",
    [fc.double({ min: 1, max: 10, noNaN: true }), fc.constantFrom(8_000, 32_000, 128_000)],
    ([factor, window]) =>
      Effect.gen(function*() {
        const compactor = yield* Compactor.Compactor
        const transcript = Generated.longSession
        const counted = viewTokens(transcript)
        const reported = Math.round(counted * factor)
        const outcome = yield* Compat.result(
          compactor.checkpoint({
            sessionId: `r-${factor}-${window}`,
            transcript,
            model: "m",
            contextWindow: window,
            reportedContextTokens: reported
          })
        )
        const trigger = Budget.trigger(defaults, window)
        if (TestCompat.isFailure(outcome)) {
          const error = Option.getOrThrow(TestCompat.getFailure(outcome))
          assert.strictEqual(error.reason, "cannot-fit")
          assert.include(error.message, String(reported))
          assert.include(error.message, String(counted))
          return
        }
        const checkpoint = TestCompat.getOrThrow(outcome)
        if (Option.isNone(checkpoint.compacted)) {
          assert.isAtMost(reported + Budget.replyReserve(defaults, trigger, window), trigger)
          return
        }
        const overhead = reported - counted
        assert.isBelow(
          viewTokens(checkpoint.view),
          counted,
          "a compaction that does not shrink the view is no compaction"
        )
        assert.strictEqual(checkpoint.tokens, viewTokens(checkpoint.view) + overhead)
        assert.isAtMost(checkpoint.tokens + Budget.replyReserve(defaults, trigger, window), trigger)
      }).pipe(Effect.provide(engine())),
    // The first example: an overhead that leaves the messages too little room, found by a random seed.
    { fastCheck: { numRuns: 30, examples: [[1.1696573908999304, 8_000]] } }
  )
})

describe("a document named as a format it is not", () => {
  const call = { id: "call_1", type: "function", function: { name: "bash", arguments: "{\"command\":\"ls\"}" } }
  const openai = [{ role: "user", content: "list" }, { role: "assistant", content: null, tool_calls: [call] }, {
    role: "tool",
    tool_call_id: "call_1",
    content: "a\nb"
  }]
  const documents: Record<string, unknown> = {
    openai,
    anthropic: toAnthropic(openai),
    "ai-sdk": [
      { role: "user", content: "list" },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "call_1", toolName: "bash", input: { command: "ls" } }]
      },
      {
        role: "tool",
        content: [{
          type: "tool-result",
          toolCallId: "call_1",
          toolName: "bash",
          output: { type: "text", value: "a\nb" }
        }]
      }
    ]
  }
  for (const [actual, document] of Object.entries(documents)) {
    for (const named of ["openai", "anthropic", "ai-sdk"] as const) {
      if (named === actual) continue
      it(`${actual} named ${named} is refused with one line naming ${actual}`, () => {
        const error = Option.getOrThrow(TestCompat.getFailure(Formats.decodeTranscript(Adapters.all, document, named)))
        assert.include(error.reason, `marks of the ${actual} format`)
        assert.notInclude(error.reason, "\n")
      })
    }
    it(`${actual} named as itself decodes`, () => {
      assert.isTrue(TestCompat.isSuccess(Formats.decodeTranscript(Adapters.all, document, actual as "openai")))
    })
  }

  it("a plain chat of text named anthropic is read as anthropic: it has the marks of no format", () => {
    assert.isTrue(
      TestCompat.isSuccess(
        Formats.decodeTranscript(Adapters.all, [{ role: "user", content: "hi" }, {
          role: "assistant",
          content: "hello"
        }], "anthropic")
      )
    )
  })
})

const recorded = hasTranscripts()
  ? Fs.readdirSync(transcriptsDirectory).filter((name) => name.endsWith(".json")).sort()
  : []
const load = (name: string): ReadonlyArray<Record<string, unknown>> =>
  JSON.parse(Fs.readFileSync(Path.join(transcriptsDirectory, name), "utf8"))

describe.skipIf(!hasTranscripts())(
  "the recorded runs (../shared/transcripts), replayed in OpenAI and Anthropic form",
  () => {
    for (const name of recorded) {
      for (const form of ["openai", "anthropic"] as const) {
        it.effect(
          `${name} as ${form}: at 8k, 16k and 32k every checkpoint's view passes ViewCheck, fits, stays paired when encoded and keeps the newest message's first 500 characters`,
          () =>
            Effect.gen(function*() {
              const compactor = yield* Compactor.Compactor
              const messages = load(name)
              for (const window of [8_000, 16_000, 32_000]) {
                const trigger = Budget.trigger(defaults, window)
                const reserve = Budget.replyReserve(defaults, trigger, window)
                // A checkpoint every seventh message and at the end, as a session grows.
                const ends = [
                  ...Array.from({ length: Math.floor(messages.length / 7) }, (_, k) => (k + 1) * 7),
                  messages.length
                ]
                for (const end of ends) {
                  const slice = messages.slice(0, end)
                  const document = form === "openai" ? slice : toAnthropic(slice)
                  const adapter = form === "openai" ? OpenAiChat : AnthropicMessages
                  const decoded = TestCompat.getOrThrow(adapter.decodeResult(document))
                  const checkpoint = yield* compactor.checkpoint({
                    sessionId: `${name}-${form}-${window}`,
                    transcript: decoded.transcript,
                    model: "m",
                    contextWindow: window
                  })
                  const tokens = (m: Transcript.Message) => approxTokens(Transcript.text(m)) + 4
                  assert.deepStrictEqual(
                    ViewCheck.check(checkpoint.view, { fit: { trigger, replyReserve: reserve, tokens } }),
                    [],
                    `${window} at ${end}`
                  )
                  assert.deepStrictEqual(pairingProblems(decoded.encode(checkpoint.view)), [], `${window} at ${end}`)
                  const newest = decoded.transcript[decoded.transcript.length - 1]!
                  const head = newest.content.slice(0, 500)
                  assert.isTrue(
                    checkpoint.view.some((m) => m.content.includes(head)),
                    `${window} at ${end}: the newest message's head is missing`
                  )
                }
              }
            }).pipe(Effect.provide(engine())),
          60_000
        )
      }
    }
  }
)
