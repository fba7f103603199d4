import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Boundary from "../../../../src/core/checkpoint/Boundary.js"
import * as Adapter from "../../../../src/face/adapters/Adapter.js"
import * as AnthropicMessages from "../../../../src/face/adapters/AnthropicMessages.js"
import * as OpenAiChat from "../../../../src/face/adapters/OpenAiChat.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import { fromOpenAI, hasTranscripts, transcriptsDirectory } from "../../../openai.js"
import * as DecodeSteps from "../../../support/DecodeSteps.js"
import { effectProp, prop } from "../../../support/Property.js"

type Json = { [key: string]: unknown }
type Document = Json & { readonly messages: ReadonlyArray<Json> }

// Generated chat completions documents, with the shapes real ones take: null content,
// content part arrays, extra fields, parallel tool calls answered in any order, request bodies.

const text = fc.string({ maxLength: 30 })
const scalar = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null))
const extraFields = fc.record({
  name: fc.string({ maxLength: 8 }),
  metadata: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), scalar, { maxKeys: 2 })
}, {
  requiredKeys: []
})
const textPart = text.map((t) => ({ type: "text", text: t }))
const parts = fc.array(
  fc.oneof(textPart, fc.webUrl().map((url) => ({ type: "image_url", image_url: { url, detail: "low" } }))),
  { maxLength: 3 }
)
const userContent = fc.oneof(text, parts)
const assistantContent = fc.oneof(
  text,
  fc.constant(null),
  fc.array(fc.oneof(textPart, text.map((t) => ({ type: "refusal", refusal: t }))), { maxLength: 2 })
)
const toolContent = fc.oneof(text, fc.array(textPart, { maxLength: 2 }))
const step = fc.record({
  content: assistantContent,
  calls: fc.array(
    fc.record({
      name: fc.constantFrom("bash", "read_file", "edit"),
      args: fc.dictionary(fc.string({ maxLength: 5 }), scalar, { maxKeys: 3 })
    }),
    {
      maxLength: 3
    }
  ),
  results: fc.array(toolContent, { minLength: 3, maxLength: 3 }),
  reversed: fc.boolean(),
  nullCalls: fc.boolean(),
  extra: extraFields
})
const turn = fc.record({
  user: userContent,
  extra: extraFields,
  steps: fc.array(step, { maxLength: 3 }),
  reply: fc.option(assistantContent, { nil: undefined })
})

const openAiDocument: fc.Arbitrary<unknown> = fc
  .record({
    system: fc.option(
      fc.record({
        role: fc.constantFrom("system", "developer"),
        content: fc.oneof(text, fc.array(textPart, { minLength: 1, maxLength: 2 }))
      }),
      { nil: undefined }
    ),
    turns: fc.array(turn, { minLength: 1, maxLength: 4 }),
    body: fc.option(
      fc.record({
        model: fc.constantFrom("gpt-4o", "o3"),
        temperature: fc.double({ min: 0, max: 2, noNaN: true }),
        tools: fc.constant([])
      }, { requiredKeys: ["model"] }),
      {
        nil: undefined
      }
    )
  })
  .map(({ body, system, turns }) => {
    const messages: Array<Json> = system === undefined ? [] : [system]
    let call = 0
    for (const t of turns) {
      messages.push({ role: "user", content: t.user, ...t.extra })
      for (const s of t.steps) {
        const calls = s.calls.map((c) => ({
          id: `call_${call++}`,
          type: "function",
          function: { name: c.name, arguments: JSON.stringify(c.args) }
        }))
        messages.push({
          role: "assistant",
          content: s.content,
          ...(calls.length > 0 ? { tool_calls: calls } : s.nullCalls ? { tool_calls: null } : {}),
          ...s.extra
        })
        const results = calls.map((c, k) => ({ role: "tool", tool_call_id: c.id, content: s.results[k]! }))
        messages.push(...(s.reversed ? results.reverse() : results))
      }
      if (t.reply !== undefined) messages.push({ role: "assistant", content: t.reply })
    }
    return body === undefined ? messages : { ...body, messages }
  })

const messagesOf = (document: unknown): ReadonlyArray<Json> =>
  (Array.isArray(document) ? document : (document as { messages: ReadonlyArray<Json> }).messages) as ReadonlyArray<Json>

const decoded = (document: unknown): Adapter.Decoded => {
  return Compat.matchResult(OpenAiChat.decodeResult(document), {
    onFailure: (error) => assert.fail(`not decoded: ${error.reason}`),
    onSuccess: (decoded) => decoded
  })
}

const roles = new Set(["system", "developer", "user", "assistant", "tool"])

