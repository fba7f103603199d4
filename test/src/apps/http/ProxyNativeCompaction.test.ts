import * as Compat from "#compat"
import { it } from "#test-compat"
import Anthropic from "@anthropic-ai/sdk"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fc from "fast-check"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as ProxyNativeCompaction from "../../../../src/apps/http/ProxyNativeCompaction.js"
import * as SummaryPrompt from "../../../../src/face/engine/SummaryPrompt.js"
import * as SummarizerChatCompletions from "../../../../src/face/layers/SummarizerChatCompletions.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import type * as Summarizer from "../../../../src/face/services/Summarizer.js"
import * as SummaryServer from "../../../support/ChatCompletionsServer.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as Histories from "../../../support/Histories.js"
import { prop } from "../../../support/Property.js"
import * as ProxyServer from "../../../support/ProxyServer.js"

const repository = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))

const session: ReadonlyArray<any> = JSON.parse(
  Fs.readFileSync(NodePath.join(repository, "examples/session/agent-session.json"), "utf8")
)

/** The example session as Messages API messages; the first 61 end on a user message. */
const anthropicSession = Histories.toAnthropicMessages(session)
const history: ReadonlyArray<any> = anthropicSession.messages.slice(0, 61)

const proxy = (
  fake: FakeUpstream.FakeUpstream,
  options: Partial<Proxy.Options> = {},
  summarizer?: Layer.Layer<Summarizer.Summarizer>
) =>
  ProxyServer.serve(
    { upstream: fake.url, window: 200_000, ...options },
    ProxyServer.testEngine(Testing.layer(summarizer === undefined ? {} : { summarizer }))
  )

const { upstream } = ProxyServer

const compactAt = (value: number, extra: Record<string, unknown> = {}) => ({
  edits: [{ type: "compact_20260112" as const, trigger: { type: "input_tokens" as const, value }, ...extra }]
})

const client = (base: string) => new Anthropic({ baseURL: base, apiKey: "sk-ant-test", maxRetries: 0 })

