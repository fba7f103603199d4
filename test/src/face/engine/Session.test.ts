import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as PlatformHttpServer from "@effect/platform/HttpServer"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as Caller from "../../../../src/apps/http/Caller.js"
import * as HttpServer from "../../../../src/apps/http/HttpServer.js"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as CompactorPromise from "../../../../src/apps/promise/index.js"
import * as OpenAiChat from "../../../../src/face/adapters/OpenAiChat.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Session from "../../../../src/face/engine/Session.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as Transcripts from "../../../transcripts.js"

/** A short OpenAI chat history: a system prompt, a task, a tool call and its result, a reply. */
const history = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "Fix the failing test in parser.ts." },
  {
    role: "assistant",
    content: "",
    tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{\"command\":\"npm test\"}" } }]
  },
  { role: "tool", tool_call_id: "c1", content: "1 failing: parser.ts:12" },
  { role: "assistant", content: "The parser drops the last token; fixing it." }
]

const expected = Either.getOrThrow(OpenAiChat.adapter.decodeResult(history)).transcript

const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-session-"))),
  (directory) => Effect.sync(() => Fs.rmSync(directory, { recursive: true, force: true }))
)

const upstream = Effect.acquireRelease(
  Effect.promise(() => FakeUpstream.start()),
  (fake) => Effect.promise(() => fake.close())
)

