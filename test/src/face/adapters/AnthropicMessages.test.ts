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
import { fromOpenAI, hasTranscripts, toAnthropic, transcriptsDirectory } from "../../../openai.js"
import * as DecodeSteps from "../../../support/DecodeSteps.js"
import { effectProp, prop } from "../../../support/Property.js"

type Json = { [key: string]: unknown }
type Document = Json & { readonly messages: ReadonlyArray<Json> }
type Block = Json & { type: string }

// Generated Messages API documents, with the shapes real ones take: text or blocks, cache_control,
// images and documents, thinking and redacted thinking before tool_use, parallel tool results in
// any order with text after them, results of text, of blocks or of nothing, request bodies or bare arrays.

const text = fc.string({ maxLength: 30 })
const scalar = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null))
const cacheControl = fc.option(fc.constant({ type: "ephemeral" }), { nil: undefined })
const textBlock = fc.record({ text, cache_control: cacheControl }).map(({ cache_control, text }) => ({
  type: "text",
  text,
  ...(cache_control === undefined ? {} : { cache_control })
}))
const imageBlock = fc.constant({
  type: "image",
  source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" }
})
const documentBlock = fc.constant({
  type: "document",
  source: { type: "text", media_type: "text/plain", data: "notes" },
  title: "notes.txt"
})
const userContent = fc.oneof(
  text,
  fc.array(fc.oneof(textBlock, textBlock, imageBlock, documentBlock), { minLength: 1, maxLength: 3 })
)
const resultContent = fc.oneof(
  text,
  fc.array(fc.oneof(textBlock, imageBlock), { maxLength: 2 }),
  fc.constant(undefined)
)
const step = fc.record({
  thinking: fc.option(fc.record({ thinking: text, signature: fc.stringMatching(/^[A-Za-z0-9]{12}$/) }), {
    nil: undefined
  }),
  redacted: fc.boolean(),
  text: fc.option(text, { nil: undefined }),
  calls: fc.array(
    fc.record({
      name: fc.constantFrom("bash", "read_file", "edit"),
      input: fc.dictionary(fc.string({ maxLength: 5 }), scalar, { maxKeys: 3 })
    }),
    {
      minLength: 1,
      maxLength: 3
    }
  ),
  results: fc.array(fc.record({ content: resultContent, isError: fc.option(fc.boolean(), { nil: undefined }) }), {
    minLength: 3,
    maxLength: 3
  }),
  reversed: fc.boolean(),
  trailing: fc.option(textBlock, { nil: undefined }),
  extra: fc.record({ id: fc.string({ maxLength: 6 }) }, { requiredKeys: [] })
})
const turn = fc.record({
  user: userContent,
  steps: fc.array(step, { maxLength: 3 }),
  reply: fc.oneof(text, fc.array(textBlock, { minLength: 1, maxLength: 2 }))
})

const anthropicDocument: fc.Arbitrary<unknown> = fc
  .record({
    system: fc.option(fc.oneof(text, fc.array(textBlock, { minLength: 1, maxLength: 2 })), { nil: undefined }),
    turns: fc.array(turn, { minLength: 1, maxLength: 4 }),
    body: fc.option(
      fc.record({
        model: fc.constantFrom("claude-sonnet-4-5", "claude-opus-4-1"),
        max_tokens: fc.integer({ min: 1, max: 64_000 }),
        tools: fc.constant([])
      }, { requiredKeys: ["model"] }),
      {
        nil: undefined
      }
    )
  })
  .map(({ body, system, turns }) => {
    const messages: Array<Json> = []
    let call = 0
    for (const t of turns) {
      messages.push({ role: "user", content: t.user })
      for (const s of t.steps) {
        const calls = s.calls.map((c) => ({ type: "tool_use", id: `toolu_${call++}`, name: c.name, input: c.input }))
        const blocks: Array<Json> = [
          ...(s.thinking === undefined ? [] : [{ type: "thinking", ...s.thinking }]),
          ...(s.redacted ? [{ type: "redacted_thinking", data: "EmwKAhgB" }] : []),
          ...(s.text === undefined ? [] : [{ type: "text", text: s.text }]),
          ...calls
        ]
        messages.push({ role: "assistant", content: blocks, ...s.extra })
        const results = calls.map((c, k) => {
          const r = s.results[k]!
          return {
            type: "tool_result",
            tool_use_id: c.id,
            ...(r.content === undefined ? {} : { content: r.content }),
            ...(r.isError === undefined ? {} : { is_error: r.isError })
          }
        })
        messages.push({
          role: "user",
          content: [...(s.reversed ? results.reverse() : results), ...(s.trailing === undefined ? [] : [s.trailing])]
        })
      }
      messages.push({ role: "assistant", content: t.reply })
    }
    if (body === undefined) return messages
    return { ...body, ...(system === undefined ? {} : { system }), messages }
  })

