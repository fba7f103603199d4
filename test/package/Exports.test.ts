/**
 * The package as a user installs it: built with `tsc -p tsconfig.build.json`
 * into a temporary package (its package.json, `cjs/`, the built `dist/`),
 * then `context-compressor/promise` and `context-compressor/ai-sdk` are
 * loaded by Node itself, from CommonJS (`require`) and from an ES module, and
 * a CommonJS consumer is type-checked against `cjs/*.d.cts`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll } from "vitest"

const root = fileURLToPath(new URL("../..", import.meta.url))
const tsc = NodePath.join(root, "node_modules", "typescript", "bin", "tsc")

/** Runs node with `args`, without blocking the test worker (a build takes a minute on a busy machine). */
const run = (args: ReadonlyArray<string>, cwd: string): Promise<{ readonly status: number | null; readonly stdout: string; readonly stderr: string }> =>
  new Promise((resolve) => {
    const child = ChildProcess.spawn(process.execPath, args, { cwd, timeout: 280_000 })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    child.on("close", (status) => resolve({ status, stdout, stderr }))
  })

describe("the package's ./promise and ./ai-sdk entries", () => {
  let workspace: string
  beforeAll(async () => {
    workspace = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-package-"))
    const pkg = NodePath.join(workspace, "node_modules", "context-compressor")
    Fs.mkdirSync(pkg, { recursive: true })
    const built = await run([tsc, "-p", "tsconfig.build.json", "--outDir", NodePath.join(pkg, "dist"), "--declarationMap", "false", "--sourceMap", "false"], root)
    assert.strictEqual(built.status, 0, built.stdout + built.stderr)
    Fs.copyFileSync(NodePath.join(root, "package.json"), NodePath.join(pkg, "package.json"))
    Fs.cpSync(NodePath.join(root, "cjs"), NodePath.join(pkg, "cjs"), { recursive: true })
    // The package's own dependencies, as an install would place them beside it.
    Fs.symlinkSync(NodePath.join(root, "node_modules"), NodePath.join(pkg, "node_modules"))
    Fs.writeFileSync(NodePath.join(workspace, "package.json"), JSON.stringify({ name: "consumer", private: true }))
  }, 300_000)
  afterAll(() => Fs.rmSync(workspace, { recursive: true, force: true }))

  it("require() gives createCompactor and the middleware as promise-returning functions; load() the module and its Error classes", async () => {
    Fs.writeFileSync(NodePath.join(workspace, "use.cjs"), `
      const { createCompactor, load } = require("context-compressor/promise")
      const { compactionMiddleware, providerOptionsKey } = require("context-compressor/ai-sdk")
      ;(async () => {
        const compactor = await createCompactor({ directory: ${JSON.stringify(NodePath.join(workspace, "state-cjs"))}, env: {} })
        const { messages, format } = await compactor.compact([{ role: "user", content: "hi" }], { contextWindow: 100000 })
        const { TranscriptError } = await load()
        const error = await compactor.compact({}, { contextWindow: 100000 }).catch((e) => e)
        const middleware = compactionMiddleware({ compactor, contextWindow: 100000 })
        const params = await middleware.transformParams({ type: "generate", model: { modelId: "m" }, params: { prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }] } })
        await compactor.close()
        process.stdout.write(JSON.stringify({ messages, format, transcriptError: error instanceof TranscriptError, reason: error.reason, prompt: params.prompt, providerOptionsKey }))
      })()
    `)
    const result = await run(["use.cjs"], workspace)
    assert.strictEqual(result.status, 0, result.stderr)
    assert.deepStrictEqual(JSON.parse(result.stdout), {
      messages: [{ role: "user", content: "hi" }],
      format: "openai",
      transcriptError: true,
      reason: "invalid-transcript",
      prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      providerOptionsKey: "context-compressor"
    })
  })

  it("import gives the same from an ES module", async () => {
    Fs.writeFileSync(NodePath.join(workspace, "use.mjs"), `
      import { createCompactor, StateError } from "context-compressor/promise"
      import { compactionPrepareStep } from "context-compressor/ai-sdk"
      const compactor = await createCompactor({ directory: ${JSON.stringify(NodePath.join(workspace, "state-esm"))}, env: {} })
      const step = await compactionPrepareStep({ compactor, contextWindow: 100000 })({ messages: [{ role: "user", content: "hi" }] })
      await compactor.close()
      const closed = await compactor.compact([], { contextWindow: 1 }).catch((e) => e)
      process.stdout.write(JSON.stringify({ step, closed: closed instanceof StateError && closed.reason }))
    `)
    const result = await run(["use.mjs"], workspace)
    assert.strictEqual(result.status, 0, result.stderr)
    assert.deepStrictEqual(JSON.parse(result.stdout), { step: { messages: [{ role: "user", content: "hi" }] }, closed: "closed" })
  })

  it("the declarations of ./promise and ./ai-sdk name no Effect type, and a CommonJS consumer type-checks against cjs/*.d.cts", async () => {
    const dist = NodePath.join(workspace, "node_modules", "context-compressor", "dist", "src")
    for (const entry of ["promise", "ai-sdk"]) {
      const declarations = Fs.readFileSync(NodePath.join(dist, entry, "index.d.ts"), "utf8")
      assert.notMatch(declarations, /from "(effect|@effect\/)|import\("(effect|@effect\/)/, entry)
    }
    Fs.writeFileSync(NodePath.join(workspace, "consumer.cts"), `
      import promise = require("context-compressor/promise")
      import aiSdk = require("context-compressor/ai-sdk")
      export async function main(): Promise<number> {
        const compactor: promise.Compactor = await promise.createCompactor({ directory: ".cc" })
        const result: promise.CompactResult<Array<{ role: string; content: string }>> = await compactor.compact([{ role: "user", content: "hi" }], { contextWindow: 1000 })
        const middleware = aiSdk.compactionMiddleware({ compactor, contextWindow: 1000 })
        const module = await promise.load()
        return result.messages.length + (middleware.middlewareVersion === "v2" ? 1 : 0) + (module.TranscriptError.name.length > 0 ? 1 : 0)
      }
    `)
    const checked = await run([tsc, "--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--skipLibCheck", "--types", "node", "--typeRoots", NodePath.join(root, "node_modules", "@types"), "consumer.cts"], workspace)
    assert.strictEqual(checked.status, 0, checked.stdout + checked.stderr)
  })
})