describe("Proxy: Anthropic's context management emulated", () => {
  it.scopedLive("compact_20260112 past its trigger: the answer opens with a compaction block, the upstream gets the compacted context and no context_management", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake)
      const { data: message, response } = yield* Effect.promise(() =>
        client(base).beta.messages.create({
          model: "claude-test",
          max_tokens: 256,
          system: anthropicSession.system,
          messages: history as any,
          betas: ["compact-2026-01-12", "interleaved-thinking-2025-05-14"],
          context_management: compactAt(2_000)
        }).withResponse()
      )
      const sent = fake.received[0]!
      assert.isUndefined(sent.body.context_management)
      assert.strictEqual(sent.headers["anthropic-beta"], "interleaved-thinking-2025-05-14")
      assert.isBelow(sent.body.messages.length, history.length)
      assert.strictEqual(message.content[0]!.type, "compaction")
      const summary = message.content[0]!.type === "compaction" ? message.content[0]!.content! : ""
      assert.isAbove(summary.length, 400)
      assert.include(JSON.stringify(sent.body.messages), summary.slice(0, 200).replace(/\n/g, "\\n").slice(0, 100))
      assert.deepStrictEqual(
        message.content[1],
        { type: "text", text: `received ${sent.body.messages.length} messages` } as any
      )
      assert.strictEqual(message.usage.iterations?.[0]?.type, "compaction")
      assert.strictEqual(message.usage.iterations?.[1]?.type, "message")
      assert.strictEqual(message.usage.input_tokens, 100, "the top-level usage is the message's, as the API's")
      assert.deepStrictEqual(message.context_management, { applied_edits: [] })
      assert.match(response.headers.get(Proxy.reportHeader) ?? "", /^emulated; compacted; messages=61->\d+/)

      // The follow-up sends the block back: nothing before it reaches the upstream.
      const followUp = yield* Effect.promise(() =>
        client(base).beta.messages.create({
          model: "claude-test",
          max_tokens: 256,
          system: anthropicSession.system,
          messages: [
            ...history,
            { role: "assistant", content: message.content },
            { role: "user", content: "now run the tests" }
          ] as any,
          betas: ["compact-2026-01-12"],
          context_management: compactAt(1_000_000)
        })
      )
      const second = fake.received[1]!
      assert.isUndefined(second.body.context_management)
      assert.isUndefined(second.headers["anthropic-beta"])
      assert.deepStrictEqual(second.body.messages, [
        { role: "user", content: [{ type: "text", text: summary }] },
        { role: "assistant", content: [message.content[1]] },
        { role: "user", content: "now run the tests" }
      ])
      assert.strictEqual(second.body.system, anthropicSession.system)
      const before = JSON.stringify(history[1].content)
      assert.notInclude(JSON.stringify(second.body.messages), before.slice(1, 80))
      assert.strictEqual(followUp.content[0]!.type, "text")
    }))

  it.scopedLive("a streamed answer carries the compaction block as the API streams one, the text blocks after it", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake)
      const events: Array<string> = []
      const final = yield* Effect.promise(async () => {
        const stream = client(base).beta.messages.stream({
          model: "claude-test",
          max_tokens: 256,
          messages: history as any,
          betas: ["compact-2026-01-12"],
          context_management: compactAt(2_000)
        })
        stream.on("streamEvent", (event) => events.push(event.type))
        return await stream.finalMessage()
      })
      const sent = fake.received[0]!
      assert.isTrue(sent.body.stream)
      assert.isUndefined(sent.body.context_management)
      assert.strictEqual(final.content.length, 2)
      assert.strictEqual(final.content[0]!.type, "compaction")
      assert.isAbove(final.content[0]!.type === "compaction" ? final.content[0]!.content!.length : 0, 400)
      assert.deepStrictEqual(
        final.content[1],
        { type: "text", text: `received ${sent.body.messages.length} messages` } as any
      )
      assert.strictEqual(final.stop_reason, "end_turn")
      assert.strictEqual(final.usage.iterations?.[0]?.type, "compaction")
      assert.deepStrictEqual(final.context_management, { applied_edits: [] })
      assert.deepStrictEqual(events.slice(0, 4), [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop"
      ])
    }))

  it.scopedLive("pause_after_compaction: the compaction block alone, stop_reason compaction, the upstream never called", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake)
      const message = yield* Effect.promise(() =>
        client(base).beta.messages.create({
          model: "claude-test",
          max_tokens: 256,
          messages: history as any,
          betas: ["compact-2026-01-12"],
          context_management: compactAt(2_000, { pause_after_compaction: true })
        })
      )
      assert.strictEqual(fake.received.length, 0)
      assert.strictEqual(message.stop_reason, "compaction")
      assert.strictEqual(message.content.length, 1)
      assert.strictEqual(message.content[0]!.type, "compaction")
      const streamed = yield* Effect.promise(() =>
        client(base).beta.messages.stream({
          model: "claude-test",
          max_tokens: 256,
          messages: history as any,
          betas: ["compact-2026-01-12"],
          context_management: compactAt(2_000, { pause_after_compaction: true })
        }).finalMessage()
      )
      assert.strictEqual(fake.received.length, 0)
      assert.strictEqual(streamed.stop_reason, "compaction")
      assert.strictEqual(streamed.content[0]!.type, "compaction")
    }))

  it.scopedLive("under its trigger nothing is compacted, by the edit or by the proxy's own trigger", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake, { window: 8_000 })
      const message = yield* Effect.promise(() =>
        client(base).beta.messages.create({
          model: "claude-test",
          max_tokens: 256,
          messages: history as any,
          betas: ["compact-2026-01-12"],
          context_management: compactAt(10_000_000)
        })
      )
      assert.strictEqual(fake.received[0]!.body.messages.length, history.length)
      assert.strictEqual(message.content[0]!.type, "text")
    }))

  it.scopedLive("clear_tool_uses_20250919: the older results hold the placeholder upstream, applied_edits says how many", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake)
      const message = yield* Effect.promise(() =>
        client(base).beta.messages.create({
          model: "claude-test",
          max_tokens: 256,
          messages: history as any,
          betas: ["context-management-2025-06-27"],
          context_management: {
            edits: [{
              type: "clear_tool_uses_20250919",
              trigger: { type: "tool_uses", value: 2 },
              keep: { type: "tool_uses", value: 2 }
            }]
          }
        })
      )
      const sent = fake.received[0]!
      assert.isUndefined(sent.body.context_management)
      assert.isUndefined(sent.headers["anthropic-beta"])
      const results = sent.body.messages.flatMap((m: any) =>
        Array.isArray(m.content) ? m.content.filter((b: any) => b.type === "tool_result") : []
      )
      const cleared = results.filter((b: any) => b.content === ProxyNativeCompaction.clearedToolResult)
      assert.strictEqual(cleared.length, results.length - 2)
      assert.notStrictEqual(results.at(-1).content, ProxyNativeCompaction.clearedToolResult)
      const applied = message.context_management?.applied_edits[0] as any
      assert.strictEqual(applied.type, "clear_tool_uses_20250919")
      assert.strictEqual(applied.cleared_tool_uses, results.length - 2)
      assert.isAbove(applied.cleared_input_tokens, 0)
      assert.strictEqual(sent.body.messages.length, history.length)
    }))
})