/** What makes a document one the chat completions API refuses: a role it does not know, a call without its result right after, a result without its call. */
const violations = (document: unknown): ReadonlyArray<string> => {
  const messages = messagesOf(document)
  const found: Array<string> = []
  messages.forEach((message, i) => {
    if (!roles.has(message["role"] as string)) found.push(`message ${i} has the role ${String(message["role"])}`)
    if (message["role"] === "tool") {
      let j = i - 1
      while (j >= 0 && messages[j]!["role"] === "tool") j--
      const calls = (messages[j]?.["tool_calls"] ?? []) as ReadonlyArray<Json>
      if (!calls.some((call) => call["id"] === message["tool_call_id"])) {
        found.push(`tool message ${i} does not answer a call of the assistant message before it`)
      }
    }
    const calls = message["tool_calls"]
    if (message["role"] === "assistant" && Array.isArray(calls)) {
      if (calls.length === 0) found.push(`message ${i} has an empty tool_calls`)
      const answered = new Set<unknown>()
      for (let j = i + 1; messages[j]?.["role"] === "tool"; j++) answered.add(messages[j]!["tool_call_id"])
      // The calls of the last message are in flight.
      if (i < messages.length - 1) {
        for (const call of calls as ReadonlyArray<Json>) {
          if (!answered.has(call["id"])) found.push(`call ${String(call["id"])} of message ${i} has no result`)
        }
      }
    }
  })
  return found
}

describe("OpenAiChat.decode and encode", () => {
  prop("an uncompacted document decodes and encodes back unchanged", [openAiDocument], ([document]) => {
    const result = decoded(document)
    const back = result.encode(result.transcript)
    assert.deepStrictEqual(back, document)
    assert.strictEqual(JSON.stringify(back), JSON.stringify(document))
  })

  prop(
    "neutral message i is m<i>, of the kind its role says, with its calls and results paired",
    [openAiDocument],
    ([document]) => {
      const messages = messagesOf(document)
      const { transcript } = decoded(document)
      assert.strictEqual(transcript.length, messages.length)
      const kinds: Record<string, string> = {
        system: "System",
        developer: "System",
        user: "User",
        assistant: "Assistant",
        tool: "ToolResult"
      }
      transcript.forEach((message, i) => {
        assert.strictEqual(message.id, `m${i}`)
        assert.strictEqual(message._tag, kinds[messages[i]!["role"] as string])
      })
      const calls = transcript.flatMap((m) => (m._tag === "Assistant" ? m.toolCalls.map((c) => c.id) : []))
      const results = transcript.flatMap((m) => (m._tag === "ToolResult" ? [m.toolCallId] : []))
      assert.deepStrictEqual([...results].sort(), [...calls].sort())
    }
  )

  it("joins the text parts of content, keeps media as placeholders and reads null as empty", () => {
    const { transcript } = decoded([
      {
        role: "user",
        content: [{ type: "text", text: "look" }, { type: "image_url", image_url: { url: "https://x/y.png" } }, {
          type: "text",
          text: "here"
        }]
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{\"command\":\"ls\"}" } }]
      },
      { role: "tool", tool_call_id: "c1", content: [{ type: "text", text: "a.ts" }] }
    ])
    assert.deepStrictEqual(transcript.map(Transcript.text), [
      "look\n[image]\nhere",
      "\nbash({\"command\":\"ls\"})",
      "a.ts"
    ])
    assert.strictEqual((transcript[2] as Transcript.ToolResult).name, "bash")
  })

  prop("never throws: anything is a transcript or an AdapterError", [fc.anything()], ([value]) => {
    const result = OpenAiChat.decodeResult(value)
    if (TestCompat.isFailure(result)) {
      assert.instanceOf(Option.getOrThrow(TestCompat.getFailure(result)), Adapter.AdapterError)
    }
    assert.isBoolean(OpenAiChat.detect(value))
  })

  const bad: ReadonlyArray<readonly [string, unknown, number | undefined, string]> = [
    ["a number", 42, undefined, "array of chat messages"],
    ["an object without messages", { model: "gpt-4o" }, undefined, "messages array"],
    ["a message that is not an object", [{ role: "user", content: "hi" }, "hello"], 1, "not an object"],
    ["an unknown role", [{ role: "robot", content: "beep" }], 0, "robot"],
    ["content that is a number", [{ role: "user", content: 3 }], 0, "neither text"],
    ["a content part without a type", [{ role: "user", content: [{ text: "x" }] }], 0, "content part 0"],
    ["tool_calls that are not an array", [{ role: "assistant", content: null, tool_calls: {} }], 0, "not an array"],
    [
      "a tool call without a function name",
      [{ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: {} }] }],
      0,
      "name"
    ],
    [
      "arguments that are not a string",
      [{
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: {} } }]
      }],
      0,
      "JSON string"
    ],
    ["a tool message without tool_call_id", [{ role: "tool", content: "x" }], 0, "tool_call_id"],
    [
      "a result whose call is unknown",
      [{ role: "user", content: "hi" }, { role: "tool", tool_call_id: "nope", content: "x" }],
      1,
      "nope"
    ],
    ["the legacy function role", [{ role: "function", name: "f", content: "x" }], 0, "legacy"]
  ]
  for (const [what, document, index, reason] of bad) {
    it(`a document with ${what} is an AdapterError naming the message and the reason`, () => {
      const result = OpenAiChat.decodeResult(document)
      assert.isTrue(TestCompat.isFailure(result))
      const refused = Option.getOrThrow(TestCompat.getFailure(result))
      assert.strictEqual(refused.format, "openai")
      assert.strictEqual(refused.index, index)
      assert.include(refused.reason, reason)
    })
  }
})

