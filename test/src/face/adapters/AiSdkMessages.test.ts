import * as Compat from "#compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as EffectAiPrompt from "../../../../src/apps/effect-ai/EffectAiPrompt.js"
import type * as Adapter from "../../../../src/face/adapters/Adapter.js"
import * as AiSdkMessages from "../../../../src/face/adapters/AiSdkMessages.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as ViewCheck from "../../../../src/face/engine/ViewCheck.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as DecodeSteps from "../../../support/DecodeSteps.js"
import { effectProp, prop } from "../../../support/Property.js"

// -----------------------------------------------------------------------------
// Sample documents of the other formats, for detection
// -----------------------------------------------------------------------------

const openAiChat = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "list the files" },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_1", type: "function", function: { name: "bash", arguments: "{\"command\":\"ls\"}" } }]
  },
  { role: "tool", tool_call_id: "call_1", content: "src\ntest" },
  { role: "assistant", content: [{ type: "text", text: "There are two folders." }] }
]

const anthropicMessages = {
  model: "claude-sonnet-4",
  system: "You are a coding agent.",
  messages: [
    {
      role: "user",
      content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo" } }, {
        type: "text",
        text: "list the files"
      }]
    },
    {
      role: "assistant",
      content: [{ type: "text", text: "Listing." }, {
        type: "tool_use",
        id: "toolu_1",
        name: "bash",
        input: { command: "ls" }
      }]
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "src\ntest" }] }
  ]
}

const effectAiPrompt = [
  { role: "user", content: "list the files" },
  { role: "assistant", content: [{ type: "tool-call", id: "call_1", name: "bash", params: { command: "ls" } }] },
  {
    role: "tool",
    content: [{
      type: "tool-result",
      id: "call_1",
      name: "bash",
      isFailure: false,
      result: "src",
      providerExecuted: false
    }]
  }
]

const plainText = [{ role: "user", content: "hi" }]

// -----------------------------------------------------------------------------
// Arbitrary ModelMessages
// -----------------------------------------------------------------------------

type Native = Record<string, unknown>

const words = ["read", "the", "file", "parser", "cache", "fix", "test", "fails", "module", "config"]
const text = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 12 }).map((ws) => ws.join(" "))
const hex = fc.stringMatching(/^[0-9a-f]{8}$/)
const providerOptions = fc.option(fc.constant({ anthropic: { cacheControl: { type: "ephemeral" } } }), {
  nil: undefined
})
const withOptions = (
  value: Native,
  options: Native | undefined
): Native => (options === undefined ? value : { ...value, providerOptions: options })

const envelope = (id: string, stdout: string) => ({
  protocol: "agentic-workspace/v1",
  tool: "workspace_command",
  action: "status",
  ok: true,
  data: { job: { id: `job_${id}`, status: "exited", exitCode: 0 }, stdout },
  retention: { importance: "normal", facts: [`job_${id} exited 0`] }
})

const output: fc.Arbitrary<Native> = fc.oneof(
  text.map((value) => ({ type: "text", value })),
  fc.tuple(hex, text).map(([id, stdout]) => ({ type: "json", value: envelope(id, stdout) })),
  fc.jsonValue({ maxDepth: 3 }).map((value) => ({ type: "json", value })),
  text.map((value) => ({ type: "error-text", value })),
  fc.jsonValue({ maxDepth: 2 }).map((value) => ({ type: "error-json", value })),
  text.map((t) => ({
    type: "content",
    value: [{ type: "text", text: t }, { type: "media", data: "iVBORw0KGgo", mediaType: "image/png" }]
  }))
)

const call = fc.record({
  toolName: fc.constantFrom("bash", "workspace_command", "read_file"),
  input: fc.oneof(fc.record({ command: text }), fc.jsonValue({ maxDepth: 2 })),
  output,
  providerOptions
})

const step = fc.record({
  reasoning: fc.option(text, { nil: undefined }),
  text: fc.option(text, { nil: undefined }),
  calls: fc.array(call, { minLength: 1, maxLength: 3 }),
  providerExecuted: fc.boolean()
})

const userContent = fc.oneof(
  text,
  fc.tuple(text, fc.constantFrom("none", "image", "file")).map(([t, attachment]) => [
    { type: "text", text: t },
    ...(attachment === "image" ? [{ type: "image", image: "https://example.com/a.png" }] : []),
    ...(attachment === "file"
      ? [{ type: "file", data: "JVBERi0=", mediaType: "application/pdf", filename: "a.pdf" }]
      : [])
  ])
)

