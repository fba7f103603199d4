import type * as Compat from "#compat"
import { Prompt } from "#compat-ai"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
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
import * as Property from "../../../support/Property.js"

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
  { role: "assistant", content: "There are two folders." }
]

const anthropicMessages = {
  model: "claude-sonnet-4",
  system: "You are a coding agent.",
  messages: [
    { role: "user", content: "list the files" },
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

const aiSdkMessages = [
  { role: "user", content: "list the files" },
  {
    role: "assistant",
    content: [{ type: "tool-call", toolCallId: "call_1", toolName: "bash", input: { command: "ls" } }]
  },
  {
    role: "tool",
    content: [{ type: "tool-result", toolCallId: "call_1", toolName: "bash", output: { type: "text", value: "src" } }]
  }
]

const plainText = [{ role: "user", content: "hi" }]

// -----------------------------------------------------------------------------
// Arbitrary encoded Prompts
// -----------------------------------------------------------------------------

type Encoded = Record<string, unknown>

const words = ["read", "the", "file", "parser", "cache", "fix", "test", "fails", "module", "config"]
const text = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 12 }).map((ws) => ws.join(" "))
const hex = fc.stringMatching(/^[0-9a-f]{8}$/)
const options = fc.option(fc.constant({ anthropic: { cacheControl: { type: "ephemeral" } } }), { nil: undefined })
const withOptions = (
  value: Encoded,
  opts: Encoded | undefined
): Encoded => (opts === undefined ? value : { ...value, options: opts })

const envelope = (id: string, stdout: string) => ({
  protocol: "agentic-workspace/v1",
  tool: "workspace_command",
  action: "status",
  ok: true,
  data: { job: { id: `job_${id}`, status: "exited", exitCode: 0 }, stdout },
  retention: { importance: "normal", facts: [`job_${id} exited 0`] }
})

const result: fc.Arbitrary<unknown> = fc.oneof(
  text,
  fc.tuple(hex, text).map(([id, stdout]) => envelope(id, stdout)),
  fc.jsonValue({ maxDepth: 3 })
)

const call = fc.record({
  name: fc.constantFrom("bash", "workspace_command", "read_file"),
  params: fc.oneof(fc.record({ command: text }), fc.jsonValue({ maxDepth: 2 })),
  result,
  isFailure: fc.boolean(),
  options
})

const step = fc.record({
  reasoning: fc.option(text, { nil: undefined }),
  text: fc.option(text, { nil: undefined }),
  calls: fc.array(call, { minLength: 1, maxLength: 3 }),
  providerExecuted: fc.boolean()
})

const turn = fc.record({
  user: fc.oneof(
    text,
    fc.tuple(text, fc.boolean()).map((
      [t, file]
    ) => [{ type: "text", text: t }, ...(file ? [{ type: "file", mediaType: "image/png", data: "iVBORw0KGgo" }] : [])])
  ),
  userOptions: options,
  steps: fc.array(step, { maxLength: 3 }),
  reply: fc.oneof(text, text.map((t) => [{ type: "text", text: t }]))
})

/** Encoded Prompt messages: a system message, then turns of a user message, tool steps and a reply; call ids unique. */
const promptMessages: fc.Arbitrary<Array<Encoded>> = fc.tuple(
  fc.boolean(),
  fc.array(turn, { minLength: 1, maxLength: 5 })
).map(([system, turns]) => {
  let callId = 0
  const messages: Array<Encoded> = system ? [{ role: "system", content: "You are a coding agent." }] : []
  for (const t of turns) {
    messages.push(withOptions({ role: "user", content: t.user }, t.userOptions))
    for (const s of t.steps) {
      const calls = s.calls.map((c) => ({ ...c, id: `call_${callId++}` }))
      // The first call of a provider-executed step has its result inside the assistant message.
      const inline = s.providerExecuted ? calls.slice(0, 1) : []
      const resultPart = (c: (typeof calls)[number], providerExecuted: boolean) =>
        withOptions({
          type: "tool-result",
          id: c.id,
          name: c.name,
          isFailure: c.isFailure,
          result: c.result,
          providerExecuted
        }, c.options)
      messages.push({
        role: "assistant",
        content: [
          ...(s.reasoning === undefined ? [] : [{ type: "reasoning", text: s.reasoning }]),
          ...(s.text === undefined ? [] : [{ type: "text", text: s.text }]),
          ...calls.map((c, i) => ({
            type: "tool-call",
            id: c.id,
            name: c.name,
            params: c.params,
            ...(inline.length > 0 && i === 0 ? { providerExecuted: true } : {})
          })),
          ...inline.map((c) => resultPart(c, true))
        ]
      })
      const rest = calls.slice(inline.length)
      if (rest.length > 0) messages.push({ role: "tool", content: rest.map((c) => resultPart(c, false)) })
    }
    messages.push({ role: "assistant", content: t.reply })
  }
  return messages
})