describe("Proxy: Anthropic's context management passed through", () => {
  it.scopedLive("in pass mode a request asking the provider to compact goes on byte for byte, never compacted by the proxy", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake, { nativeCompaction: "pass", window: 8_000 })
      const text = `{"model":"claude-test",  "max_tokens":256,"messages":${JSON.stringify(history)},` +
        `"context_management":{"edits":[{"type":"compact_20260112"}]}}`
      const response = yield* Effect.promise(() =>
        fetch(`${base}/v1/messages`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-api-key": "sk-ant-test",
            "anthropic-beta": "compact-2026-01-12"
          },
          body: text
        })
      )
      yield* Effect.promise(() => response.text())
      assert.strictEqual(fake.received[0]!.text, text)
      assert.strictEqual(fake.received[0]!.headers["anthropic-beta"], "compact-2026-01-12")
      assert.match(response.headers.get(Proxy.reportHeader) ?? "", /^passed-through; reason=the provider manages/)
    }))

  it("auto passes through to Anthropic's own API and emulates for every other upstream", () => {
    assert.strictEqual(ProxyNativeCompaction.resolveMode("auto", "https://api.anthropic.com"), "pass")
    assert.strictEqual(ProxyNativeCompaction.resolveMode("auto", "https://API.anthropic.com/v1"), "pass")
    assert.strictEqual(ProxyNativeCompaction.resolveMode("auto", "http://127.0.0.1:8000"), "emulate")
    assert.strictEqual(ProxyNativeCompaction.resolveMode("auto", "https://api.anthropic.com.example.org"), "emulate")
    assert.strictEqual(ProxyNativeCompaction.resolveMode("emulate", "https://api.anthropic.com"), "emulate")
    assert.strictEqual(ProxyNativeCompaction.resolveMode("pass", "http://127.0.0.1:8000"), "pass")
  })
})

/** `n` tool uses, each an assistant call and a user result, named from `names`. */
const toolHistory = (names: ReadonlyArray<string>) => [
  { role: "user", content: "start" },
  ...names.flatMap((name, i) => [
    { role: "assistant", content: [{ type: "tool_use", id: `call_${i}`, name, input: { path: `f${i}` } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: `call_${i}`, content: `output ${i} `.repeat(50) }] }
  ])
]

const countChars = (messages: ReadonlyArray<unknown>) => Math.ceil(JSON.stringify(messages).length / 4)

describe("ProxyNativeCompaction.clearToolUses", () => {
  prop(
    "the results of the tool uses older than the kept ones are cleared, excluded tools aside; the count is applied_edits'",
    [
      fc.array(fc.constantFrom("bash", "read", "write"), { minLength: 0, maxLength: 12 }),
      fc.integer({ min: 0, max: 6 }),
      fc.subarray(["bash", "read", "write"]),
      fc.boolean()
    ],
    ([names, keep, excluded, inputs]) => {
      const messages = toolHistory(names)
      const frozen = JSON.stringify(messages)
      const { applied, messages: edited } = ProxyNativeCompaction.clearToolUses(messages, {
        _tag: "ClearToolUses",
        trigger: { type: "tool_uses", value: 0 },
        keep,
        clearAtLeast: 0,
        excludeTools: excluded,
        clearToolInputs: inputs
      }, countChars)
      assert.strictEqual(JSON.stringify(messages), frozen, "the messages given are never changed")
      const expected = names.map((name, i) => i < names.length - keep && !excluded.includes(name))
      const clearedResults = edited.flatMap((m: any) =>
        Array.isArray(m.content)
          ? m.content.filter((b: any) => b.type === "tool_result").map((b: any) =>
            b.content === ProxyNativeCompaction.clearedToolResult
          )
          : []
      )
      assert.deepStrictEqual(clearedResults, expected)
      const emptied = edited.flatMap((m: any) =>
        Array.isArray(m.content)
          ? m.content.filter((b: any) => b.type === "tool_use").map((b: any) => Object.keys(b.input).length === 0)
          : []
      )
      assert.deepStrictEqual(emptied, expected.map((cleared) => cleared && inputs))
      const count = expected.filter(Boolean).length
      if (count === 0) {
        assert.isUndefined(applied)
      } else {
        assert.strictEqual(applied?.cleared_tool_uses, count)
        assert.strictEqual(applied?.cleared_input_tokens, countChars(messages) - countChars(edited))
      }
      assert.strictEqual(edited.length, messages.length)
    }
  )

  it("under its trigger, or clearing fewer tokens than clear_at_least, nothing is cleared", () => {
    const messages = toolHistory(["bash", "bash", "bash", "bash", "bash"])
    const edit = {
      _tag: "ClearToolUses" as const,
      trigger: { type: "input_tokens" as const, value: 1_000_000 },
      keep: 1,
      clearAtLeast: 0,
      excludeTools: [],
      clearToolInputs: false
    }
    assert.isUndefined(ProxyNativeCompaction.clearToolUses(messages, edit, countChars).applied)
    const atLeast = { ...edit, trigger: { type: "input_tokens" as const, value: 0 }, clearAtLeast: 1_000_000 }
    const kept = ProxyNativeCompaction.clearToolUses(messages, atLeast, countChars)
    assert.isUndefined(kept.applied)
    assert.strictEqual(kept.messages, messages)
  })
})