const turn = fc.record({
  user: userContent,
  userOptions: providerOptions,
  steps: fc.array(step, { maxLength: 3 }),
  reply: fc.oneof(text, text.map((t) => [{ type: "text", text: t }]))
})

/** ModelMessages: a system message, then turns of a user message, tool steps and a reply; call ids unique. */
const modelMessages: fc.Arbitrary<Array<Native>> = fc.tuple(
  fc.boolean(),
  fc.array(turn, { minLength: 1, maxLength: 5 })
).map(([system, turns]) => {
  let callId = 0
  const messages: Array<Native> = system ? [{ role: "system", content: "You are a coding agent." }] : []
  for (const t of turns) {
    messages.push(withOptions({ role: "user", content: t.user }, t.userOptions))
    for (const s of t.steps) {
      const calls = s.calls.map((c) => ({ ...c, toolCallId: `call_${callId++}` }))
      // The first call of a provider-executed step has its result inside the assistant message.
      const inline = s.providerExecuted ? calls.slice(0, 1) : []
      const resultPart = (c: (typeof calls)[number]) =>
        withOptions(
          { type: "tool-result", toolCallId: c.toolCallId, toolName: c.toolName, output: c.output },
          c.providerOptions
        )
      messages.push({
        role: "assistant",
        content: [
          ...(s.reasoning === undefined ? [] : [{ type: "reasoning", text: s.reasoning }]),
          ...(s.text === undefined ? [] : [{ type: "text", text: s.text }]),
          ...calls.map((c, i) => ({
            type: "tool-call",
            toolCallId: c.toolCallId,
            toolName: c.toolName,
            input: c.input,
            ...(inline.length > 0 && i === 0 ? { providerExecuted: true } : {})
          })),
          ...inline.map(resultPart)
        ]
      })
      const rest = calls.slice(inline.length)
      if (rest.length > 0) messages.push({ role: "tool", content: rest.map(resultPart) })
    }
    messages.push({ role: "assistant", content: t.reply })
  }
  return messages
})

// -----------------------------------------------------------------------------
// Helpers
// -----------------------------------------------------------------------------

const right = <A, E>(either: Compat.Result<A, E>): A =>
  Compat.matchResult(either, {
    onFailure: (error) => assert.fail(`expected Right, got ${JSON.stringify(error)}`),
    onSuccess: (value) => value
  })

const left = <A, E>(either: Compat.Result<A, E>): E =>
  Compat.matchResult(either, { onFailure: (error) => error, onSuccess: () => assert.fail("expected an AdapterError") })

/** New objects with the same fields: the encoder must recognise them by id and content, not identity. */
const rebuilt = (transcript: Transcript.Transcript): Transcript.Transcript =>
  transcript.map((message) =>
    Object.assign(Object.create(Object.getPrototypeOf(message) as object) as Transcript.Message, message)
  )

const partsOf = (message: unknown): Array<Native> => (message as { content: Array<Native> }).content

/** A valid document: it decodes again, and its transcript passes the view check (every call paired). */
const assertValidMessages = (messages: unknown) => {
  assert.isTrue(Array.isArray(messages))
  const again = right(AiSdkMessages.adapter.decodeResult(messages))
  assert.deepStrictEqual(ViewCheck.check(again.transcript), [])
  return again
}

// -----------------------------------------------------------------------------
// Tests
// -----------------------------------------------------------------------------

