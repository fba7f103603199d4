import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { agentSession, type ChatMessage, type Json, render } from "../../examples/session/generate.js"
import * as Boundary from "../../src/core/checkpoint/Boundary.js"
import * as Compactor from "../../src/face/engine/Compactor.js"
import * as AttentionUnattended from "../../src/face/layers/AttentionUnattended.js"
import * as CompactionStoreMemory from "../../src/face/layers/CompactionStoreMemory.js"
import * as SettingsFixed from "../../src/face/layers/SettingsFixed.js"
import * as SummarizerOffline from "../../src/face/layers/SummarizerOffline.js"
import * as SummaryCacheMemory from "../../src/face/layers/SummaryCacheMemory.js"
import * as TokenizerApprox from "../../src/face/layers/TokenizerApprox.js"
import { builtInPolicies } from "../../src/face/rules/index.js"
import { fromOpenAI } from "../openai.js"

const checkedIn = readFileSync(
  fileURLToPath(new URL("../../examples/session/agent-session.json", import.meta.url)),
  "utf8"
)
const generated = agentSession()
const messages = JSON.parse(checkedIn) as ReadonlyArray<ChatMessage>

type JsonObject = { readonly [key: string]: Json }

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The tool results that are agentic-workspace/v1 envelopes, with their index in the transcript. */
const envelopes: ReadonlyArray<{ readonly index: number; readonly envelope: JsonObject }> = messages.flatMap(
  (message, index) => {
    if (message.role !== "tool" || !message.content.startsWith("{")) return []
    const value = JSON.parse(message.content) as Json
    return isObject(value) && value["protocol"] === "agentic-workspace/v1" ? [{ index, envelope: value }] : []
  }
)

const dataOf = (envelope: JsonObject): JsonObject => {
  const data = envelope["data"]
  return isObject(data) ? data : {}
}

/** The value at a dotted path (`data.plan.steps`), if there is one. */
const at = (value: Json, path: string): Json | undefined =>
  path.split(".").reduce<Json | undefined>((node, key) => (isObject(node) ? node[key] : undefined), value)

/** Every object in a JSON tree. */
const objectsOf = (value: Json): ReadonlyArray<JsonObject> => {
  if (Array.isArray(value)) return value.flatMap((item: Json) => objectsOf(item))
  if (!isObject(value)) return []
  return [value, ...Object.values(value).flatMap(objectsOf)]
}

