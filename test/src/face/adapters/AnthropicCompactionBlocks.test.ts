import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as AnthropicMessages from "../../../../src/face/adapters/AnthropicMessages.js"
import { prop } from "../../../support/Property.js"

const cacheControl = fc.option(fc.constantFrom({ type: "ephemeral" }, { type: "ephemeral", ttl: "1h" }), {
  nil: undefined
})

const withCache = <A extends object>(block: A, cache: unknown): A =>
  cache === undefined ? block : { ...block, cache_control: cache }

describe("AnthropicMessages and compaction blocks", () => {
  prop(
    "a document holding compaction blocks and cache_control is written back byte for byte when its view is the transcript",
    [
      fc.option(fc.string({ maxLength: 60 }), { nil: null }),
      fc.option(fc.string({ maxLength: 20 }), { nil: null }),
      cacheControl,
      cacheControl
    ],
    ([summary, encrypted, cached, systemCache]) => {
      const document = {
        model: "claude-test",
        system: [withCache({ type: "text", text: "You are a coding agent." }, systemCache)],
        messages: [
          { role: "user", content: "fix the build" },
          {
            role: "assistant",
            content: [
              withCache({ type: "compaction", content: summary, encrypted_content: encrypted }, cached),
              { type: "text", text: "On it." },
              { type: "tool_use", id: "call_1", name: "bash", input: { cmd: "npm test" } }
            ]
          },
          {
            role: "user",
            content: [withCache({ type: "tool_result", tool_use_id: "call_1", content: "ok" }, cached)]
          }
        ],
        context_management: { edits: [{ type: "compact_20260112" }] }
      }
      const decoded = TestCompat.getOrThrow(AnthropicMessages.decodeResult(document))
      const written = AnthropicMessages.encode(decoded, decoded.transcript)
      assert.strictEqual(JSON.stringify(written), JSON.stringify(document))
    }
  )

  it("a compaction block's summary is the text the engine reads and counts", () => {
    const decoded = AnthropicMessages.decodeResult({
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: [{ type: "compaction", content: "We fixed the parser." }, { type: "text", text: "Done." }]
        }
      ]
    })
    assert.isTrue(TestCompat.isSuccess(decoded))
    assert.strictEqual(TestCompat.getOrThrow(decoded).transcript[1]!.content, "We fixed the parser.\nDone.")
  })

  it("a compaction block is evidence of the Messages format", () => {
    assert.isTrue(AnthropicMessages.detect([
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "compaction", content: "summary" }] }
    ]))
  })

  prop(
    "an assistant message narrowed by a view keeps its compaction block, and its cache_control, as it came",
    [fc.string({ minLength: 1, maxLength: 60 }), cacheControl],
    ([summary, cached]) => {
      const block = withCache({ type: "compaction", content: summary, encrypted_content: null }, cached)
      const document = {
        messages: [
          { role: "user", content: "go" },
          {
            role: "assistant",
            content: [
              block,
              { type: "tool_use", id: "a", name: "bash", input: {} },
              { type: "tool_use", id: "b", name: "bash", input: {} }
            ]
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "1" }] }
        ]
      }
      const decoded = Compat.matchResult(AnthropicMessages.decodeResult(document), {
        onFailure: (error) => assert.fail(error.reason),
        onSuccess: (decoded) => decoded
      })
      const [user, assistant, result] = decoded.transcript
      if (assistant?._tag !== "Assistant") return assert.fail("not an assistant message")
      const narrowed = { ...assistant, toolCalls: assistant.toolCalls.slice(0, 1) } as typeof assistant
      const written = AnthropicMessages.encode(decoded, [user!, narrowed, result!]) as any
      assert.deepStrictEqual(written.messages[1].content[0], block)
      assert.strictEqual(written.messages[1].content.length, 2)
    }
  )
})