describe("AiSdkMessages round trip", () => {
  prop(
    "an uncompacted array or { messages } document decodes and encodes back unchanged, from the same or rebuilt messages",
    [modelMessages],
    ([messages]) => {
      for (const document of [messages, { model: "gpt-5", messages, maxOutputTokens: 1000 }]) {
        const decoded = right(AiSdkMessages.adapter.decodeResult(document))
        assert.strictEqual(decoded.format, "ai-sdk")
        assert.strictEqual(decoded.encode(decoded.transcript), document)
        assert.deepStrictEqual(decoded.encode(rebuilt(decoded.transcript)), document)
      }
      const typed = right(AiSdkMessages.fromMessages(messages as unknown as ReadonlyArray<AiSdkMessages.ModelMessage>))
      assert.deepStrictEqual<unknown>(AiSdkMessages.toMessages(typed, rebuilt(typed.transcript)), messages)
    }
  )

  prop(
    "providerOptions: undefined (which an ai@5 ModelMessage may carry) reads as no options: the same transcript, the document itself back",
    [modelMessages],
    ([messages]) => {
      const withUndefined = messages.map((message) => ({ ...message, providerOptions: undefined }))
      const decoded = right(AiSdkMessages.adapter.decodeResult(withUndefined))
      assert.deepStrictEqual(decoded.transcript, right(AiSdkMessages.adapter.decodeResult(messages)).transcript)
      assert.strictEqual(decoded.encode(decoded.transcript), withUndefined)
      const tail = decoded.encode(decoded.transcript.slice(1)) as Array<unknown>
      assert.strictEqual(tail.length, withUndefined.length - 1)
      tail.forEach((message, i) => assert.strictEqual(message, withUndefined[i + 1]))
    }
  )

  prop("unknown fields of messages and parts are kept: an unchanged message comes back as the very object", [
    modelMessages
  ], ([messages]) => {
    const extended = messages.map((message) => ({ ...message, "x-trace": { id: "t1" } }))
    const decoded = right(AiSdkMessages.adapter.decodeResult(extended))
    const view = decoded.transcript.filter((message) => message._tag !== "System")
    const encoded = decoded.encode(view) as Array<Native>
    for (const message of encoded) assert.deepStrictEqual(message["x-trace"], { id: "t1" })
    assert.isTrue(encoded.some((message) => extended.includes(message as never)))
  })

  prop(
    "neutral ids are index-based and stable as the transcript grows",
    [modelMessages, fc.nat()],
    ([messages, cut]) => {
      const whole = right(AiSdkMessages.adapter.decodeResult(messages)).transcript
      const k = cut % (messages.length + 1)
      const prefix = right(AiSdkMessages.adapter.decodeResult(messages.slice(0, k))).transcript
      const expected = whole.filter((message) => Number(/^m(\d+)/.exec(message.id)![1]) < k)
      assert.deepStrictEqual(prefix.map((m) => m.id), expected.map((m) => m.id))
      for (const message of whole) assert.match(message.id, /^m\d+(\.\d+)?$/)
    }
  )
})

describe("AiSdkMessages tool results", () => {
  const job = envelope("0000beef", "all tests passed")
  const messages = [
    { role: "user", content: "check the job" },
    {
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "c1", toolName: "workspace_command", input: { action: "status" } }]
    },
    {
      role: "tool",
      content: [
        { type: "tool-result", toolCallId: "c1", toolName: "workspace_command", output: { type: "json", value: job } },
        {
          type: "tool-result",
          toolCallId: "c1",
          toolName: "workspace_command",
          output: { type: "error-text", value: "late duplicate" }
        }
      ]
    }
  ]

  it("a tool call's input becomes JSON text arguments, and each result of a tool message its own neutral result", () => {
    const decoded = right(AiSdkMessages.adapter.decodeResult(messages))
    const assistant = decoded.transcript[1] as Transcript.AssistantMessage
    assert.deepStrictEqual(assistant.toolCalls.map((c) => ({ ...c })), [{
      id: "c1",
      name: "workspace_command",
      arguments: "{\"action\":\"status\"}"
    }])
    assert.deepStrictEqual(decoded.transcript.map((m) => `${m._tag}:${m.id}`), [
      "User:m0",
      "Assistant:m1",
      "ToolResult:m2",
      "ToolResult:m2.1"
    ])
    assert.strictEqual(decoded.transcript[3]!.content, "late duplicate")
  })

  it("a json output holding an envelope becomes JSON text content and comes back as the same object", () => {
    const decoded = right(AiSdkMessages.adapter.decodeResult(messages))
    const result = decoded.transcript[2] as Transcript.ToolResult
    assert.strictEqual(result.content, JSON.stringify(job))
    assert.strictEqual(result.name, "workspace_command")
    const encoded = decoded.encode(rebuilt(decoded.transcript)) as Array<Native>
    assert.strictEqual((partsOf(encoded[2])[0]!["output"] as Native)["value"], job)
  })

  it("a reduced json result stays json, and a reduction that is not JSON becomes text", () => {
    const decoded = right(AiSdkMessages.adapter.decodeResult(messages))
    const result = decoded.transcript[2] as Transcript.ToolResult
    const reduced = new Transcript.ToolResult({ ...result, content: JSON.stringify({ ...job, data: "[omitted]" }) })
    const clipped = new Transcript.ToolResult({ ...result, content: "{\"protocol\": … clipped" })
    const first = decoded.encode([decoded.transcript[0]!, decoded.transcript[1]!, reduced]) as Array<Native>
    assert.deepStrictEqual(partsOf(first[2])[0]!["output"], { type: "json", value: { ...job, data: "[omitted]" } })
    const second = decoded.encode([decoded.transcript[0]!, decoded.transcript[1]!, clipped]) as Array<Native>
    assert.deepStrictEqual(partsOf(second[2])[0]!["output"], { type: "text", value: "{\"protocol\": … clipped" })
  })

  it("AI SDK v4 parts (args, result) are read and written back as they came", () => {
    const v4 = [
      { role: "user", content: "check" },
      {
        role: "assistant",
        content: [{ type: "text", text: "Checking." }, {
          type: "tool-call",
          toolCallId: "a",
          toolName: "bash",
          args: { command: "ls" }
        }, { type: "tool-call", toolCallId: "b", toolName: "status", args: {} }]
      },
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "a", toolName: "bash", result: "src" }, {
          type: "tool-result",
          toolCallId: "b",
          toolName: "status",
          result: job
        }]
      },
      { role: "assistant", content: "Done." }
    ]
    const decoded = right(AiSdkMessages.adapter.decodeResult(v4))
    assert.strictEqual(
      (decoded.transcript[1] as Transcript.AssistantMessage).toolCalls[0]!.arguments,
      "{\"command\":\"ls\"}"
    )
    assert.strictEqual(decoded.transcript[3]!.content, JSON.stringify(job))
    assert.deepStrictEqual(decoded.encode(rebuilt(decoded.transcript)), v4)
    const assistant = decoded.transcript[1] as Transcript.AssistantMessage
    const narrowed = new Transcript.AssistantMessage({ ...assistant, toolCalls: [assistant.toolCalls[1]!] })
    const encoded = decoded.encode([decoded.transcript[0]!, narrowed, decoded.transcript[3]!, decoded.transcript[4]!])
    assert.deepStrictEqual(encoded, [v4[0], { ...v4[1], content: [partsOf(v4[1])[0], partsOf(v4[1])[2]] }, {
      role: "tool",
      content: [partsOf(v4[2])[1]]
    }, v4[3]])
  })
})

