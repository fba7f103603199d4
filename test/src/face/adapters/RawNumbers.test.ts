/**
 * A number a double cannot hold (`1e400`, a 30-digit integer) is read by
 * `Json.parse` as a placeholder string, so that it is written back as it came.
 * Where an adapter needs text, such a number is refused as any other number
 * is: it never becomes the text `"1e400"` of a message.
 */
import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as EffectAiPrompt from "../../../../src/apps/effect-ai/EffectAiPrompt.js"
import type * as Adapter from "../../../../src/face/adapters/Adapter.js"
import * as AiSdkMessages from "../../../../src/face/adapters/AiSdkMessages.js"
import * as AnthropicMessages from "../../../../src/face/adapters/AnthropicMessages.js"
import * as Formats from "../../../../src/face/adapters/Formats.js"
import * as OpenAiChat from "../../../../src/face/adapters/OpenAiChat.js"
import * as Json from "../../../../src/face/models/Json.js"
import { prop } from "../../../support/Property.js"

/** A valid document of each format, with tool calls and results. */
const documents: ReadonlyArray<readonly [Adapter.Adapter, unknown]> = [
  [OpenAiChat.adapter, [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: [{ type: "text", text: "list the files" }] },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "bash", arguments: "{\"command\":\"ls\"}" } }]
    },
    { role: "tool", tool_call_id: "call_1", content: "README.md" },
    { role: "assistant", content: "One file." }
  ]],
  [AnthropicMessages.adapter, {
    system: "You are a coding agent.",
    messages: [
      { role: "user", content: [{ type: "text", text: "list the files" }] },
      {
        role: "assistant",
        content: [{ type: "text", text: "Listing." }, {
          type: "tool_use",
          id: "toolu_1",
          name: "bash",
          input: { command: "ls" }
        }]
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "README.md" }] },
      { role: "assistant", content: "One file." }
    ]
  }],
  [AiSdkMessages.adapter, [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: [{ type: "text", text: "list the files" }] },
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
        output: { type: "text", value: "README.md" }
      }]
    }
  ]],
  [EffectAiPrompt.adapter, {
    content: [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: [{ type: "text", text: "list the files" }] },
      {
        role: "assistant",
        content: [{ type: "tool-call", id: "call_1", name: "bash", params: { command: "ls" }, providerExecuted: false }]
      },
      {
        role: "tool",
        content: [{
          type: "tool-result",
          id: "call_1",
          name: "bash",
          isFailure: false,
          result: "README.md",
          providerExecuted: false
        }]
      }
    ]
  }]
]

/** The path of every string in a value. */
const stringPaths = (
  value: unknown,
  path: ReadonlyArray<string | number> = []
): Array<ReadonlyArray<string | number>> =>
  typeof value === "string"
    ? [path]
    : Array.isArray(value)
    ? value.flatMap((item, index) => stringPaths(item, [...path, index]))
    : typeof value === "object" && value !== null
    ? Object.entries(value).flatMap(([key, item]) => stringPaths(item, [...path, key]))
    : []

/** The document with the value at `path` replaced. */
const replaced = (value: unknown, path: ReadonlyArray<string | number>, by: unknown): unknown => {
  if (path.length === 0) return by
  const [head, ...rest] = path
  if (Array.isArray(value)) return value.map((item, index) => (index === head ? replaced(item, rest, by) : item))
  const record = value as Record<string, unknown>
  return { ...record, [head as string]: replaced(record[head as string], rest, by) }
}

const outcome = (decoded: Compat.Result<Adapter.Decoded, Adapter.AdapterError>) =>
  Compat.matchResult(decoded, {
    onFailure: (error): { readonly refused: string; readonly index: number | undefined } | "decoded" => ({
      refused: error.reason,
      index: error.index
    }),
    onSuccess: () => "decoded" as const
  })

/** Whether a placeholder reached the transcript's text: it must be read as the literal it stands for. */
const holdsPlaceholder = (decoded: Compat.Result<Adapter.Decoded, Adapter.AdapterError>): boolean =>
  TestCompat.isSuccess(decoded) &&
  TestCompat.getOrThrow(decoded).transcript.some((message) => JSON.stringify(message).includes("\\u0000"))

describe("numbers a double cannot hold, where an adapter needs text", () => {
  prop(
    "replacing any string of a document by 1e400 or a 30-digit integer (as Json.parse reads them) is refused or accepted as replacing it by 7 is",
    [
      fc.constantFrom(...documents).chain(([adapter, document]) =>
        fc.tuple(fc.constant(adapter), fc.constant(document), fc.constantFrom(...stringPaths(document)))
      ),
      fc.constantFrom("1e400", "123456789012345678901234567890", "-1e-400")
    ],
    ([[adapter, document, path], literal]) => {
      const parsed = Json.parse(`[${literal}]`)
      assert.isTrue(TestCompat.isSuccess(parsed))
      const raw = (TestCompat.getOrThrow(parsed) as ReadonlyArray<unknown>)[0]
      assert.isTrue(typeof raw === "string" && Json.isRawNumber(raw), "Json.parse keeps the literal as a placeholder")
      const withRaw = adapter.decodeResult(replaced(document, path, raw))
      assert.isFalse(
        holdsPlaceholder(withRaw),
        `${adapter.format} at ${path.join(".")}: a placeholder in the transcript`
      )
      const [big, small] = [outcome(withRaw), outcome(adapter.decodeResult(replaced(document, path, 7)))]
      assert.deepStrictEqual(
        big,
        small,
        `${adapter.format} at ${path.join(".")}: ${JSON.stringify(big)} vs ${JSON.stringify(small)}`
      )
    },
    { fastCheck: { numRuns: 200 } }
  )

  it("a message whose content is 1e400 is refused with its index, not read as the text \"1e400\"", () => {
    const adapters = [EffectAiPrompt.adapter, OpenAiChat.adapter, AnthropicMessages.adapter, AiSdkMessages.adapter]
    const refused = Formats.decodeText(
      adapters,
      `[{"role":"user","content":"hello"},{"role":"user","content":1e400}]`,
      "openai"
    )
    assert.isTrue(TestCompat.isFailure(refused))
    assert.strictEqual(Option.getOrThrow(TestCompat.getFailure(refused)).index, 1)
    const text = Formats.decodeText(adapters, `[{"role":"user","content":"1e400"}]`, "auto")
    assert.isTrue(TestCompat.isSuccess(text))
    assert.deepStrictEqual(TestCompat.getOrThrow(text).decoded.transcript.map((message) => message.content), ["1e400"])
  })
})