describe("Session.idOf", () => {
  it.prop("a history keeps its id as messages are appended to it", [
    Transcripts.transcript(6),
    Transcripts.transcript(3)
  ], ([history, more]) => {
    const grown = [...history, ...more.slice(1)]
    assert.strictEqual(Session.idOf(grown), Session.idOf(history))
  })

  it("two tasks under the same system prompt are two sessions; a history without a user message is named by its first message", () => {
    const system = new Transcript.SystemMessage({ id: "m0", content: "You are a coding agent." })
    const task = (content: string) => [system, new Transcript.UserMessage({ id: "m1", content })]
    assert.notStrictEqual(Session.idOf(task("Fix the parser.")), Session.idOf(task("Write the docs.")))
    assert.strictEqual(
      Session.idOf([system]),
      Session.idOf([system, new Transcript.AssistantMessage({ id: "m1", content: "Ready.", toolCalls: [] })])
    )
    assert.match(Session.idOf([]), /^session-[0-9a-f]{16}$/)
  })

  it.prop("ids are the prefix and 16 hex digits", [Transcripts.transcript(3)], ([history]) => {
    assert.match(Session.idOf(history), /^session-[0-9a-f]{16}$/)
  }, { fastCheck: { numRuns: 20 } })

  it.scopedLive("the HTTP API, the proxy and the Promise API give the same history the same session, a caller's own when it has a credential", () =>
    Effect.gen(function*() {
      const id = Session.idOf(expected)

      // The Promise API reports the session of its call.
      const promiseDirectory = yield* tempDir
      const promised = yield* Effect.acquireUseRelease(
        Effect.promise(() => CompactorPromise.createCompactor({ directory: promiseDirectory, env: {} })),
        (compactor) => Effect.promise(() => compactor.compact(history, { contextWindow: 128_000 })),
        (compactor) => Effect.promise(() => compactor.close())
      )
      assert.strictEqual(promised.sessionId, id)

      // The HTTP API answers with the session it used.
      const httpDirectory = yield* tempDir
      const server = yield* Layer.build(HttpServer.layerNode({ port: 0, env: () => ({}), directory: httpDirectory }))
      const address = Context.get(server, PlatformHttpServer.HttpServer).address
      if (address._tag !== "TcpAddress") throw new Error("not a TCP address")
      const answer = yield* Effect.promise(async () => {
        const response = await fetch(`http://127.0.0.1:${address.port}/v1/compact`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ transcript: history, format: "openai", window: 128_000 })
        })
        return (await response.json()) as { readonly report: { readonly sessionId: string } }
      })
      assert.strictEqual(answer.report.sessionId, id)

      // The proxy checkpoints the session it derived, scoped to the request's key; the engine under it records what it was asked.
      const asked: Array<string> = []
      const recording = Layer.effect(
        Compactor.Compactor,
        Effect.map(Compactor.Compactor, (engine): Compactor.Service => ({
          ...engine,
          checkpoint: (input) =>
            Effect.zipRight(Effect.sync(() => asked.push(input.sessionId)), engine.checkpoint(input))
        }))
      ).pipe(Layer.provide(Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provideMerge(Testing.layer()))))
      const fake = yield* upstream
      const proxied = yield* Layer.build(
        Proxy.layer({ upstream: fake.url, window: 32_000 }).pipe(
          Layer.provideMerge(NodeHttpServer.layer(() => Http.createServer(), { port: 0, host: "127.0.0.1" })),
          Layer.provide(recording),
          Layer.provide(NodeHttpClient.layerUndici)
        )
      )
      const proxyAddress = Context.get(proxied, PlatformHttpServer.HttpServer).address
      if (proxyAddress._tag !== "TcpAddress") throw new Error("not a TCP address")
      yield* Effect.promise(() =>
        fetch(`http://127.0.0.1:${proxyAddress.port}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: "Bearer sk-test" },
          body: JSON.stringify({ model: "gpt-test", messages: history })
        }).then((response) => response.text())
      )
      assert.deepStrictEqual(asked, [
        Session.scoped(Caller.of({ authorization: "Bearer sk-test" }, Caller.proxyCredentials), id)
      ])
    }))
})

/** A caller's digest, or none (a request without a credential). */
const caller = fc.option(
  fc.string({ minLength: 1 }).filter((key) => key.trim() !== "").map((key) =>
    Session.callerOf([["authorization", key]])!
  ),
  {
    nil: undefined
  }
)
/** A session id: anything, a derived one, or one that already ends as a scoped one. */
const sessionId = fc.oneof(
  fc.string({ minLength: 1 }),
  fc.hexaString({ minLength: 16, maxLength: 16 }).map((hex) => `${Session.idPrefix}${hex}`),
  fc.tuple(fc.string({ minLength: 1 }), caller.filter((digest) => digest !== undefined)).map(([id, digest]) =>
    Session.scoped(digest, id)
  )
)

describe("Session.scoped", () => {
  it.prop("scoping is idempotent: an id a report gave the caller names the same session when sent back", [
    caller,
    sessionId
  ], ([caller, id]) => {
    const once = Session.scoped(caller, id)
    assert.strictEqual(Session.scoped(caller, once), once)
    assert.isTrue(Session.belongsTo(caller, once))
  })

  it.prop("two callers never share a session, whatever ids they send (a caller without a credential included)", [
    caller,
    caller,
    sessionId,
    sessionId
  ], ([a, b, idOfA, idOfB]) => {
    fc.pre(a !== b)
    assert.notStrictEqual(Session.scoped(a, idOfA), Session.scoped(b, idOfB))
    assert.isFalse(Session.belongsTo(b, Session.scoped(a, idOfA)))
  })

  it("without a credential an id stays as it is; a credential's digest is its SHA-256, not the credential", () => {
    assert.strictEqual(Session.scoped(undefined, "my-task"), "my-task")
    assert.strictEqual(Session.scoped(undefined, "session-0123456789abcdef"), "session-0123456789abcdef")
    assert.strictEqual(Session.callerOf([["authorization", undefined], ["x-api-key", "  "]]), undefined)
    const digest = Session.callerOf([["authorization", "Bearer sk-secret-key"]])!
    assert.match(digest, /^[0-9a-f]{32}$/)
    assert.notInclude(Session.scoped(digest, "my-task"), "sk-secret-key")
    assert.strictEqual(Session.scoped(digest, "my-task"), `my-task${Session.callerSuffix}${digest}`)
    assert.notStrictEqual(
      Session.callerOf([["authorization", "k"]]),
      Session.callerOf([["x-api-key", "k"]]),
      "the credential's name is part of it"
    )
  })
})

describe("Session.branchOf", () => {
  const derived = Transcripts.transcript(3).map((history) => Session.idOf(history))
  it.prop(
    "a branch of a caller's derived id stays the caller's, names its family, and differs from every other branch",
    [
      caller,
      derived,
      fc.integer({ min: 0, max: Session.maxBranches - 1 }),
      fc.integer({ min: 0, max: Session.maxBranches - 1 })
    ],
    ([caller, id, n, m]) => {
      const own = Session.scoped(caller, id)
      const branch = Session.branchOf(own, n)
      assert.isTrue(Session.belongsTo(caller, branch))
      assert.strictEqual(Session.scoped(caller, branch), branch)
      assert.strictEqual(Session.familyOf(branch), own)
      assert.include(Session.branchesOf(own), branch)
      assert.strictEqual(branch === Session.branchOf(own, m), n === m)
    }
  )

  it("branch 0 is the id itself; the others put .branch-N before the caller's suffix", () => {
    const digest = Session.callerOf([["authorization", "Bearer sk-user-a"]])!
    const own = Session.scoped(digest, "session-0123456789abcdef")
    assert.strictEqual(Session.branchOf(own, 0), own)
    assert.strictEqual(Session.branchOf(own, 3), `session-0123456789abcdef.branch-3${Session.callerSuffix}${digest}`)
    assert.strictEqual(Session.branchOf("my-task", 1), "my-task.branch-1")
    assert.strictEqual(Session.familyOf("my-task"), "my-task")
    assert.lengthOf(new Set(Session.branchesOf(own)), Session.maxBranches)
  })
})