describe("AiSdkMessages compacted views", () => {
  const stage = envelope("0000cafe", "staged")
  const messages: Array<Native> = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "fix the cache" },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "Read first, then stage.", providerOptions: { anthropic: { signature: "sig" } } },
        { type: "text", text: "Let me look." },
        { type: "tool-call", toolCallId: "c1", toolName: "bash", input: { command: "cat cache.ts" } },
        { type: "tool-call", toolCallId: "c2", toolName: "workspace_edit", input: { action: "stage" } }
      ]
    },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "c1",
          toolName: "bash",
          output: { type: "text", value: "export const cache = 1" }
        },
        { type: "tool-result", toolCallId: "c2", toolName: "workspace_edit", output: { type: "json", value: stage } }
      ]
    },
    { role: "assistant", content: "Staged." },
    { role: "user", content: [{ type: "text", text: "run the tests" }] },
    {
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "c3", toolName: "bash", input: { command: "npm test" } }]
    },
    {
      role: "tool",
      content: [{ type: "tool-result", toolCallId: "c3", toolName: "bash", output: { type: "text", value: "ok" } }]
    },
    { role: "assistant", content: "Tests pass." }
  ]

  it("a narrowed assistant keeps its reasoning with the kept call, its tool message keeps the kept result, and the block is a user message", () => {
    const decoded = right(AiSdkMessages.adapter.decodeResult({ messages, temperature: 0 }))
    const transcript = decoded.transcript
    assert.deepStrictEqual(transcript.map((m) => m.id), ["m0", "m1", "m2", "m3", "m3.1", "m4", "m5", "m6", "m7", "m8"])
    const byId = (id: string) => transcript.find((m) => m.id === id)!
    const assistant = byId("m2") as Transcript.AssistantMessage
    const narrowed = new Transcript.AssistantMessage({
      ...assistant,
      toolCalls: assistant.toolCalls.filter((c) => c.id === "c2")
    })
    const block = new Transcript.CompactedBlock({
      id: "compacted-1",
      content: "# Context compacted\nThe user asked to fix the cache.",
      firstReplacedId: "m1",
      lastReplacedId: "m4"
    })
    const encoded = decoded.encode([
      byId("m0"),
      block,
      narrowed,
      byId("m3.1"),
      byId("m5"),
      byId("m6"),
      byId("m7"),
      byId("m8")
    ]) as Native
    assert.strictEqual(encoded["temperature"], 0)
    assert.deepStrictEqual(encoded["messages"], [
      messages[0],
      { role: "user", content: [{ type: "text", text: block.content }] },
      { role: "assistant", content: [...partsOf(messages[2]).slice(0, 2), partsOf(messages[2])[3]] },
      { role: "tool", content: [partsOf(messages[3])[1]] },
      ...messages.slice(5)
    ])
    const again = assertValidMessages(encoded["messages"])
    assert.strictEqual(again.transcript[1]!._tag, "User")
    assert.strictEqual(again.transcript[1]!.content, block.content)
  })

  it("messages a view adds are written anew: an edited assistant text, a new call and its result", () => {
    const decoded = right(AiSdkMessages.adapter.decodeResult(messages))
    const transcript = decoded.transcript
    const edited = new Transcript.AssistantMessage({
      ...(transcript[2] as Transcript.AssistantMessage),
      content: "Looking."
    })
    const call = new Transcript.ToolCall({ id: "n1", name: "bash", arguments: "{\"command\":\"pwd\"}" })
    const extra = [
      new Transcript.AssistantMessage({ id: "x1", content: "", toolCalls: [call] }),
      new Transcript.ToolResult({ id: "x2", toolCallId: "n1", content: "/work" })
    ]
    const encoded = decoded.encode([...transcript.slice(0, 2), edited, ...transcript.slice(3), ...extra]) as Array<
      Native
    >
    assert.deepStrictEqual(partsOf(encoded[2]).map((p) => p["type"]), ["reasoning", "text", "tool-call", "tool-call"])
    assert.strictEqual(partsOf(encoded[2])[1]!["text"], "Looking.")
    assert.deepStrictEqual(encoded.slice(-2), [
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "n1", toolName: "bash", input: { command: "pwd" } }]
      },
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "n1", toolName: "bash", output: { type: "text", value: "/work" } }]
      }
    ])
    assertValidMessages(encoded)
  })
})

