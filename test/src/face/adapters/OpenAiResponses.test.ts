import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as RestoredView from "../../../../src/core/checkpoint/RestoredView.js"
import type * as Adapter from "../../../../src/face/adapters/Adapter.js"
import * as Adapters from "../../../../src/face/adapters/Adapters.js"
import * as Formats from "../../../../src/face/adapters/Formats.js"
import * as OpenAiChat from "../../../../src/face/adapters/OpenAiChat.js"
import * as OpenAiResponses from "../../../../src/face/adapters/OpenAiResponses.js"
import * as Json from "../../../../src/face/models/Json.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { prop } from "../../../support/Property.js"

type Item = { [key: string]: unknown }

// Generated Responses inputs, with the shapes real ones take: every item type the adapter reads, reasoning with
// encrypted content, provider compaction, items of types it does not know, content parts, extra fields.

const text = fc.string({ maxLength: 30 })
/** Encrypted content: opaque text, unicode and escapes included. */
const encrypted = fc.string({ minLength: 1, maxLength: 40, unit: "binary" })
const scalar = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null))
const extra = fc.dictionary(fc.constantFrom("status", "phase", "metadata_x"), scalar, { maxKeys: 2 })
const inputParts = fc.array(
  fc.oneof(
    text.map((t) => ({ type: "input_text", text: t })),
    fc.webUrl().map((url) => ({ type: "input_image", image_url: url, detail: "auto" })),
    fc.constantFrom("notes.pdf", undefined).map((filename) => ({
      type: "input_file",
      file_id: "file_1",
      ...(filename === undefined ? {} : { filename })
    }))
  ),
  { minLength: 1, maxLength: 3 }
)
const outputParts = fc.array(
  fc.oneof(
    text.map((t) => ({ type: "output_text", text: t, annotations: [] })),
    text.map((t) => ({ type: "refusal", refusal: t }))
  ),
  { minLength: 1, maxLength: 2 }
)
const reasoning = fc.record({
  summary: fc.array(text.map((t) => ({ type: "summary_text", text: t })), { maxLength: 2 }),
  encrypted: fc.option(encrypted, { nil: undefined })
})
const step = fc.record({
  reasoning: fc.option(reasoning, { nil: undefined }),
  message: fc.option(fc.oneof(text, outputParts), { nil: undefined }),
  calls: fc.array(
    fc.record({
      custom: fc.boolean(),
      reasoning: fc.option(reasoning, { nil: undefined }),
      args: fc.dictionary(fc.string({ maxLength: 5 }), scalar, { maxKeys: 3 }),
      output: fc.oneof(text, inputParts.map((parts) => parts.filter((part) => part.type === "input_text")))
    }),
    { maxLength: 3 }
  ),
  opaque: fc.option(fc.constantFrom("web_search_call", "compaction", "item_reference"), { nil: undefined }),
  reversed: fc.boolean()
})
const turn = fc.record({
  user: fc.oneof(text, inputParts),
  role: fc.constantFrom("user", "user", "developer"),
  typed: fc.boolean(),
  extra,
  steps: fc.array(step, { maxLength: 3 })
})

const opaqueItem = (type: string, n: number, secret: string): Item =>
  type === "compaction"
    ? { type, id: `cmp_${n}`, encrypted_content: secret }
    : type === "item_reference"
    ? { type, id: `msg_${n}` }
    : { type, id: `ws_${n}`, status: "completed", action: { type: "search", query: "q" } }

