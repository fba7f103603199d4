import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as PlatformHttpServer from "@effect/platform/HttpServer"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
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
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"

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