const request: Document = {
  model: "gpt-4o",
  temperature: 0,
  messages: [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Fix the parser." },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "c1", type: "function", function: { name: "bash", arguments: "{\"command\":\"ls\"}" } },
        { id: "c2", type: "function", function: { name: "workspace_edit", arguments: "{\"action\":\"stage\"}" } }
      ]
    },
    { role: "tool", tool_call_id: "c1", content: "src" },
    { role: "tool", tool_call_id: "c2", content: "pending approval" },
    { role: "assistant", content: [{ type: "text", text: "Staged; waiting." }], refusal: null },
    { role: "user", content: "Now add a test." },
    { role: "assistant", content: "Done." }
  ]
}

describe("OpenAiChat.encode of a compacted view", () => {
  const block = (first: string, last: string) =>
    new Transcript.CompactedBlock({
      id: "compacted-1",
      content: "## Summary\nthe parser was fixed",
      firstReplacedId: first,
      lastReplacedId: last
    })

  it("writes the block as a user message after the system prompt and keeps the tail exactly", () => {
    const result = decoded(request)
    const t = result.transcript
    const view = [t[0]!, block("m1", "m5"), ...t.slice(6)]
    const document = result.encode(view) as Document
    assert.deepStrictEqual(violations(document), [])
    assert.deepStrictEqual(document, {
      ...request,
      messages: [
        request.messages[0]!,
        { role: "user", content: "## Summary\nthe parser was fixed" },
        ...request.messages.slice(6)
      ]
    })
  })

  it("writes an assistant message narrowed to one of its two calls as the original with that call only, its result paired", () => {
    const result = decoded(request)
    const t = result.transcript
    const assistant = t[2] as Transcript.AssistantMessage
    const narrowed = new Transcript.AssistantMessage({ ...assistant, toolCalls: [assistant.toolCalls[1]!] })
    const view = [t[0]!, block("m1", "m5"), narrowed, t[4]!, ...t.slice(6)]
    const document = result.encode(view) as Document
    assert.deepStrictEqual(violations(document), [])
    assert.deepStrictEqual(document.messages[2], {
      role: "assistant",
      content: null,
      tool_calls: [(request.messages[2]!["tool_calls"] as ReadonlyArray<Json>)[1]]
    })
    assert.strictEqual(document.messages[3], request.messages[4])
    assert.strictEqual(document.messages.length, 6)
  })

  it("treats a message rebuilt with the same id and content as the original", () => {
    const result = decoded(request)
    const rebuilt = result.transcript.map((
      m
    ) => (m._tag === "User" ? new Transcript.UserMessage({ id: m.id, content: m.content }) : m))
    assert.deepStrictEqual(result.encode(rebuilt), request)
  })
})

/**
 * A view of the engine's shape: the system messages, a compacted block, maybe
 * an assistant message of the span narrowed to its first call with that
 * call's result (a pinned approval), then the messages from a turn start on.
 */