const responsesInput: fc.Arbitrary<{ readonly document: unknown; readonly items: ReadonlyArray<Item> }> = fc
  .record({
    instructions: fc.option(fc.record({ role: fc.constantFrom("system", "developer"), content: text }), {
      nil: undefined
    }),
    turns: fc.array(turn, { minLength: 1, maxLength: 4 }),
    secret: encrypted,
    body: fc.option(
      fc.record({
        model: fc.constantFrom("gpt-5", "o4-mini"),
        instructions: text,
        tools: fc.constant([{ type: "function", name: "bash", parameters: { type: "object" } }]),
        store: fc.boolean()
      }, { requiredKeys: ["model"] }),
      { nil: undefined }
    )
  })
  .map(({ body, instructions, secret, turns }) => {
    const items: Array<Item> = instructions === undefined ? [] : [instructions]
    let n = 0
    const reasoningItem = (r: { summary: ReadonlyArray<unknown>; encrypted: string | undefined }): Item => ({
      type: "reasoning",
      id: `rs_${n++}`,
      summary: r.summary,
      ...(r.encrypted === undefined ? {} : { encrypted_content: r.encrypted })
    })
    for (const t of turns) {
      items.push({ ...(t.typed ? { type: "message" } : {}), role: t.role, content: t.user, ...t.extra })
      for (const s of t.steps) {
        if (s.reasoning !== undefined) items.push(reasoningItem(s.reasoning))
        if (s.message !== undefined) {
          items.push({ type: "message", id: `msg_${n++}`, role: "assistant", status: "completed", content: s.message })
        }
        const outputs: Array<Item> = []
        for (const c of s.calls) {
          if (c.reasoning !== undefined) items.push(reasoningItem(c.reasoning))
          const callId = `call_${n++}`
          items.push(
            c.custom
              ? { type: "custom_tool_call", call_id: callId, name: "apply_patch", input: JSON.stringify(c.args) }
              : {
                type: "function_call",
                id: `fc_${n}`,
                call_id: callId,
                name: "bash",
                arguments: JSON.stringify(c.args)
              }
          )
          outputs.push({
            type: c.custom ? "custom_tool_call_output" : "function_call_output",
            call_id: callId,
            output: c.output
          })
        }
        if (s.opaque !== undefined) items.push(opaqueItem(s.opaque, n++, secret))
        items.push(...(s.reversed ? outputs.reverse() : outputs))
      }
    }
    return { document: body === undefined ? items : { ...body, input: items }, items }
  })

const decoded = (document: unknown): Adapter.Decoded => {
  return Compat.matchResult(OpenAiResponses.decodeResult(document), {
    onFailure: (error) => assert.fail(`not decoded: ${error.reason}`),
    onSuccess: (decoded) => decoded
  })
}

const itemsOf = (document: unknown): ReadonlyArray<Item> =>
  (Array.isArray(document) ? document : (document as { input: ReadonlyArray<Item> }).input) as ReadonlyArray<Item>

/** The text the proxy sends of a document: its parsed JSON written with `Json.stringify`. */
const exactText = (document: unknown): string =>
  Json.stringify(TestCompat.getOrThrow(Json.parse(JSON.stringify(document))))

/**
 * A compacted view as the engine makes one: a block for the messages before a boundary, some tool results of the
 * span pinned with their assistant message narrowed to their calls, and the transcript from the boundary on; an
 * assistant message's text clipped now and then.
 */
const compactedView = (
  transcript: Transcript.Transcript,
  cut: number,
  pins: ReadonlyArray<boolean>,
  clip: boolean
): Transcript.Transcript => {
  let boundary = Math.min(cut, transcript.length - 1)
  while (boundary > 0 && transcript[boundary]!._tag === "ToolResult") boundary--
  if (boundary === 0) return transcript
  const pinned: Array<number> = []
  transcript.slice(0, boundary).forEach((message, index) => {
    if (message._tag !== "ToolResult" || pins[index % pins.length] !== true) return
    const call = transcript.findIndex((m) =>
      m._tag === "Assistant" && m.toolCalls.some((c) => c.id === message.toolCallId)
    )
    if (!pinned.includes(call)) pinned.push(call)
    pinned.push(index)
  })
  pinned.sort((a, b) => a - b)
  const block = new Transcript.CompactedBlock({
    id: "compacted-1",
    content: "[summary of the earlier work]",
    firstReplacedId: transcript[0]!.id,
    lastReplacedId: transcript[Math.max(0, boundary - 1)]!.id
  })
  const view = RestoredView.viewOf(transcript, 0, block, pinned, boundary)
  return view.map((message) =>
    clip && message._tag === "Assistant" && message.content.length > 4
      ? new Transcript.AssistantMessage({ ...message, content: message.content.slice(0, 4) })
      : message
  )
}