describe("AiSdkMessages bad documents", () => {
  const cases: ReadonlyArray<readonly [string, unknown, number | undefined, string]> = [
    ["not a document", 42, undefined, "expected an array of AI SDK ModelMessages"],
    [
      "an unknown role",
      [{ role: "system", content: "s" }, { role: "developer", content: "x" }],
      1,
      "role \"developer\""
    ],
    ["a message that is not an object", [{ role: "user", content: "x" }, null], 1, "not a message object"],
    [
      "a tool call without a toolCallId",
      [{ role: "user", content: "x" }, {
        role: "assistant",
        content: [{ type: "tool-call", toolName: "bash", input: {} }]
      }],
      1,
      "no string toolCallId"
    ],
    [
      "a tool call without input or args",
      [{ role: "assistant", content: [{ type: "tool-call", toolCallId: "c", toolName: "bash" }] }],
      0,
      "neither an input"
    ],
    [
      "a tool message with text content",
      [{ role: "user", content: "x" }, { role: "tool", content: "done" }],
      1,
      "not an array of tool-result parts"
    ],
    [
      "an output of an unknown type",
      [{
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c", toolName: "bash", output: { type: "html", value: "x" } }]
      }],
      0,
      "type \"html\""
    ],
    [
      "an Anthropic tool_use block",
      [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "bash", input: {} }] }],
      0,
      "type \"tool_use\""
    ],
    [
      "providerOptions that are not an object",
      [{ role: "user", content: "x", providerOptions: "fast" }],
      0,
      "providerOptions"
    ],
    ["a system message with parts", [{ role: "system", content: [{ type: "text", text: "s" }] }], 0, "not a string"]
  ]
  for (const [name, document, index, reason] of cases) {
    it(`${name} is an AdapterError with its index and reason`, () => {
      const error: Adapter.AdapterError = left(AiSdkMessages.adapter.decodeResult(document))
      assert.strictEqual(error._tag, "AdapterError")
      assert.strictEqual(error.format, "ai-sdk")
      assert.strictEqual(error.index, index)
      assert.include(error.reason, reason)
    })
  }

  it("decode never throws on arbitrary values", () =>
    fc.assert(
      fc.property(fc.anything(), fc.array(fc.anything()), (value, array) => {
        AiSdkMessages.adapter.decodeResult(value)
        AiSdkMessages.adapter.decodeResult(array)
        AiSdkMessages.adapter.decodeResult({ messages: array })
      }),
      { numRuns: 200 }
    ))
})