const compactedView = (transcript: Transcript.Transcript, cutChoice: number, pinChoice: number) => {
  const prefix = transcript.filter((m) => m._tag === "System").length
  const starts = Boundary.turnStarts(transcript).filter((start) => start > prefix)
  if (starts.length === 0) return undefined
  const cut = starts[cutChoice % starts.length]!
  const candidates = transcript.slice(prefix, cut).filter((m): m is Transcript.AssistantMessage =>
    m._tag === "Assistant" && m.toolCalls.length >= 2
  )
  const pinnedFrom = pinChoice % 2 === 0 ? candidates[pinChoice % Math.max(1, candidates.length)] : undefined
  const pinned = pinnedFrom === undefined ? [] : [
    new Transcript.AssistantMessage({ ...pinnedFrom, toolCalls: [pinnedFrom.toolCalls[0]!] }),
    transcript.find((m) => m._tag === "ToolResult" && m.toolCallId === pinnedFrom.toolCalls[0]!.id)!
  ]
  const compacted = new Transcript.CompactedBlock({
    id: "compacted-1",
    content: "## Summary",
    firstReplacedId: transcript[prefix]!.id,
    lastReplacedId: transcript[cut - 1]!.id
  })
  return [...transcript.slice(0, prefix), compacted, ...pinned, ...transcript.slice(cut)]
}

describe("OpenAiChat.encode of generated compacted views", () => {
  prop(
    "any view of the engine's shape encodes to a valid document of originals, the block as a user message after the system prompt",
    [openAiDocument, fc.nat(), fc.nat()],
    ([document, cutChoice, pinChoice]) => {
      const result = decoded(document)
      const view = compactedView(result.transcript, cutChoice, pinChoice)
      if (view === undefined) return
      const encoded = result.encode(view)
      assert.deepStrictEqual(violations(encoded), [])
      const messages = messagesOf(encoded)
      const prefix = view.findIndex((m) => m._tag === "Compacted")
      assert.deepStrictEqual(messages[prefix], { role: "user", content: "## Summary" })
      const originals = new Set(messagesOf(document))
      view.forEach((m, k) => {
        if (m._tag !== "Compacted" && result.transcript.includes(m)) assert.isTrue(originals.has(messages[k]!))
      })
    }
  )
})

describe("OpenAiChat.detect", () => {
  const anthropic = {
    system: "You are a coding agent.",
    messages: [
      { role: "user", content: "List the files." },
      {
        role: "assistant",
        content: [{ type: "thinking", thinking: "ls", signature: "sig" }, {
          type: "tool_use",
          id: "t1",
          name: "bash",
          input: { command: "ls" }
        }]
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "a.ts" }] }
    ]
  }
  const aiSdk = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: [{ type: "text", text: "List the files." }] },
    {
      role: "assistant",
      content: [{ type: "text", text: "Listing." }, {
        type: "tool-call",
        toolCallId: "c1",
        toolName: "bash",
        input: { command: "ls" }
      }]
    },
    {
      role: "tool",
      content: [{ type: "tool-result", toolCallId: "c1", toolName: "bash", output: { type: "text", value: "a.ts" } }]
    }
  ]
  const effectAi = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: [{ type: "text", text: "List the files." }] },
    {
      role: "assistant",
      content: [{ type: "tool-call", id: "c1", name: "bash", params: { command: "ls" }, providerExecuted: false }]
    },
    { role: "tool", content: [{ type: "tool-result", id: "c1", name: "bash", result: "a.ts", isFailure: false }] }
  ]

  prop("detects every generated chat completions document", [openAiDocument], ([document]) => {
    assert.isTrue(OpenAiChat.detect(document))
  })

  it("does not take Anthropic, AI SDK or @effect/ai Prompt documents for chat completions", () => {
    assert.isFalse(OpenAiChat.detect(anthropic))
    assert.isFalse(OpenAiChat.detect(anthropic.messages))
    assert.isFalse(
      OpenAiChat.detect({ system: "You are a coding agent.", messages: [{ role: "user", content: "hi" }] })
    )
    for (const other of [aiSdk, effectAi]) {
      assert.isFalse(OpenAiChat.detect(other))
      assert.isFalse(OpenAiChat.detect({ messages: other }))
      assert.isFalse(OpenAiChat.detect({ content: other }))
    }
    assert.isFalse(OpenAiChat.detect([]))
    assert.isFalse(OpenAiChat.detect("[]"))
  })

  prop("Anthropic's detect never takes a chat completions document", [openAiDocument], ([document]) => {
    assert.isFalse(AnthropicMessages.detect(document))
  })
})

const recorded = hasTranscripts()
  ? Fs.readdirSync(transcriptsDirectory).filter((name) => name.endsWith(".json")).sort()
  : []
const load = (name: string): ReadonlyArray<Json> =>
  JSON.parse(Fs.readFileSync(Path.join(transcriptsDirectory, name), "utf8")) as ReadonlyArray<Json>

const engine = Compactor.layer({ policies: builtInPolicies }).pipe(
  Layer.provideMerge(Testing.layer({ settings: { replyReserveTokens: 200 } }))
)

