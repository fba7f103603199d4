/**
 * The proxy as the HTTP tests run it: a fake upstream for the scope of a
 * test, the engine over the test layers, and the proxy on a free port of
 * 127.0.0.1 in front of the upstream, over an engine, for as long as the scope.
 */
import * as Compat from "#compat"
import * as HttpCompat from "#compat-http"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Http from "node:http"
import * as Proxy from "../../src/apps/http/Proxy.js"
import * as Compactor from "../../src/face/engine/Compactor.js"
import * as Testing from "../../src/face/layers/Testing.js"
import { builtInPolicies } from "../../src/face/rules/index.js"
import * as FakeUpstream from "./FakeUpstream.js"

/** A fake upstream on 127.0.0.1, closed with the scope. */
export const upstream = Effect.acquireRelease(
  Effect.promise(() => FakeUpstream.start()),
  (fake) => Effect.promise(() => fake.close())
)

/** The engine with the built-in policies over test layers (`Testing.layer()` unless others are given). */
export const testEngine = (testing: ReturnType<typeof Testing.layer> = Testing.layer()) =>
  Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provideMerge(testing))

/** The proxy on a free port of 127.0.0.1 with these options, over `engine` (the test engine by default); its base URL. */
export const serve = <E = never>(
  options: Proxy.Options,
  engine: Layer.Layer<Compactor.Compactor, E> = testEngine()
) =>
  Effect.gen(function*() {
    const server = Proxy.layer(options).pipe(
      Layer.provideMerge(HttpCompat.layerNodeServer(() => Http.createServer(), { port: 0, host: "127.0.0.1" })),
      Layer.provideMerge(engine),
      Layer.provide(Compat.nodeHttpClient)
    )
    const address = HttpCompat.tcpAddress(
      Context.get(yield* Layer.build(Layer.orDie(server)), HttpCompat.HttpServer.HttpServer).address
    )
    if (address === undefined) throw new Error("not a TCP address")
    return `http://127.0.0.1:${address.port}`
  })