// -----------------------------------------------------------------------------
// Helpers
// -----------------------------------------------------------------------------

const right = <A, E>(result: Compat.Result<A, E>): A => {
  if (TestCompat.isFailure(result)) {
    assert.fail(`expected a success, got ${JSON.stringify(Option.getOrUndefined(TestCompat.getFailure(result)))}`)
  }
  return TestCompat.getOrThrow(result)
}

const left = <A, E>(result: Compat.Result<A, E>): E =>
  Option.getOrElse(TestCompat.getFailure(result), () => assert.fail("expected an AdapterError"))

/** New objects with the same fields: the encoder must recognise them by id and content, not identity. */
const rebuilt = (transcript: Transcript.Transcript): Transcript.Transcript =>
  transcript.map((message) =>
    Object.assign(Object.create(Object.getPrototypeOf(message) as object) as Transcript.Message, message)
  )

const encodePrompt = Schema.encodeSync(Prompt.Prompt)
const decodePrompt = Schema.decodeUnknownSync(Prompt.Prompt)

/** A document is valid: `Prompt.make` accepts it, and its transcript passes the view check (every call paired). */
const assertValidMessages = (messages: unknown) => {
  assert.isTrue(Array.isArray(messages))
  Prompt.make(messages as ReadonlyArray<Prompt.MessageEncoded>)
  const again = right(EffectAiPrompt.adapter.decodeResult(messages))
  assert.deepStrictEqual(ViewCheck.check(again.transcript), [])
  return again
}

// -----------------------------------------------------------------------------
// Tests
// -----------------------------------------------------------------------------

describe("EffectAiPrompt round trip", () => {
  Property.prop(
    "an uncompacted array or { content } document decodes and encodes back unchanged, from the same or rebuilt messages",
    [promptMessages],
    ([messages]) => {
      for (const document of [messages, { content: messages, note: "kept" }]) {
        const decoded = right(EffectAiPrompt.adapter.decodeResult(document))
        assert.strictEqual(decoded.format, "effect-ai")
        assert.strictEqual(decoded.encode(decoded.transcript), document)
        assert.deepStrictEqual(decoded.encode(rebuilt(decoded.transcript)), document)
      }
    }
  )

  Property.prop(
    "a Prompt value round-trips to an equal Prompt through fromPrompt and toPrompt",
    [promptMessages],
    ([messages]) => {
      const prompt = decodePrompt({ content: messages })
      const decoded = right(EffectAiPrompt.fromPrompt(prompt))
      const back = EffectAiPrompt.toPrompt(decoded, rebuilt(decoded.transcript))
      assert.isTrue(Prompt.isPrompt(back))
      assert.deepStrictEqual(encodePrompt(back), encodePrompt(prompt))
      back.content.forEach((message, i) => assert.strictEqual(message, prompt.content[i]))
      assert.isTrue(Prompt.isPrompt(decoded.encode(rebuilt(decoded.transcript))))
    }
  )

  Property.prop(
    "neutral ids are index-based and stable as the transcript grows",
    [promptMessages, fc.nat()],
    ([messages, cut]) => {
      const whole = right(EffectAiPrompt.adapter.decodeResult(messages)).transcript
      const k = cut % (messages.length + 1)
      const prefix = right(EffectAiPrompt.adapter.decodeResult(messages.slice(0, k))).transcript
      const expected = whole.filter((message) => Number(/^m(\d+)/.exec(message.id)![1]) < k)
      assert.deepStrictEqual(prefix.map((m) => m.id), expected.map((m) => m.id))
      for (const message of whole) assert.match(message.id, /^m\d+(\.\d+)?$/)
    }
  )
})