describe("AiSdkMessages detection", () => {
  it("does not claim OpenAI chat, Anthropic messages, @effect/ai Prompts, or a plain text transcript", () => {
    for (
      const document of [
        openAiChat,
        { model: "gpt-4o", messages: openAiChat },
        anthropicMessages,
        anthropicMessages.messages,
        effectAiPrompt,
        { content: effectAiPrompt },
        plainText,
        "text",
        null,
        {}
      ]
    ) {
      assert.isFalse(AiSdkMessages.adapter.detect(document), JSON.stringify(document))
    }
  })

  it("claims v4 documents by their tool parts", () => {
    assert.isTrue(
      AiSdkMessages.adapter.detect([{
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "a", toolName: "bash", args: {} }]
      }])
    )
  })

  prop("claims generated documents with an AI SDK part or providerOptions, which the Prompt adapter does not", [
    modelMessages
  ], ([messages]) => {
    const marked = messages.some((m) =>
      "providerOptions" in m ||
      (Array.isArray(m["content"]) && partsOf(m).some((p) => p["type"] === "tool-call" || p["type"] === "image"))
    )
    assert.strictEqual(AiSdkMessages.adapter.detect(messages), marked)
    assert.strictEqual(AiSdkMessages.adapter.detect({ messages }), marked)
    assert.isFalse(EffectAiPrompt.adapter.detect(messages))
  })
})

// -----------------------------------------------------------------------------
// End to end through the compaction engine
// -----------------------------------------------------------------------------

const engine = Compactor.layer({ policies: builtInPolicies }).pipe(
  Layer.provideMerge(Testing.layer({ settings: { replyReserveTokens: 200 } }))
)

const longMessages = (): Array<Native> => [
  { role: "system", content: "You are a coding agent." },
  ...Array.from({ length: 12 }, (_, i) => [
    { role: "user", content: `request ${i}: ` + "please fix the parser cache ".repeat(20) },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: `step ${i}` },
        { type: "text", text: "Let me check." },
        { type: "tool-call", toolCallId: `c${i}a`, toolName: "bash", input: { command: `cat src/file${i}.ts` } },
        {
          type: "tool-call",
          toolCallId: `c${i}b`,
          toolName: "workspace_command",
          input: { action: "status", job_id: `job_0000000${i}` }
        }
      ]
    },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: `c${i}a`,
          toolName: "bash",
          output: {
            type: "text",
            value: `<returncode>0</returncode>\n<output>\n${"line of code\n".repeat(300)}</output>`
          }
        },
        {
          type: "tool-result",
          toolCallId: `c${i}b`,
          toolName: "workspace_command",
          output: { type: "json", value: envelope(`0000000${i}`, "test output line\n".repeat(200)) }
        }
      ]
    },
    { role: "assistant", content: `done with step ${i}` }
  ]).flat()
]

describe("AiSdkMessages through the Compactor", () => {
  it.effect("a long conversation is compacted, and the view encodes into valid ModelMessages holding the block as a user message", () =>
    Effect.gen(function*() {
      const messages = longMessages()
      const decoded = right(AiSdkMessages.adapter.decodeResult({ messages }))
      const compactor = yield* Compactor.Compactor
      const checkpoint = yield* compactor.checkpoint({
        sessionId: "ai-sdk",
        transcript: decoded.transcript,
        model: "test-model",
        contextWindow: 8_000
      })
      assert.isTrue(Option.isSome(checkpoint.compacted))
      const block = checkpoint.view.find((m): m is Transcript.CompactedBlock => m._tag === "Compacted")!
      const encoded = (decoded.encode(checkpoint.view) as { messages: Array<Native> }).messages
      assertValidMessages(encoded)
      assert.isBelow(encoded.length, messages.length)
      assert.deepStrictEqual(encoded[1], { role: "user", content: [{ type: "text", text: block.content }] })
      assert.strictEqual(encoded.at(-1), messages.at(-1))
      assert.deepStrictEqual<unknown>(AiSdkMessages.toMessages(decoded, checkpoint.view), encoded)
    }).pipe(Effect.provide(engine)))
})

describe("AiSdkMessages.decodeSteps", () => {
  effectProp(
    "run at once or pausing at every step, the steps decode as decode does (transcript, encoded views, error) and pause once every 32 messages",
    [DecodeSteps.variants(modelMessages)],
    ([document]) => DecodeSteps.assertStepsAgree(AiSdkMessages.adapter, document),
    { fastCheck: { numRuns: 60 } }
  )
})