describe("OpenAiResponses", () => {
  prop(
    "with nothing compacted, every item comes back as it came: the same objects, the same JSON text",
    [responsesInput],
    ([{ document, items }]) => {
      const result = decoded(document)
      const encoded = result.encode(result.transcript)
      assert.strictEqual(Json.stringify(encoded), Json.stringify(document))
      assert.strictEqual(exactText(encoded), exactText(document))
      itemsOf(encoded).forEach((item, k) => assert.strictEqual(item, items[k]))
      // detected, unless it is a plain text chat (the chat format's)
      const plainChat = items.every((item) => item["type"] === undefined && typeof item["content"] === "string")
      assert.isTrue(OpenAiResponses.detect(document) || (Array.isArray(document) && plainChat))
    }
  )

  prop(
    "in a compacted view, each reasoning item is the input's own (its encrypted_content byte for byte) and precedes the item it preceded; every output follows its call; the newest item is last",
    [responsesInput, fc.nat(40), fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), fc.boolean()],
    ([{ document, items }, cut, pins, clip]) => {
      const result = decoded(document)
      const view = compactedView(result.transcript, cut, pins, clip)
      const sent = itemsOf(result.encode(view))
      const position = new Map(items.map((item, k) => [item, k]))
      const calls = new Set<unknown>()
      sent.forEach((item, k) => {
        if (item["type"] === "reasoning") {
          const at = position.get(item)
          assert.isDefined(at, "a reasoning item was written anew")
          assert.strictEqual(
            JSON.stringify(item["encrypted_content"]),
            JSON.stringify(items[at!]!["encrypted_content"])
          )
          // the next item sent is the next one of the input after this reasoning (and any reasoning beside it)
          const next = sent[k + 1]
          if (next === undefined) return assert.strictEqual(at, items.length - 1, "a reasoning item lost its next item")
          let following = at! + 1
          while (items[following]?.["type"] === "reasoning" && items[following] !== next) following++
          // that item as it came, or with its text clipped (its id kept)
          assert.isTrue(
            next === items[following] || (next!["id"] !== undefined && next!["id"] === items[following]!["id"]),
            "a reasoning item lost the item it precedes"
          )
        }
        if (item["type"] === "function_call" || item["type"] === "custom_tool_call") calls.add(item["call_id"])
        if (item["type"] === "function_call_output" || item["type"] === "custom_tool_call_output") {
          assert.isTrue(calls.has(item["call_id"]), `the output of ${String(item["call_id"])} comes before its call`)
        }
      })
      const [last, newest] = [sent.at(-1)!, items.at(-1)!]
      assert.isTrue(
        last === newest || (last["id"] !== undefined && last["id"] === newest["id"]),
        "the newest item is not last"
      )
    }
  )

  it("a reasoning item that ends the input stays last when its run is changed (found by the property above)", () => {
    const reasoning = { type: "reasoning", id: "rs_1", summary: [] }
    const search = { type: "web_search_call", id: "ws_0", status: "completed", action: { type: "search", query: "q" } }
    const document = [{ role: "user", content: [{ type: "input_text", text: "" }] }, search, reasoning]
    const result = decoded(document)
    // The run (the search, then the reasoning) kept with its text clipped, after a block for the user message.
    const view = compactedView(result.transcript, 1, [false], true)
    assert.notStrictEqual(view.at(-1), result.transcript.at(-1), "the run was not changed")
    const sent = itemsOf(result.encode(view))
    assert.strictEqual(sent.at(-1), reasoning)
    assert.strictEqual(sent.at(-2), search)
  })

  it("a string input is one user message, and comes back as the string", () => {
    const body = { model: "gpt-5", input: "hello", instructions: "be brief" }
    const result = decoded(body)
    assert.deepStrictEqual(result.transcript.map((m) => [m._tag, m.content]), [["User", "hello"]])
    assert.strictEqual(result.encode(result.transcript), body)
  })

  it("a compacted block is a user message of input_text, and the body's other fields stay", () => {
    const body = {
      model: "gpt-5",
      tools: [{ type: "function", name: "bash" }],
      input: [{ role: "user", content: "one" }, { role: "assistant", content: "two" }, {
        role: "user",
        content: "three"
      }]
    }
    const result = decoded(body)
    const block = new Transcript.CompactedBlock({
      id: "compacted-1",
      content: "summary",
      firstReplacedId: "m0",
      lastReplacedId: "m1"
    })
    const sent = result.encode([block, result.transcript[2]!]) as { input: ReadonlyArray<Item>; tools: unknown }
    assert.deepStrictEqual(sent.input[0], {
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "summary" }]
    })
    assert.strictEqual(sent.input[1], body.input[2])
    assert.strictEqual(sent.tools, body.tools)
  })

  it("reasoning and opaque items never become text: the summary sees placeholders, not encrypted content", () => {
    const input = [
      { role: "user", content: "go" },
      { type: "compaction", id: "cmp_1", encrypted_content: "SECRET-A" },
      { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "SECRET-B" },
      { type: "function_call", call_id: "c1", name: "bash", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: [{ type: "input_text", text: "ok" }] }
    ]
    const result = decoded(input)
    const texts = result.transcript.map((m) => m.content).join("\n")
    assert.notInclude(texts, "SECRET")
    assert.deepStrictEqual(result.transcript.map((m) => m._tag), ["User", "Assistant", "ToolResult"])
    assert.strictEqual(result.transcript[1]!.content, "[compaction]")
    assert.strictEqual(result.transcript[2]!.content, "ok")
  })

  it("an output answering a call no earlier item makes is refused, naming the item", () => {
    const result = OpenAiResponses.decodeResult([{ role: "user", content: "x" }, {
      type: "function_call_output",
      call_id: "c9",
      output: "?"
    }])
    assert.isTrue(TestCompat.isFailure(result))
    const refused = Option.getOrThrow(TestCompat.getFailure(result))
    assert.strictEqual(refused.format, "openai-responses")
    assert.strictEqual(refused.index, 1)
    assert.include(refused.reason, "c9")
  })

  it("detection: a Responses input is this format's, a plain text chat or a chat body stays the chat format's", () => {
    const detected = (document: unknown): Compat.Result<string, Adapter.AdapterError> =>
      Compat.matchResult(Formats.adapterFor(Adapters.all, document), {
        onFailure: (error): Compat.Result<string, Adapter.AdapterError> => Compat.Result.fail(error),
        onSuccess: (a) => Compat.Result.succeed(a.format)
      })
    assert.deepStrictEqual(
      detected([{ role: "user", content: "x" }, { type: "function_call", call_id: "c", name: "n", arguments: "{}" }]),
      Compat.Result.succeed("openai-responses")
    )
    assert.deepStrictEqual(
      detected({ model: "m", input: [{ role: "user", content: "x" }] }),
      Compat.Result.succeed("openai-responses")
    )
    assert.deepStrictEqual(detected([{ role: "user", content: "x" }]), Compat.Result.succeed("openai"))
    assert.deepStrictEqual(detected({ messages: [{ role: "user", content: "x" }] }), Compat.Result.succeed("openai"))
    assert.isFalse(OpenAiChat.detect([{ role: "user", content: [{ type: "input_text", text: "x" }] }]))
  })
})