describe("EffectAiPrompt tool results", () => {
  const job = envelope("0000beef", "all tests passed")
  const messages = [
    { role: "user", content: "check the job" },
    {
      role: "assistant",
      content: [{ type: "tool-call", id: "c1", name: "workspace_command", params: { action: "status" } }]
    },
    {
      role: "tool",
      content: [{
        type: "tool-result",
        id: "c1",
        name: "workspace_command",
        isFailure: false,
        result: job,
        providerExecuted: false
      }]
    }
  ]

  it("a tool call's params become JSON text arguments", () => {
    const decoded = right(EffectAiPrompt.adapter.decodeResult(messages))
    const assistant = decoded.transcript[1] as Transcript.AssistantMessage
    assert.deepStrictEqual(assistant.toolCalls.map((c) => ({ ...c })), [{
      id: "c1",
      name: "workspace_command",
      arguments: "{\"action\":\"status\"}"
    }])
  })

  it("an envelope result becomes JSON text content and comes back as the same object", () => {
    const decoded = right(EffectAiPrompt.adapter.decodeResult(messages))
    const result = decoded.transcript[2] as Transcript.ToolResult
    assert.strictEqual(result._tag, "ToolResult")
    assert.strictEqual(result.content, JSON.stringify(job))
    assert.deepStrictEqual({ id: result.id, toolCallId: result.toolCallId, name: result.name }, {
      id: "m2",
      toolCallId: "c1",
      name: "workspace_command"
    })
    const encoded = decoded.encode(rebuilt(decoded.transcript)) as Array<Encoded>
    assert.strictEqual((encoded[2]!["content"] as Array<Encoded>)[0]!["result"], job)
  })

  it("a reduced envelope result is written back as the JSON value its text denotes", () => {
    const decoded = right(EffectAiPrompt.adapter.decodeResult(messages))
    const result = decoded.transcript[2] as Transcript.ToolResult
    const reduced = new Transcript.ToolResult({ ...result, content: JSON.stringify({ ...job, data: "[omitted]" }) })
    const encoded = decoded.encode([decoded.transcript[0]!, decoded.transcript[1]!, reduced]) as Array<Encoded>
    assert.deepStrictEqual((encoded[2]!["content"] as Array<Encoded>)[0]!["result"], { ...job, data: "[omitted]" })
  })
})

describe("EffectAiPrompt compacted views", () => {
  const stage = envelope("0000cafe", "staged")
  const messages: Array<Encoded> = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "fix the cache" },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "Read first, then stage." },
        { type: "text", text: "Let me look." },
        { type: "tool-call", id: "c1", name: "bash", params: { command: "cat cache.ts" } },
        { type: "tool-call", id: "c2", name: "workspace_edit", params: { action: "stage" } }
      ],
      options: { anthropic: { cacheControl: { type: "ephemeral" } } }
    },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          id: "c1",
          name: "bash",
          isFailure: false,
          result: "export const cache = 1",
          providerExecuted: false
        },
        {
          type: "tool-result",
          id: "c2",
          name: "workspace_edit",
          isFailure: false,
          result: stage,
          providerExecuted: false
        }
      ]
    },
    { role: "assistant", content: "Staged." },
    { role: "user", content: [{ type: "text", text: "run the tests" }] },
    { role: "assistant", content: [{ type: "tool-call", id: "c3", name: "bash", params: { command: "npm test" } }] },
    {
      role: "tool",
      content: [{
        type: "tool-result",
        id: "c3",
        name: "bash",
        isFailure: false,
        result: "ok",
        providerExecuted: false
      }]
    },
    { role: "assistant", content: "Tests pass." }
  ]

  /** The view by hand: system, the block, the assistant narrowed to c2 with its result, the tail. */
  const viewOf = (transcript: Transcript.Transcript) => {
    const byId = (id: string) => transcript.find((m) => m.id === id)!
    assert.deepStrictEqual(transcript.map((m) => m.id), ["m0", "m1", "m2", "m3", "m3.1", "m4", "m5", "m6", "m7", "m8"])
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
    return { block, view: [byId("m0"), block, narrowed, byId("m3.1"), byId("m5"), byId("m6"), byId("m7"), byId("m8")] }
  }

  const expected = (block: Transcript.CompactedBlock) => [
    messages[0],
    { role: "user", content: [{ type: "text", text: block.content }] },
    {
      ...messages[2],
      content: [
        ...(messages[2]!["content"] as Array<Encoded>).slice(0, 2),
        (messages[2]!["content"] as Array<Encoded>)[3]
      ]
    },
    { role: "tool", content: [(messages[3]!["content"] as Array<Encoded>)[1]] },
    ...messages.slice(5)
  ]

  it("a narrowed assistant keeps its reasoning with the kept call, its tool message keeps the kept result, and the block is a user message", () => {
    const decoded = right(EffectAiPrompt.adapter.decodeResult(messages))
    const { block, view } = viewOf(decoded.transcript)
    const encoded = decoded.encode(view)
    assert.deepStrictEqual(encoded, expected(block))
    const again = assertValidMessages(encoded)
    assert.strictEqual(again.transcript[1]!._tag, "User")
    assert.strictEqual(again.transcript[1]!.content, block.content)
  })

  it("the same view of a Prompt value gives a Prompt value of the same messages", () => {
    const decoded = right(EffectAiPrompt.fromPrompt(decodePrompt({ content: messages })))
    const { block, view } = viewOf(decoded.transcript)
    const back = EffectAiPrompt.toPrompt(decoded, view)
    assert.isTrue(Prompt.isPrompt(back))
    assert.deepStrictEqual(encodePrompt(back), encodePrompt(decodePrompt({ content: expected(block) })))
  })

  it("toPrompt of a JSON document gives a Prompt value", () => {
    const decoded = right(EffectAiPrompt.adapter.decodeResult({ content: messages }))
    const { block, view } = viewOf(decoded.transcript)
    const back = EffectAiPrompt.toPrompt(decoded, view)
    assert.deepStrictEqual(encodePrompt(back), encodePrompt(decodePrompt({ content: expected(block) })))
    assert.deepStrictEqual((decoded.encode(view) as Encoded)["content"], expected(block))
  })
})