describe("examples/session/agent-session.json", () => {
  it("is byte for byte what examples/make-session.ts generates now", () => {
    assert.isTrue(checkedIn === render(generated), "stale: run `npx tsx examples/make-session.ts`")
  })

  it("is a long session: 300 to 500 messages, a few hundred KB to 1.5 MB of JSON", () => {
    assert.isAtLeast(messages.length, 300)
    assert.isAtMost(messages.length, 500)
    const bytes = Buffer.byteLength(checkedIn)
    assert.isAtLeast(bytes, 300_000)
    assert.isAtMost(bytes, 1_500_000)
  })

  it("parses as chat-completions messages: a system prompt, then the user's request", () => {
    assert.strictEqual(messages[0]?.role, "system")
    assert.strictEqual(messages[1]?.role, "user")
    for (const message of messages) {
      assert.include(["system", "user", "assistant", "tool"], message.role)
      assert.isString(message.content)
      if (message.role === "tool") assert.isString(message.tool_call_id)
      for (const call of message.tool_calls ?? []) {
        assert.strictEqual(call.type, "function")
        assert.isTrue(isObject(JSON.parse(call.function.arguments) as Json), call.function.arguments)
      }
    }
    assert.strictEqual(fromOpenAI(messages).length, messages.length)
  })

  it("answers every tool call with exactly one result, in the messages right after the call", () => {
    const callIds = messages.flatMap((message) => (message.tool_calls ?? []).map((call) => call.id))
    assert.strictEqual(new Set(callIds).size, callIds.length, "tool call ids are unique")
    messages.forEach((message, index) => {
      const calls = message.tool_calls ?? []
      const results = messages.slice(index + 1, index + 1 + calls.length)
      assert.deepStrictEqual(
        results.map((result) => [result.role, result.tool_call_id]),
        calls.map((call) => ["tool", call.id])
      )
    })
    const answered = messages.filter((message) => message.role === "tool").map((message) => message.tool_call_id)
    assert.sameMembers(answered as Array<string>, callIds)
  })

  it("plants unique, realistic workspace ids, and no others", () => {
    const ids = generated.ids
    assert.strictEqual(new Set(ids).size, ids.length)
    for (const id of ids) {
      assert.match(id, /^(tx|run|job|todo|research|source|approval|plan)_[0-9a-f]{8}$/)
      assert.include(checkedIn, id)
    }
    const inText = new Set(checkedIn.match(/\b(?:tx|run|job|todo|research|source|approval|plan)_[0-9a-f]{8}\b/g))
    assert.sameMembers([...inText], [...ids])
    for (const prefix of ["tx_", "run_", "job_", "todo_", "research_", "source_", "approval_", "plan_"]) {
      assert.isTrue(ids.some((id) => id.startsWith(prefix)), prefix)
    }
  })

  it("ends on a staged approval that the user has not accepted", () => {
    const staged = envelopes.filter(({ envelope }) => dataOf(envelope)["status"] === "pending_approval")
    assert.isAtLeast(staged.length, 3)
    const last = staged.at(-1)!
    const approval = dataOf(last.envelope)["approval"] as JsonObject
    assert.strictEqual(approval["id"], generated.pendingApproval)
    assert.isAbove(last.index, messages.length * 0.9, "near the end")
    const resume = approval["resume"] as JsonObject
    assert.strictEqual(resume["tool"], "workspace_edit")
    const later = messages.slice(last.index + 1)
    assert.isFalse(
      later.some((message) =>
        message.role === "user" && message.content.includes(`/accept ${generated.pendingApproval}`)
      )
    )
    assert.isFalse(
      later.some((message) =>
        (message.tool_calls ?? []).some((call) =>
          call.function.name === resume["tool"] && call.function.arguments === JSON.stringify(resume["arguments"])
        )
      ),
      "the resume call is not re-issued"
    )
    const lastUser = messages.filter((message) => message.role === "user").at(-1)!
    assert.notInclude(lastUser.content, "/accept")
    // Every earlier approval was accepted by the user, and only then resumed.
    for (const { envelope, index } of staged.slice(0, -1)) {
      const earlier = dataOf(envelope)["approval"] as JsonObject
      const acceptedAt = messages.findIndex((message, i) =>
        i > index && message.role === "user" && message.content.includes(`/accept ${String(earlier["id"])}`)
      )
      assert.isAbove(acceptedAt, index, String(earlier["id"]))
    }
  })

  it("declares omissions on paths its envelopes really have", () => {
    const declaring = envelopes.filter(({ envelope }) => Array.isArray(at(envelope, "retention.omit_when_summarizing")))
    assert.isAtLeast(declaring.length, 1)
    for (const { envelope } of declaring) {
      const omit = at(envelope, "retention.omit_when_summarizing") as ReadonlyArray<string>
      assert.isAtLeast(omit.length, 1)
      for (const path of omit) assert.isDefined(at(envelope, path), path)
      assert.match(String(at(envelope, "data.plan.id")), /^plan_/)
    }
  })

  it("carries truncation flags with their counters", () => {
    const truncated = envelopes.flatMap(({ envelope }) =>
      objectsOf(envelope).flatMap((node) =>
        Object.keys(node)
          .filter((key) => key.endsWith("Truncated") && node[key] === true)
          .map((key) => ({ node, prefix: key.slice(0, -"Truncated".length) }))
      )
    )
    assert.isAtLeast(truncated.length, 5)
    for (const { node, prefix } of truncated) {
      const counters = Object.keys(node).filter((key) =>
        key !== `${prefix}Truncated` && key.startsWith(prefix) && /(Omitted|Bytes|Chars|Entries|Lines)$/.test(key)
      )
      assert.isAtLeast(counters.length, 1, prefix)
    }
    const command = truncated.filter(({ prefix }) => prefix === "stdout")
    assert.isAtLeast(command.length, 1)
    for (const { node } of command) {
      assert.isNumber(node["stdoutBytes"])
      assert.isNumber(node["stdoutLinesOmitted"])
    }
  })

  it("has the protocol's tool shapes: reads, transactions, jobs with exit codes, plans, research with fetched sources", () => {
    const shapes = new Set(envelopes.map(({ envelope }) => `${String(envelope["tool"])} ${String(envelope["action"])}`))
    for (
      const shape of [
        "workspace_inspect overview",
        "workspace_inspect capabilities",
        "workspace_inspect changes",
        "workspace_inspect read",
        "workspace_edit stage",
        "workspace_edit commit",
        "workspace_command run",
        "workspace_command status",
        "workspace_plan propose",
        "workspace_plan accept",
        "workspace_research deep",
        "workspace_tasks show",
        "workspace_agent status"
      ]
    ) assert.isTrue(shapes.has(shape), shape)
    const exitCodes = new Set(
      envelopes.map(({ envelope }) => at(envelope, "data.job.exitCode")).filter((code) => typeof code === "number")
    )
    assert.isTrue(exitCodes.has(0) && exitCodes.has(1), "a failing test run and a passing one")
    const sources = envelopes.flatMap(({ envelope }) => {
      const list = at(envelope, "data.sources")
      return Array.isArray(list) ? (list as ReadonlyArray<JsonObject>) : []
    })
    assert.isAtLeast(sources.length, 3)
    for (const source of sources) {
      assert.match(String(source["id"]), /^source_/)
      assert.match(String(source["url"]), /^https:\/\//)
      assert.isString(source["contentPath"])
    }
    assert.isTrue(
      messages.some((message) => message.role === "tool" && !message.content.startsWith("{")),
      "plain command output too"
    )
  })

  it.effect("compacts several times with a 32,000-token window at the default 80 % trigger", () =>
    Effect.gen(function*() {
      const transcript = fromOpenAI(messages)
      const compactor = yield* Compactor.Compactor
      let compactions = 0
      for (const start of [...Boundary.turnStarts(transcript), transcript.length]) {
        const prefix = transcript.slice(0, start)
        if (!prefix.some((message) => message._tag === "User")) continue
        const { compacted } = yield* compactor.checkpoint({
          sessionId: "agent-session",
          transcript: prefix,
          model: "example",
          contextWindow: 32_000
        })
        if (Option.isSome(compacted)) compactions++
      }
      assert.isAtLeast(compactions, 3)
    }).pipe(
      Effect.provide(
        Compactor.layer({ policies: builtInPolicies }).pipe(
          Layer.provideMerge(
            Layer.mergeAll(
              SummarizerOffline.layer,
              SummaryCacheMemory.layer,
              CompactionStoreMemory.layer,
              SettingsFixed.layer(),
              TokenizerApprox.layer,
              AttentionUnattended.layer
            )
          )
        )
      )
    ))
})
