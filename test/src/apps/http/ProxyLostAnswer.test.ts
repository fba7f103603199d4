/**
 * A lost answer costs nothing but the request (issue 43, item 4): a compacting request whose answer never reached
 * the client (the upstream failed, or the client went away after the compaction was saved) and is sent again gives
 * the view an uninterrupted session gives, within the same tokens, and the session goes on as it would have: the
 * next compaction at the same request, no message clipped that an uninterrupted session keeps whole.
 */
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as ProxyServer from "../../../support/ProxyServer.js"

const repository = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))
const session: ReadonlyArray<any> = JSON.parse(
  Fs.readFileSync(NodePath.join(repository, "examples/session/agent-session.json"), "utf8")
)

/** The lengths a growing session is sent at: after each tool result or assistant answer. */
const steps = session.flatMap((message, index) =>
  index > 2 && (message.role === "tool" || (message.role === "assistant" && message.tool_calls === undefined)) &&
    session[index + 1]?.role !== "tool"
    ? [index + 1]
    : []
).slice(0, 70)

const proxy = (fake: FakeUpstream.FakeUpstream) => ProxyServer.serve({ upstream: fake.url, window: 16_000 })

interface Sent {
  readonly status: number
  readonly report: string
  readonly messages: ReadonlyArray<any>
}

const send = (base: string, fake: FakeUpstream.FakeUpstream, messages: ReadonlyArray<any>) =>
  Effect.promise(async (): Promise<Sent> => {
    const response = await fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", [Proxy.sessionHeader]: "lost", authorization: "Bearer sk-lost" },
      body: JSON.stringify({ model: "gpt-test", messages })
    })
    await response.text()
    return {
      status: response.status,
      report: response.headers.get(Proxy.reportHeader) ?? "",
      messages: fake.received.at(-1)!.body.messages
    }
  })

const upstream = Effect.acquireRelease(
  Effect.promise(async () => {
    const fake = await FakeUpstream.start()
    // The provider's count: about a token per four characters of what it received.
    fake.usageOf = (request) => Math.ceil(request.text.length / 4)
    return fake
  }),
  (fake) => Effect.promise(() => fake.close())
)

/** A whole session through a proxy; `lose` says which requests' answers are lost (an upstream 500) and sent again. */
const sessionThrough = (lose: (step: number) => boolean) =>
  Effect.gen(function*() {
    const fake = yield* upstream
    const base = yield* proxy(fake)
    const sent: Array<Sent> = []
    for (const [step, length] of steps.entries()) {
      if (lose(step)) {
        fake.script.push({
          _tag: "json",
          status: 500,
          body: { error: { message: "upstream failed", type: "server_error" } }
        })
        const lost = yield* send(base, fake, session.slice(0, length))
        assert.strictEqual(lost.status, 500)
      }
      sent.push(yield* send(base, fake, session.slice(0, length)))
    }
    return sent
  })

const tokensOf = (report: string): number => Number(/tokens=(?:\d+->)?(\d+)/.exec(report)?.[1] ?? NaN)
const clipped = (messages: ReadonlyArray<any>): number => (JSON.stringify(messages).match(/\[clipped: /g) ?? []).length

describe("Proxy: a lost answer", () => {
  it.scopedLive(
    "a compacting request sent again gives the uninterrupted session's view, and the session goes on as it would have",
    () =>
      Effect.gen(function*() {
        const whole = yield* sessionThrough(() => false)
        const compactedAt = whole.findIndex((sent) => sent.report.startsWith("compacted"))
        assert.isAbove(compactedAt, 0, "the session never compacted")
        const retried = yield* sessionThrough((step) => step === compactedAt)
        // The request sent again is answered as a restore of the saved compaction, with the same view.
        assert.match(retried[compactedAt]!.report, /^restored|^compacted/)
        assert.isAtMost(tokensOf(retried[compactedAt]!.report), tokensOf(whole[compactedAt]!.report))
        assert.deepStrictEqual(retried[compactedAt]!.messages, whole[compactedAt]!.messages)
        // From then on: the same views, the same compaction points, nothing clipped that the whole session kept.
        for (let step = compactedAt + 1; step < steps.length; step++) {
          assert.strictEqual(
            clipped(retried[step]!.messages),
            clipped(whole[step]!.messages),
            `request ${step}: ${retried[step]!.report} against ${whole[step]!.report}`
          )
          assert.strictEqual(
            retried[step]!.report.startsWith("compacted"),
            whole[step]!.report.startsWith("compacted"),
            `request ${step}: ${retried[step]!.report} against ${whole[step]!.report}`
          )
        }
      }),
    { timeout: 120_000 }
  )
})