const messagesOf = (document: unknown): ReadonlyArray<Json> =>
  (Array.isArray(document) ? document : (document as { messages: ReadonlyArray<Json> }).messages) as ReadonlyArray<Json>

const blocksOf = (message: Json | undefined): ReadonlyArray<Block> =>
  message === undefined
    ? []
    : typeof message["content"] === "string"
    ? [{ type: "text", text: message["content"] }]
    : (message["content"] as ReadonlyArray<Block>)

/** Whether a document holds something only the Messages API has. */
const distinctive = (document: unknown): boolean =>
  (!Array.isArray(document) && (document as Json)["system"] !== undefined) ||
  messagesOf(document).some((m) =>
    blocksOf(m).some((b) =>
      ["tool_use", "tool_result", "thinking", "redacted_thinking"].includes(b.type) || b["source"] !== undefined
    )
  )

const decoded = (document: unknown): Adapter.Decoded => {
  return Compat.matchResult(AnthropicMessages.decodeResult(document), {
    onFailure: (error) => assert.fail(`not decoded: ${error.reason}`),
    onSuccess: (decoded) => decoded
  })
}

/**
 * What makes a document one the Messages API refuses: a role it does not
 * know, turns that do not alternate or start with the assistant, a tool_use
 * without its tool_result in the next message, a tool_result without its
 * tool_use in the message before, tool results after other blocks.
 */
const violations = (document: unknown): ReadonlyArray<string> => {
  const messages = messagesOf(document)
  const found: Array<string> = []
  if (messages[0]?.["role"] !== "user") found.push("the first message is not a user message")
  messages.forEach((message, i) => {
    const role = message["role"]
    if (role !== "user" && role !== "assistant") found.push(`message ${i} has the role ${String(role)}`)
    if (i > 0 && messages[i - 1]!["role"] === role) {
      found.push(`messages ${i - 1} and ${i} are both ${String(role)} messages`)
    }
    const blocks = blocksOf(message)
    const uses = blocks.filter((b) => b.type === "tool_use").map((b) => b["id"])
    if (role === "assistant" && i < messages.length - 1) {
      const answered = new Set(
        blocksOf(messages[i + 1]).filter((b) => b.type === "tool_result").map((b) => b["tool_use_id"])
      )
      for (const id of uses) {
        if (!answered.has(id)) {
          found.push(`tool_use ${String(id)} of message ${i} has no tool_result in message ${i + 1}`)
        }
      }
    }
    const results = blocks.filter((b) => b.type === "tool_result")
    const called = new Set(blocksOf(messages[i - 1]).filter((b) => b.type === "tool_use").map((b) => b["id"]))
    for (const r of results) {
      if (!called.has(r["tool_use_id"])) {
        found.push(`tool_result ${String(r["tool_use_id"])} of message ${i} answers no tool_use of message ${i - 1}`)
      }
    }
    const firstOther = blocks.findIndex((b) => b.type !== "tool_result")
    if (firstOther !== -1 && firstOther < blocks.findLastIndex((b) => b.type === "tool_result")) {
      found.push(`message ${i} has blocks before its tool results`)
    }
  })
  return found
}

