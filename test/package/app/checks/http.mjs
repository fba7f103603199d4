// The HTTP server of `serve` through the face's /http entry: `HttpServer.layerNode` on a free port of
// 127.0.0.1 over the production layers of a fresh folder (in memory when SQLite cannot be opened),
// asked for its settings, for the reduction of one tool result, and with a body its schema refuses.
// The same answers on Effect 3 and Effect 4.
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** A port of 127.0.0.1 free a moment ago. */
const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

const post = (url, body) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })

export const run = async (load) => {
  const { Effect, Layer } = await import("effect")
  const { HttpServer } = await load("http")
  const directory = mkdtempSync(join(tmpdir(), "effect-app-http-"))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const program = Effect.gen(function*() {
    yield* Layer.build(HttpServer.layerNode({ port, directory, env: () => ({}), onMemory: () => Effect.void }))
    return yield* Effect.promise(async () => {
      const settings = await fetch(`${base}/v1/settings/compaction`)
      const reduced = await post(`${base}/v1/reduce`, { envelope: { a: [1, 2, 3] }, cap: 2_000 })
      const refused = await post(`${base}/v1/reduce`, { envelope: {}, cap: "large" })
      const refusal = await refused.json()
      return {
        settings: [settings.status, (await settings.json()).settings.trigger_pct],
        reduced: [reduced.status, (await reduced.json()).text],
        refused: [refused.status, refusal._tag, refusal.issues[0].path]
      }
    })
  })
  try {
    return await Effect.runPromise(Effect.scoped(program))
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

export const expected = {
  settings: [200, 80],
  reduced: [200, "{\"a\":[1,2,3]}"],
  refused: [400, "HttpApiDecodeError", ["cap"]]
}
