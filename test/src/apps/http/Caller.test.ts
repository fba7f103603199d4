import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Caller from "../../../../src/apps/http/Caller.js"
import { tokenHeader } from "../../../../src/apps/http/ServerDefaults.js"
import * as OpenAiChat from "../../../../src/face/adapters/OpenAiChat.js"
import * as Session from "../../../../src/face/engine/Session.js"

const history = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "Hello" }
]
const source = { document: history, format: "openai" as const, adapters: [OpenAiChat.adapter] }

describe("Caller", () => {
  it("the proxy's caller is named by any of its credential headers; a request with none has no caller", () => {
    const callers = [
      { authorization: "Bearer sk-a" },
      { "x-api-key": "sk-a" },
      { "api-key": "sk-a" },
      { [tokenHeader]: "proxy-token" },
      { [tokenHeader]: "proxy-token", authorization: "Bearer sk-a" }
    ].map((headers) => Caller.of(headers, Caller.proxyCredentials))
    for (const caller of callers) assert.match(caller!, /^[0-9a-f]{32}$/)
    assert.strictEqual(new Set(callers).size, callers.length)
    assert.strictEqual(Caller.of({ "content-type": "application/json" }, Caller.proxyCredentials), undefined)
    assert.strictEqual(Caller.of({ "x-api-key": "sk-a" }, Caller.serveCredentials), undefined)
  })

  it.effect("read scopes the session, named or derived, to the caller", () =>
    Effect.gen(function*() {
      const caller = Caller.of({ authorization: "Bearer sk-a" }, Caller.serveCredentials)
      const derived = yield* Caller.read(caller, source)
      const unscoped = yield* Caller.read(undefined, source)
      assert.strictEqual(unscoped.sessionId, Session.idOf(unscoped.decoded.transcript))
      assert.strictEqual(derived.sessionId, Session.scoped(caller, unscoped.sessionId))
      const named = yield* Caller.read(caller, source, "my-task")
      assert.strictEqual(named.sessionId, Session.scoped(caller, "my-task"))
    }))
})