describe.skipIf(!hasTranscripts())("OpenAiChat over the recorded transcripts (../shared/transcripts)", () => {
  for (const name of recorded) {
    it(`${name}: is detected, round-trips exactly and decodes to the calls and results of the test loader`, () => {
      const messages = load(name)
      assert.isTrue(OpenAiChat.detect(messages))
      assert.isFalse(AnthropicMessages.detect(messages))
      const result = decoded(messages)
      assert.strictEqual(JSON.stringify(result.encode(result.transcript)), JSON.stringify(messages))
      assert.deepStrictEqual(result.transcript, fromOpenAI(messages))
    })
  }

  it.effect("a compacted checkpoint of a recorded transcript encodes to a valid document: system prompt first, then the block as a user message", () =>
    Effect.gen(function*() {
      const messages = load(recorded[0]!)
      const result = decoded({ model: "deepseek-chat", messages })
      const compactor = yield* Compactor.Compactor
      const checkpoint = yield* compactor.checkpoint({
        sessionId: "openai",
        transcript: result.transcript,
        model: "recorded",
        contextWindow: 8_000
      })
      assert.isTrue(Option.isSome(checkpoint.compacted))
      const block = checkpoint.view.find((m) => m._tag === "Compacted")!
      const document = result.encode(checkpoint.view) as { model: string; messages: ReadonlyArray<Json> }
      assert.strictEqual(document.model, "deepseek-chat")
      assert.deepStrictEqual(violations(document), [])
      assert.strictEqual(document.messages[0], messages[0])
      assert.deepStrictEqual(document.messages[1], { role: "user", content: block.content })
      assert.isBelow(document.messages.length, messages.length)
      const kept = new Set(messages)
      for (const message of document.messages.slice(2)) {
        assert.isTrue(kept.has(message), "a tail message is not the original")
      }
    }).pipe(Effect.provide(engine)))
})

describe("OpenAiChat.decodeSteps", () => {
  effectProp(
    "run at once or pausing at every step, the steps decode as decode does (transcript, encoded views, error) and pause once every 32 messages",
    [DecodeSteps.variants(openAiDocument)],
    ([document]) => DecodeSteps.assertStepsAgree(OpenAiChat.adapter, document),
    { fastCheck: { numRuns: 60 } }
  )

  prop(
    "a continuing adapter decodes a document that repeats the very message values of one it decoded as a fresh copy decodes, the repeated ones decoded once",
    [openAiDocument, fc.nat(), fc.boolean()],
    ([document, at, edit]) => {
      const continuing = OpenAiChat.adapter.continuing!()
      const decoded = (document: unknown): Adapter.Decoded => {
        return Compat.matchResult(continuing.decodeResult(document), {
          onFailure: (error) => assert.fail(`not decoded: ${error.reason}`),
          onSuccess: (decoded) => decoded
        })
      }
      const messages = messagesOf(document)
      const cut = messages.length === 0 ? 0 : at % (messages.length + 1)
      const first = decoded(messages.slice(0, cut))
      // The next request: the same message values and the rest, or one of them replaced by an equal copy with another text.
      const next: Array<Json> = [...messages]
      const changed = edit && cut > 1 ? (at % (cut - 1)) + 1 : undefined
      if (changed !== undefined) next[changed] = { ...next[changed]!, name: "edited" }
      // Detection continues too: the same verdict as a fresh copy's, for the first body and the next.
      assert.strictEqual(
        continuing.detect(messages.slice(0, cut)),
        OpenAiChat.detect(structuredClone(messages.slice(0, cut)))
      )
      assert.strictEqual(continuing.detect(next), OpenAiChat.detect(structuredClone(next)))
      const again = decoded(next)
      const fresh = decoded(structuredClone(next))
      assert.deepStrictEqual(again.transcript, fresh.transcript)
      assert.deepStrictEqual(again.encode(again.transcript), next)
      if (changed === undefined) {
        for (let i = 0; i < cut; i++) assert.strictEqual(again.transcript[i], first.transcript[i])
      }
      // The adapter itself keeps nothing: each decoding is its own.
      if (cut > 0) {
        const plain = OpenAiChat.decodeResult(messages.slice(0, cut))
        const plainAgain = OpenAiChat.decodeResult(messages.slice(0, cut))
        if (TestCompat.isSuccess(plain) && TestCompat.isSuccess(plainAgain)) {
          assert.notStrictEqual(
            TestCompat.getOrThrow(plainAgain).transcript[0],
            TestCompat.getOrThrow(plain).transcript[0]
          )
        }
      }
    },
    { fastCheck: { numRuns: 120 } }
  )
})