describe("EffectAiPrompt toPrompt of another format", () => {
  it("writes every message of a view decoded from AI SDK messages anew, as a valid Prompt", () => {
    const decoded = right(AiSdkMessages.adapter.decodeResult(aiSdkMessages))
    const block = new Transcript.CompactedBlock({
      id: "compacted-1",
      content: "summary",
      firstReplacedId: "m0",
      lastReplacedId: "m0"
    })
    const prompt = EffectAiPrompt.toPrompt(decoded, [block, ...decoded.transcript.slice(1)])
    assert.isTrue(Prompt.isPrompt(prompt))
    assert.deepStrictEqual(
      encodePrompt(prompt),
      encodePrompt(decodePrompt({
        content: [
          { role: "user", content: [{ type: "text", text: "summary" }] },
          {
            role: "assistant",
            content: [{
              type: "tool-call",
              id: "call_1",
              name: "bash",
              params: { command: "ls" },
              providerExecuted: false
            }]
          },
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
      }))
    )
  })
})

describe("EffectAiPrompt bad documents", () => {
  const cases: ReadonlyArray<readonly [string, unknown, number | undefined, string]> = [
    ["not a document", "hello", undefined, "expected a Prompt"],
    ["an unknown role", [{ role: "system", content: "s" }, { role: "bot", content: "x" }], 1, "role \"bot\""],
    ["a message that is not an object", [{ role: "user", content: "x" }, 3], 1, "not a message object"],
    [
      "a tool call without an id",
      [{ role: "user", content: "x" }, {
        role: "assistant",
        content: [{ type: "tool-call", name: "bash", params: {} }]
      }],
      1,
      "no string id"
    ],
    [
      "a tool message with text content",
      [{ role: "user", content: "x" }, { role: "tool", content: "done" }],
      1,
      "not an array of parts"
    ],
    [
      "an OpenAI tool-result shape",
      [{ role: "tool", content: [{ type: "tool-result", toolCallId: "c", toolName: "bash" }] }],
      0,
      "no string id"
    ],
    [
      "an unknown part type",
      [{ role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] }],
      0,
      "type \"image_url\""
    ],
    [
      "options that are not an object",
      [{ role: "user", content: "x", options: 5 }],
      0,
      "not an encoded Prompt message"
    ],
    ["a system message with parts", [{ role: "system", content: [{ type: "text", text: "s" }] }], 0, "not a string"]
  ]
  for (const [name, document, index, reason] of cases) {
    it(`${name} is an AdapterError with its index and reason`, () => {
      const error: Adapter.AdapterError = left(EffectAiPrompt.adapter.decodeResult(document))
      assert.strictEqual(error._tag, "AdapterError")
      assert.strictEqual(error.format, "effect-ai")
      assert.strictEqual(error.index, index)
      assert.include(error.reason, reason)
    })
  }

  it("decode never throws on arbitrary values", () =>
    fc.assert(
      fc.property(fc.anything(), fc.array(fc.anything()), (value, array) => {
        EffectAiPrompt.adapter.decodeResult(value)
        EffectAiPrompt.adapter.decodeResult(array)
        EffectAiPrompt.adapter.decodeResult({ content: array })
      }),
      { numRuns: 200 }
    ))
})