describe("AnthropicMessages.decode and encode", () => {
  prop("an uncompacted document decodes and encodes back unchanged", [anthropicDocument], ([document]) => {
    const result = decoded(document)
    const back = result.encode(result.transcript)
    assert.deepStrictEqual(back, document)
    assert.strictEqual(JSON.stringify(back), JSON.stringify(document))
  })

  prop(
    "a user message of tool results and text is the results then a user message, ids m<i>, m<i>.1, …; every call has its result",
    [anthropicDocument],
    ([document]) => {
      const messages = messagesOf(document)
      const { transcript } = decoded(document)
      const expected = messages.flatMap((message, i) => {
        const blocks = blocksOf(message)
        const kinds = message["role"] === "assistant"
          ? ["Assistant"]
          : [
            ...blocks.filter((b) => b.type === "tool_result").map(() => "ToolResult"),
            ...(blocks.some((b) => b.type !== "tool_result")
              ? ["User"]
              : [])
          ]
        return kinds.map((kind, k) => `${kind} ${k === 0 ? `m${i}` : `m${i}.${k}`}`)
      })
      assert.deepStrictEqual(transcript.filter((m) => m._tag !== "System").map((m) => `${m._tag} ${m.id}`), expected)
      const calls = transcript.flatMap((m) => (m._tag === "Assistant" ? m.toolCalls.map((c) => c.id) : []))
      const results = transcript.flatMap((m) => (m._tag === "ToolResult" ? [m.toolCallId] : []))
      assert.deepStrictEqual([...results].sort(), [...calls].sort())
    }
  )

  it("reads the system prompt's blocks as system messages, thinking as nothing and media as placeholders", () => {
    const { transcript } = decoded({
      system: [{ type: "text", text: "You are a coding agent." }, {
        type: "text",
        text: "Be brief.",
        cache_control: { type: "ephemeral" }
      }],
      messages: [
        {
          role: "user",
          content: [{ type: "text", text: "look" }, { type: "image", source: { type: "url", url: "https://x/y.png" } }]
        },
        {
          role: "assistant",
          content: [{ type: "thinking", thinking: "hmm", signature: "s" }, { type: "text", text: "Listing." }, {
            type: "tool_use",
            id: "t1",
            name: "bash",
            input: { command: "ls" }
          }]
        },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "a.ts" }] }, {
            type: "text",
            text: "and?"
          }]
        }
      ]
    })
    assert.deepStrictEqual(transcript.map((m) => `${m.id}: ${Transcript.text(m)}`), [
      "s0: You are a coding agent.",
      "s1: Be brief.",
      "m0: look\n[image]",
      "m1: Listing.\nbash({\"command\":\"ls\"})",
      "m2: a.ts",
      "m2.1: and?"
    ])
    assert.strictEqual((transcript[4] as Transcript.ToolResult).name, "bash")
  })

  prop("never throws: anything is a transcript or an AdapterError", [fc.anything()], ([value]) => {
    const result = AnthropicMessages.decodeResult(value)
    if (TestCompat.isFailure(result)) {
      assert.instanceOf(Option.getOrThrow(TestCompat.getFailure(result)), Adapter.AdapterError)
    }
    assert.isBoolean(AnthropicMessages.detect(value))
  })

  const call = { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "bash", input: {} }] }
  const bad: ReadonlyArray<readonly [string, unknown, number | undefined, string]> = [
    ["a number", 42, undefined, "messages array"],
    ["an object without messages", { model: "claude" }, undefined, "messages array"],
    ["a system field that is a number", { system: 3, messages: [] }, undefined, "system field"],
    [
      "a system block that is not text",
      { system: [{ type: "image" }], messages: [] },
      undefined,
      "block 0 of the system field"
    ],
    ["a message that is not an object", [{ role: "user", content: "hi" }, null], 1, "not an object"],
    ["a system role message", [{ role: "system", content: "x" }], 0, "top-level system field"],
    ["content that is a number", [{ role: "user", content: 3 }], 0, "neither text"],
    ["a block without a type", [{ role: "user", content: [{ text: "x" }] }], 0, "content block 0"],
    ["a text block without text", [{ role: "user", content: [{ type: "text" }] }], 0, "text block 0"],
    [
      "a tool_use in a user message",
      [{ role: "user", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] }],
      0,
      "tool_use"
    ],
    [
      "a tool_result in an assistant message",
      [{ role: "user", content: "hi" }, { role: "assistant", content: [{ type: "tool_result", tool_use_id: "t" }] }],
      1,
      "tool_result"
    ],
    [
      "a tool_use without an id",
      [{ role: "user", content: "hi" }, { role: "assistant", content: [{ type: "tool_use", name: "f", input: {} }] }],
      1,
      "string id"
    ],
    [
      "a tool_use whose input is not JSON",
      [{ role: "user", content: "hi" }, {
        role: "assistant",
        content: [{ type: "tool_use", id: "t", name: "f", input: { n: 1n } }]
      }],
      1,
      "JSON input"
    ],
    [
      "a result whose call is unknown",
      [{ role: "user", content: "hi" }, call, {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "t2", content: "x" }]
      }],
      2,
      "t2"
    ],
    [
      "a result without tool_use_id",
      [{ role: "user", content: "hi" }, call, { role: "user", content: [{ type: "tool_result", content: "x" }] }],
      2,
      "tool_use_id"
    ],
    [
      "result content that is a number",
      [{ role: "user", content: "hi" }, call, {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "t1", content: 3 }]
      }],
      2,
      "tool_result block 0"
    ]
  ]
  for (const [what, document, index, reason] of bad) {
    it(`a document with ${what} is an AdapterError naming the message and the reason`, () => {
      const result = AnthropicMessages.decodeResult(document)
      assert.isTrue(TestCompat.isFailure(result))
      const refused = Option.getOrThrow(TestCompat.getFailure(result))
      assert.strictEqual(refused.format, "anthropic")
      assert.strictEqual(refused.index, index)
      assert.include(refused.reason, reason)
    })
  }
})