describe("ProxyNativeCompaction.afterCompaction", () => {
  prop(
    "everything before the last compaction block is dropped; its summary leads, what followed it stays in order",
    [fc.integer({ min: 0, max: 8 }), fc.string({ minLength: 1, maxLength: 40 }), fc.boolean(), fc.boolean()],
    ([before, summary, withText, cached]) => {
      const earlier = Array.from({ length: before }, (_, i) => ({
        role: i % 2 === 0 ? "user" : "assistant",
        content: `turn ${i}`
      }))
      const lead = before % 2 === 0 ? [{ role: "user", content: "hello" }] : []
      const block = {
        type: "compaction",
        content: summary,
        ...(cached ? { cache_control: { type: "ephemeral" } } : {})
      }
      const holder = {
        role: "assistant",
        content: [block, ...(withText ? [{ type: "text", text: "reply" }] : [])]
      }
      const next = { role: "user", content: "next" }
      const messages = [...earlier, ...lead, holder, next]
      const { dropped, messages: after } = ProxyNativeCompaction.afterCompaction(messages)
      assert.strictEqual(dropped, earlier.length + lead.length)
      const summaryBlock = { type: "text", text: summary, ...(cached ? { cache_control: { type: "ephemeral" } } : {}) }
      assert.deepStrictEqual(
        after,
        withText
          ? [{ role: "user", content: [summaryBlock] }, {
            role: "assistant",
            content: [{ type: "text", text: "reply" }]
          }, next]
          : [{ role: "user", content: [summaryBlock, { type: "text", text: "next" }] }]
      )
    }
  )

  it("a compaction block without a summary is a no-op and leaves", () => {
    const messages = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "compaction", content: null }, { type: "text", text: "yes" }] }
    ]
    assert.deepStrictEqual(ProxyNativeCompaction.afterCompaction(messages), {
      dropped: 0,
      messages: [{ role: "user", content: "hi" }, { role: "assistant", content: [{ type: "text", text: "yes" }] }]
    })
  })

  it.scopedLive("compact_20260112's instructions replace the summariser's prompt; the compaction iteration reports what the summariser's provider billed", () =>
    Effect.gen(function*() {
      const summaryText = SummaryPrompt.generalSections.map((heading) =>
        `${heading}\nPROVIDER: what the session did for ${heading.slice(3).toLowerCase()}, in a full sentence.`
      ).join("\n\n")
      const summariser = yield* SummaryServer.start([{
        json: {
          id: "chatcmpl-summary",
          object: "chat.completion",
          created: 1_700_000_000,
          model: "summary-model",
          choices: [{ index: 0, message: { role: "assistant", content: summaryText }, finish_reason: "stop" }],
          usage: {
            prompt_tokens: 5_000,
            completion_tokens: 300,
            total_tokens: 5_300,
            prompt_tokens_details: { cached_tokens: 1_000 }
          }
        }
      }])
      const fake = yield* upstream
      const base = yield* proxy(
        fake,
        {},
        SummarizerChatCompletions.layer({ baseUrl: summariser.baseUrl }).pipe(Layer.provide(Compat.nodeHttpClient))
      )
      const instructions = "Summarise only the files changed and the failing tests, as a list."
      const message = yield* Effect.promise(() =>
        client(base).beta.messages.create({
          model: "claude-test",
          max_tokens: 256,
          messages: history as any,
          betas: ["compact-2026-01-12"],
          context_management: {
            edits: [{ type: "compact_20260112", trigger: { type: "input_tokens", value: 2_000 }, instructions }]
          } as any
        })
      )
      const [asked] = yield* summariser.received
      const messages = (asked!.body as { messages: ReadonlyArray<{ role: string; content: string }> }).messages
      assert.strictEqual(messages[0]!.role, "system")
      assert.strictEqual(messages[0]!.content, instructions)
      assert.strictEqual(message.content[0]!.type, "compaction")
      const iteration = message.usage.iterations?.[0] as any
      assert.strictEqual(iteration?.type, "compaction")
      assert.strictEqual(iteration?.input_tokens, 4_000)
      assert.strictEqual(iteration?.cache_read_input_tokens, 1_000)
    }))
})