describe("EffectAiPrompt detection", () => {
  it("does not claim OpenAI chat, Anthropic messages, AI SDK messages, or a plain text transcript", () => {
    for (
      const document of [
        openAiChat,
        anthropicMessages,
        anthropicMessages.messages,
        aiSdkMessages,
        { messages: aiSdkMessages },
        plainText,
        "text",
        null,
        {}
      ]
    ) {
      assert.isFalse(EffectAiPrompt.adapter.detect(document), JSON.stringify(document))
    }
  })

  it("claims a Prompt value, and the { content } wrapper even with text only", () => {
    assert.isTrue(EffectAiPrompt.adapter.detect(Prompt.make("hi")))
    assert.isTrue(EffectAiPrompt.adapter.detect({ content: plainText }))
  })

  Property.prop(
    "claims generated Prompts with a tool part, which the AI SDK adapter does not",
    [promptMessages],
    ([messages]) => {
      const hasTool = messages.some((m) =>
        Array.isArray(m["content"]) && (m["content"] as Array<Encoded>).some((part) => part["type"] === "tool-call")
      )
      assert.strictEqual(EffectAiPrompt.adapter.detect(messages), hasTool)
      assert.isTrue(EffectAiPrompt.adapter.detect({ content: messages }))
      assert.isFalse(AiSdkMessages.adapter.detect(messages))
    }
  )
})

// -----------------------------------------------------------------------------
// End to end through the compaction engine
// -----------------------------------------------------------------------------

const engine = Compactor.layer({ policies: builtInPolicies }).pipe(
  Layer.provideMerge(Testing.layer({ settings: { replyReserveTokens: 200 } }))
)

const longPrompt = (): Array<Encoded> => [
  { role: "system", content: "You are a coding agent." },
  ...Array.from({ length: 12 }, (_, i) => [
    { role: "user", content: `request ${i}: ` + "please fix the parser cache ".repeat(20) },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: `step ${i}` },
        { type: "text", text: "Let me check." },
        { type: "tool-call", id: `c${i}a`, name: "bash", params: { command: `cat src/file${i}.ts` } },
        {
          type: "tool-call",
          id: `c${i}b`,
          name: "workspace_command",
          params: { action: "status", job_id: `job_0000000${i}` }
        }
      ]
    },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          id: `c${i}a`,
          name: "bash",
          isFailure: false,
          result: `<returncode>0</returncode>\n<output>\n${"line of code\n".repeat(300)}</output>`,
          providerExecuted: false
        },
        {
          type: "tool-result",
          id: `c${i}b`,
          name: "workspace_command",
          isFailure: false,
          result: envelope(`0000000${i}`, "test output line\n".repeat(200)),
          providerExecuted: false
        }
      ]
    },
    { role: "assistant", content: `done with step ${i}` }
  ]).flat()
]

describe("EffectAiPrompt through the Compactor", () => {
  it.effect("a long Prompt is compacted, and the view encodes into a valid Prompt holding the block as a user message", () =>
    Effect.gen(function*() {
      const document = longPrompt()
      const decoded = right(EffectAiPrompt.adapter.decodeResult(document))
      const compactor = yield* Compactor.Compactor
      const checkpoint = yield* compactor.checkpoint({
        sessionId: "prompt",
        transcript: decoded.transcript,
        model: "test-model",
        contextWindow: 8_000
      })
      assert.isTrue(Option.isSome(checkpoint.compacted))
      const block = checkpoint.view.find((m): m is Transcript.CompactedBlock => m._tag === "Compacted")!
      const encoded = decoded.encode(checkpoint.view) as Array<Encoded>
      assertValidMessages(encoded)
      assert.isBelow(encoded.length, document.length)
      assert.deepStrictEqual(encoded[1], { role: "user", content: [{ type: "text", text: block.content }] })
      assert.strictEqual(encoded.at(-1), document.at(-1))
      const prompt = EffectAiPrompt.toPrompt(decoded, checkpoint.view)
      assert.deepStrictEqual(
        encodePrompt(prompt).content,
        encodePrompt(Prompt.make(encoded as unknown as ReadonlyArray<Prompt.MessageEncoded>)).content
      )
    }).pipe(Effect.provide(engine)))
})

describe("EffectAiPrompt.decodeSteps", () => {
  Property.effectProp(
    "run at once or pausing at every step, the steps decode as decode does (transcript, encoded views, error) and pause once every 32 messages",
    [DecodeSteps.variants(promptMessages)],
    ([document]) => DecodeSteps.assertStepsAgree(EffectAiPrompt.adapter, document),
    { fastCheck: { numRuns: 60 } }
  )
})