const thinkingA = { type: "thinking", thinking: "List first, then stage.", signature: "sigA" }
const thinkingB = { type: "thinking", thinking: "One more check.", signature: "sigB" }
const redacted = { type: "redacted_thinking", data: "EmwKAhgB" }
const request: Document = {
  model: "claude-sonnet-4-5",
  max_tokens: 1024,
  system: [{ type: "text", text: "You are a coding agent.", cache_control: { type: "ephemeral" } }],
  messages: [
    { role: "user", content: "Fix the parser." },
    {
      role: "assistant",
      content: [
        thinkingA,
        { type: "text", text: "Let me look." },
        { type: "tool_use", id: "ta", name: "bash", input: { command: "ls" } },
        redacted,
        { type: "tool_use", id: "tb", name: "workspace_edit", input: { action: "stage" } }
      ]
    },
    {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "ta", content: "src" }, {
        type: "tool_result",
        tool_use_id: "tb",
        content: "pending approval"
      }]
    },
    { role: "assistant", content: [{ type: "text", text: "Staged; waiting." }] },
    { role: "user", content: "Now add a test." },
    {
      role: "assistant",
      content: [thinkingB, { type: "tool_use", id: "tc", name: "bash", input: { command: "npm test" } }]
    },
    {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "tc", content: "ok" }, {
        type: "text",
        text: "Also check the cache."
      }]
    },
    { role: "assistant", content: "Done." }
  ]
}
// Decoded: s0, m0, m1, m2 (ta), m2.1 (tb), m3, m4, m5, m6 (tc), m6.1, m7.
const at = (transcript: Transcript.Transcript, id: string): Transcript.Message => transcript.find((m) => m.id === id)!
const summary = "## Summary\nthe parser was fixed"
const block = (first: string, last: string) =>
  new Transcript.CompactedBlock({ id: "compacted-1", content: summary, firstReplacedId: first, lastReplacedId: last })

describe("AnthropicMessages.encode of a compacted view", () => {
  it("keeps the system field and merges the block, as a leading text block, into the user message after it", () => {
    const result = decoded(request)
    const t = result.transcript
    const view = [at(t, "s0"), block("m0", "m6"), at(t, "m6.1"), at(t, "m7")]
    const document = result.encode(view) as Document
    assert.deepStrictEqual(violations(document), [])
    assert.deepStrictEqual(document, {
      ...request,
      messages: [{
        role: "user",
        content: [{ type: "text", text: summary }, { type: "text", text: "Also check the cache." }]
      }, request.messages[7]!]
    })
  })

  it("writes the block as its own user message before an assistant message, the tail exactly", () => {
    const result = decoded(request)
    const t = result.transcript
    const view = [at(t, "s0"), block("m0", "m2.1"), ...t.slice(t.indexOf(at(t, "m3")))]
    const document = result.encode(view) as Document
    assert.deepStrictEqual(violations(document), [])
    assert.deepStrictEqual(document.messages[0], { role: "user", content: [{ type: "text", text: summary }] })
    document.messages.slice(1).forEach((message, k) => assert.strictEqual(message, request.messages[3 + k]))
  })

  it("narrows an assistant message to one of its two calls keeping its thinking blocks in order, and the one result paired", () => {
    const result = decoded(request)
    const t = result.transcript
    const assistant = at(t, "m1") as Transcript.AssistantMessage
    const narrowed = new Transcript.AssistantMessage({ ...assistant, toolCalls: [assistant.toolCalls[1]!] })
    const view = [at(t, "s0"), block("m0", "m0"), narrowed, at(t, "m2.1"), ...t.slice(t.indexOf(at(t, "m3")))]
    const document = result.encode(view) as Document
    assert.deepStrictEqual(violations(document), [])
    const original = request.messages[1]!.content as ReadonlyArray<Block>
    assert.deepStrictEqual(document.messages[1], {
      role: "assistant",
      content: [original[0], original[1], original[3], original[4]]
    })
    assert.deepStrictEqual(document.messages[2], {
      role: "user",
      content: [(request.messages[2]!.content as ReadonlyArray<Block>)[1]]
    })
    assert.strictEqual(document.messages[3], request.messages[3])
  })

  it("merges the narrowed call's result with the user message the tail starts with, results first", () => {
    const result = decoded(request)
    const t = result.transcript
    const assistant = at(t, "m1") as Transcript.AssistantMessage
    const narrowed = new Transcript.AssistantMessage({ ...assistant, toolCalls: [assistant.toolCalls[1]!] })
    const view = [at(t, "s0"), block("m0", "m3"), narrowed, at(t, "m2.1"), ...t.slice(t.indexOf(at(t, "m4")))]
    const document = result.encode(view) as Document
    assert.deepStrictEqual(violations(document), [])
    assert.deepStrictEqual(document.messages[2], {
      role: "user",
      content: [(request.messages[2]!.content as ReadonlyArray<Block>)[1], { type: "text", text: "Now add a test." }]
    })
    const thinking = blocksOf(document.messages[1] as Json).filter((b) =>
      b.type === "thinking" || b.type === "redacted_thinking"
    )
    assert.deepStrictEqual(thinking, [thinkingA, redacted])
  })

  it("merges a user message put between a call and its result into the result's message, after the result", () => {
    const result = decoded(request)
    const t = result.transcript
    const inserted = new Transcript.UserMessage({ id: "note", content: "Keep going." })
    const view = [...t.slice(0, t.indexOf(at(t, "m6"))), inserted, ...t.slice(t.indexOf(at(t, "m6")))]
    const document = result.encode(view) as Document
    assert.deepStrictEqual(violations(document), [])
    const original = request.messages[6]!.content as ReadonlyArray<Block>
    assert.deepStrictEqual(document.messages[6], {
      role: "user",
      content: [original[0], { type: "text", text: "Keep going." }, original[1]]
    })
  })

  it("starts with a user message when the view would start with an assistant message", () => {
    const result = decoded(request)
    const t = result.transcript
    const document = result.encode([at(t, "s0"), ...t.slice(t.indexOf(at(t, "m3")))]) as Document
    assert.deepStrictEqual(violations(document), [])
    assert.strictEqual(document.messages[1], request.messages[3])
  })

  it("treats messages rebuilt with the same id and content as the originals", () => {
    const result = decoded(request)
    const rebuilt = result.transcript.map((m) =>
      m._tag === "User"
        ? new Transcript.UserMessage({ id: m.id, content: m.content })
        : m._tag === "System"
        ? new Transcript.SystemMessage({ id: m.id, content: m.content })
        : m
    )
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
  return {
    view: [
      ...transcript.slice(0, prefix),
      block(transcript[prefix]!.id, transcript[cut - 1]!.id),
      ...pinned,
      ...transcript.slice(cut)
    ],
    pinnedFrom
  }
}

describe("AnthropicMessages.encode of generated compacted views", () => {
  prop(
    "any view of the engine's shape encodes to a valid document: the block first, thinking kept with a narrowed call, the system field kept",
    [anthropicDocument, fc.nat(), fc.nat()],
    ([document, cutChoice, pinChoice]) => {
      const result = decoded(document)
      const made = compactedView(result.transcript, cutChoice, pinChoice)
      if (made === undefined) return
      const encoded = result.encode(made.view)
      assert.deepStrictEqual(violations(encoded), [])
      assert.strictEqual(blocksOf(messagesOf(encoded)[0]).find((b) => b.type === "text")?.["text"], summary)
      if (!Array.isArray(document)) assert.strictEqual((encoded as Json)["system"], (document as Json)["system"])
      if (made.pinnedFrom !== undefined) {
        const callId = made.pinnedFrom.toolCalls[0]!.id
        const original = messagesOf(document).find((m) =>
          blocksOf(m).some((b) => b.type === "tool_use" && b["id"] === callId)
        )!
        const written = messagesOf(encoded).find((m) =>
          blocksOf(m).some((b) => b.type === "tool_use" && b["id"] === callId)
        )!
        const isThinking = (b: Block) => b.type === "thinking" || b.type === "redacted_thinking"
        assert.deepStrictEqual(blocksOf(written).filter(isThinking), blocksOf(original).filter(isThinking))
        assert.deepStrictEqual(blocksOf(written).filter((b) => b.type === "tool_use").map((b) => b["id"]), [callId])
      }
    }
  )
})

describe("AnthropicMessages.detect", () => {
  const aiSdk = [
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
    { role: "user", content: [{ type: "text", text: "List the files." }] },
    {
      role: "assistant",
      content: [{ type: "reasoning", text: "ls" }, {
        type: "tool-call",
        id: "c1",
        name: "bash",
        params: { command: "ls" },
        providerExecuted: false
      }]
    },
    { role: "tool", content: [{ type: "tool-result", id: "c1", name: "bash", result: "a.ts", isFailure: false }] }
  ]

  prop(
    "detects a generated document exactly when it holds something only this format has, and chat completions' detect then does not",
    [anthropicDocument],
    ([document]) => {
      assert.strictEqual(AnthropicMessages.detect(document), distinctive(document))
      if (distinctive(document)) assert.isFalse(OpenAiChat.detect(document))
    }
  )

  it("does not take AI SDK or @effect/ai Prompt documents, even with only user and assistant messages, for Messages API documents", () => {
    for (const other of [aiSdk, effectAi, aiSdk.slice(0, 2), effectAi.slice(0, 2)]) {
      assert.isFalse(AnthropicMessages.detect(other))
      assert.isFalse(AnthropicMessages.detect({ system: "x", messages: other }))
      assert.isFalse(AnthropicMessages.detect({ content: other }))
    }
  })

  it("does not take chat completions documents, and takes a request body with a system field", () => {
    assert.isFalse(AnthropicMessages.detect([{ role: "system", content: "x" }, { role: "user", content: "hi" }]))
    assert.isFalse(
      AnthropicMessages.detect([{ role: "user", content: "hi" }, { role: "assistant", content: null, tool_calls: [] }])
    )
    assert.isTrue(
      AnthropicMessages.detect({ model: "claude", system: "x", messages: [{ role: "user", content: "hi" }] })
    )
    assert.isFalse(AnthropicMessages.detect([]))
  })
})

/** What a transcript says, ids aside: text of each message, calls with their parsed input, results with their call. */
const said = (transcript: Transcript.Transcript) =>
  transcript.map((m) =>
    m._tag === "Assistant"
      ? {
        kind: m._tag,
        content: m.content,
        calls: m.toolCalls.map((c) => ({ id: c.id, name: c.name, input: JSON.parse(c.arguments) as unknown }))
      }
      : m._tag === "ToolResult"
      ? { kind: m._tag, content: m.content, toolCallId: m.toolCallId, name: m.name }
      : { kind: m._tag, content: m.content }
  )

const recorded = hasTranscripts()
  ? Fs.readdirSync(transcriptsDirectory).filter((name) => name.endsWith(".json")).sort()
  : []
const load = (name: string): ReadonlyArray<Json> =>
  JSON.parse(Fs.readFileSync(Path.join(transcriptsDirectory, name), "utf8")) as ReadonlyArray<Json>

const engine = Compactor.layer({ policies: builtInPolicies }).pipe(
  Layer.provideMerge(Testing.layer({ settings: { replyReserveTokens: 200 } }))
)

describe.skipIf(!hasTranscripts())(
  "AnthropicMessages over the recorded transcripts (../shared/transcripts), as Messages API requests",
  () => {
    for (const name of recorded) {
      it(`${name}: is detected, round-trips exactly and decodes to the calls and results of the test loader`, () => {
        const messages = load(name)
        const document = toAnthropic(messages)
        assert.isTrue(AnthropicMessages.detect(document))
        assert.isFalse(OpenAiChat.detect(document))
        const result = decoded(document)
        assert.strictEqual(JSON.stringify(result.encode(result.transcript)), JSON.stringify(document))
        assert.deepStrictEqual(said(result.transcript), said(fromOpenAI(messages)))
      })
    }

    it.effect("a compacted checkpoint of a recorded transcript encodes to a valid document: the system prompt in system, the block as the first user message", () =>
      Effect.gen(function*() {
        const document = toAnthropic(load(recorded[0]!))
        const result = decoded(document)
        const compactor = yield* Compactor.Compactor
        const checkpoint = yield* compactor.checkpoint({
          sessionId: "anthropic",
          transcript: result.transcript,
          model: "recorded",
          contextWindow: 8_000
        })
        assert.isTrue(Option.isSome(checkpoint.compacted))
        const compacted = checkpoint.view.find((m) => m._tag === "Compacted")!
        const encoded = result.encode(checkpoint.view) as typeof document
        assert.deepStrictEqual(violations(encoded), [])
        assert.strictEqual(encoded.system, document.system)
        assert.strictEqual(encoded.model, document.model)
        assert.strictEqual(blocksOf(encoded.messages[0]).find((b) => b.type === "text")?.["text"], compacted.content)
        assert.isBelow(encoded.messages.length, document.messages.length)
        const kept = new Set(document.messages)
        assert.isTrue(
          encoded.messages.slice(1).every((message) => kept.has(message)),
          "a tail message is not the original"
        )
      }).pipe(Effect.provide(engine)))
  }
)

describe("AnthropicMessages.decodeSteps", () => {
  effectProp(
    "run at once or pausing at every step, the steps decode as decode does (transcript, encoded views, error) and pause once every 32 messages",
    [DecodeSteps.variants(anthropicDocument)],
    ([document]) => DecodeSteps.assertStepsAgree(AnthropicMessages.adapter, document),
    { fastCheck: { numRuns: 60 } }
  )

  prop(
    "a continuing adapter decodes a body that repeats the very message values and system field of one it decoded as a fresh copy decodes, the repeated ones decoded once",
    [anthropicDocument, fc.nat(), fc.constantFrom("none", "message", "system")],
    ([document, at, edit]) => {
      const continuing = AnthropicMessages.adapter.continuing!()
      const decodedBy = (document: unknown): Adapter.Decoded => {
        return Compat.matchResult(continuing.decodeResult(document), {
          onFailure: (error) => assert.fail(`not decoded: ${error.reason}`),
          onSuccess: (decoded) => decoded
        })
      }
      const body = Array.isArray(document) ? { model: "claude-sonnet-4-5", messages: document } : document as Json
      const messages = messagesOf(body)
      // Cut after a whole turn (a user message), so that both bodies are ones the API takes.
      const ends = messages.flatMap((message, index) => message["role"] === "assistant" ? [index + 1] : [])
      const cut = ends[at % ends.length]!
      const first = decodedBy({ ...body, messages: messages.slice(0, cut) })
      // The next request: the same values and the rest, or one message (or the system field) replaced by another.
      const next: Array<Json> = [...messages]
      const changed = edit === "message" && cut > 1 ? at % cut : undefined
      if (changed !== undefined) next[changed] = { ...next[changed]!, role: next[changed]!["role"] }
      const nextBody = edit === "system"
        ? { ...body, system: "another system prompt", messages: next }
        : { ...body, messages: next }
      // Detection continues too: the same verdict as a fresh copy's, for the first body and the next.
      const firstBody = { ...body, messages: messages.slice(0, cut) }
      assert.strictEqual(continuing.detect(firstBody), AnthropicMessages.detect(structuredClone(firstBody)))
      assert.strictEqual(continuing.detect(nextBody), AnthropicMessages.detect(structuredClone(nextBody)))
      const again = decodedBy(nextBody)
      const fresh = decoded(structuredClone(nextBody))
      assert.deepStrictEqual(again.transcript, fresh.transcript)
      assert.deepStrictEqual(again.encode(again.transcript), nextBody)
      const kept = first.transcript.filter((message) => !message.id.startsWith("s"))
      const reused = again.transcript.filter((message) => kept.includes(message)).length
      // All of the last decoding is kept when every value repeats; none of it when one message or the system changed.
      assert.strictEqual(reused, edit === "system" || changed !== undefined ? 0 : kept.length)
    },
    { fastCheck: { numRuns: 120 } }
  )
})
