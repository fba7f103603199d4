/**
 * What npm ships, checked as a user gets it: the package is packed with
 * `npm pack` (from the built `dist/`, built first when older than the
 * sources), the tarball unpacked into a temporary project whose
 * `node_modules` links this repository's installed packages, and every entry
 * point imported there with plain `node`. One project links every package;
 * the other leaves out the optional peers (`@effect/ai`, `@effect/sql-pg`,
 * `pg`), as `npm install context-compressor` without them would (these two
 * link rather than install: an install would build better-sqlite3 again;
 * fresh applications below get the tarball by a real `npm install
 * --ignore-scripts`). The Promise API
 * and the AI SDK helpers are loaded there from CommonJS and from an ES
 * module, and a CommonJS consumer is type-checked against `cjs/*.d.cts`. The
 * program is run as installed, from its bundle (`dist/cli/`): with and without
 * the optional peers, its server, PostgreSQL through the `pg` beside it. One
 * build and one pack serve every test of the package. Every process is
 * spawned asynchronously: a synchronous spawn would block the worker the other
 * test files share. Its own suite: `npm run test:pack` (vitest.pack.config.ts),
 * which CI runs after `npm test`.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFile, spawn } from "node:child_process"
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { rm } from "node:fs/promises"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as EffectAi from "../../src/apps/effect-ai/index.js"
import * as Http from "../../src/apps/http/index.js"
import * as Adapters from "../../src/face/adapters/index.js"
import * as SummaryPrompt from "../../src/face/engine/SummaryPrompt.js"
import * as Root from "../../src/face/index.js"
import * as Layers from "../../src/face/layers/index.js"
import * as Rules from "../../src/face/rules/index.js"
import * as Services from "../../src/face/services/index.js"
import * as Histories from "../support/Histories.js"
import * as SqlDatabases from "../support/SqlDatabases.js"
import * as Generated from "../transcripts.js"

const repo = fileURLToPath(new URL("../../", import.meta.url))
const packageJson = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as {
  readonly version: string
  readonly exports: Record<string, unknown>
  readonly bin: { readonly "context-compressor": string }
}
const tsc = join(repo, "node_modules", "typescript", "bin", "tsc")
const optionalPeers = new Set(["@effect/ai", "@effect/sql-pg", "pg"])

/** The entry points and the names each must export: those of the sources. */
const entries: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["context-compressor", Object.keys(Root)],
  ["context-compressor/adapters", Object.keys(Adapters)],
  ["context-compressor/effect-ai", Object.keys(EffectAi)],
  ["context-compressor/http", Object.keys(Http)],
  ["context-compressor/rules", Object.keys(Rules)],
  ["context-compressor/services", Object.keys(Services)],
  ["context-compressor/layers", Object.keys(Layers)]
]

interface Ran {
  readonly status: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs a program to its end, without blocking the event loop; fails only when it cannot start. */
const run = (file: string, args: ReadonlyArray<string>, cwd: string, env?: NodeJS.ProcessEnv): Promise<Ran> =>
  new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...(env === undefined ? {} : { env }) },
      (error, stdout, stderr) => {
        if (error !== null && typeof error.code !== "number") return reject(error)
        resolve({ status: error === null ? 0 : (error.code as number), stdout, stderr })
      }
    )
  })

const succeed = async (file: string, args: ReadonlyArray<string>, cwd: string): Promise<string> => {
  const ran = await run(file, args, cwd)
  if (ran.status !== 0) throw new Error(`${file} ${args.join(" ")} exited with ${ran.status}: ${ran.stderr}`)
  return ran.stdout
}

const newestIn = (path: string): number => {
  const info = statSync(path)
  if (!info.isDirectory()) return info.mtimeMs
  return Math.max(0, ...readdirSync(path).map((name) => newestIn(join(path, name))))
}

/** Builds `dist/` unless it is newer than every source it is built from. */
const ensureBuilt = async () => {
  // The bundled program is written last.
  const marker = join(repo, "dist/cli/context-compressor.js")
  const sources = Math.max(
    ...[
      "src",
      "scripts",
      "tsconfig.json",
      "tsconfig.build.json",
      "tsconfig.build.effect4.json",
      "package.json"
    ].map((
      p
    ) => newestIn(join(repo, p)))
  )
  if (existsSync(marker) && statSync(marker).mtimeMs >= sources) return
  await succeed("npm", ["run", "-s", "build"], repo)
}

/**
 * A project whose node_modules holds the unpacked tarball (a copy, not a link:
 * node resolves a module's imports from where its file really is) and links
 * to the repository's packages, but `without`.
 */
const makeProject = async (root: string, tarball: string, without: ReadonlySet<string>): Promise<string> => {
  const modules = join(root, "node_modules")
  mkdirSync(modules, { recursive: true })
  await succeed("tar", ["-xzf", tarball, "-C", modules], root)
  renameSync(join(modules, "package"), join(modules, "context-compressor"))
  const linkAll = (from: string, to: string, prefix: string) => {
    for (const name of readdirSync(from)) {
      const full = `${prefix}${name}`
      if (name.startsWith(".") || full === "context-compressor" || without.has(full)) continue
      if (name.startsWith("@")) {
        mkdirSync(join(to, name), { recursive: true })
        linkAll(join(from, name), join(to, name), `${name}/`)
      } else {
        symlinkSync(join(from, name), join(to, name), "dir")
      }
    }
  }
  linkAll(join(repo, "node_modules"), modules, "")
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "user-project", private: true, type: "module" }))
  return root
}

const checkScript = `
const entries = JSON.parse(process.argv[2])
const result = {}
for (const entry of entries) {
  try {
    result[entry] = { keys: Object.keys(await import(entry)) }
  } catch (error) {
    result[entry] = { code: error.code ?? null, message: String(error.message).split("\\n")[0] }
  }
}
console.log(JSON.stringify(result))
`

interface Imported {
  readonly keys?: ReadonlyArray<string>
  readonly code?: string | null
  readonly message?: string
}

const refused = [
  "context-compressor/internal/reduce/Interpreter",
  "context-compressor/dist/src/core/reduce/Interpreter.js",
  "context-compressor/dist/src/face/index.js"
]

const importAll = async (project: string): Promise<Record<string, Imported>> =>
  JSON.parse(
    await succeed(process.execPath, [
      "check.mjs",
      JSON.stringify([...entries.map(([entry]) => entry), ...refused])
    ], project)
  ) as Record<string, Imported>

const node = (project: string, args: ReadonlyArray<string>) => run(process.execPath, args, project)

/** The program as installed: the package's `bin`, from a project's root. */
const bin = join("node_modules/context-compressor", packageJson.bin["context-compressor"])

interface Packed {
  readonly work: string
  readonly tarball: string
  readonly files: ReadonlyArray<string>
}

let packing: Promise<Packed> | undefined
/** One build and one `npm pack` for every test of the file. */
const packOnce = (): Promise<Packed> =>
  packing ??= (async () => {
    await ensureBuilt()
    const work = mkdtempSync(join(tmpdir(), "context-compressor-pack-"))
    const packed = JSON.parse(
      await succeed("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], repo)
    ) as ReadonlyArray<{ readonly filename: string; readonly files: ReadonlyArray<{ readonly path: string }> }>
    return { work, tarball: join(work, packed[0]!.filename), files: packed[0]!.files.map((file) => file.path) }
  })()

// The applications' node_modules take a while to remove on a loaded machine: removed asynchronously, so the
// worker the other test files share is not held meanwhile.
afterAll(async () => {
  if (packing !== undefined) await rm((await packing).work, { recursive: true, force: true })
}, 180_000)

describe("the packed package", () => {
  let files: ReadonlyArray<string> = []
  let full = ""
  let bare = ""

  beforeAll(async () => {
    const packed = await packOnce()
    files = packed.files
    full = await makeProject(join(packed.work, "full"), packed.tarball, new Set())
    bare = await makeProject(join(packed.work, "bare"), packed.tarball, optionalPeers)
    for (const project of [full, bare]) writeFileSync(join(project, "check.mjs"), checkScript)
  }, 300_000)

  it("ships the LICENSE, the built entry points, the examples users are pointed to, and no source map", () => {
    for (
      const path of [
        "LICENSE",
        "package.json",
        "dist/src/face/index.js",
        "dist/src/face/index.d.ts",
        "dist/cli/context-compressor.js",
        "dist/cli/THIRD-PARTY-LICENSES.txt",
        "dist/bundle/promise.js",
        "dist/bundle/THIRD-PARTY-LICENSES.txt",
        "dist/vendor/o200k_base.js",
        "dist/entry/guard.js",
        "examples/compaction.ts",
        "examples/session/agent-session.json"
      ]
    ) {
      assert.include(files, path)
    }
    assert.deepStrictEqual(files.filter((path) => path.endsWith(".map")), [])
    assert.include(readFileSync(join(bare, "node_modules/context-compressor/LICENSE"), "utf8"), "MIT License")
    for (const [name, target] of Object.entries(packageJson.exports)) {
      if (target === null || typeof target === "string") continue
      const paths = (value: unknown): ReadonlyArray<string> =>
        typeof value === "string"
          ? [value]
          : typeof value === "object" && value !== null
          ? Object.values(value).flatMap(paths)
          : []
      for (const path of paths(target)) assert.include(files, path.replace(/^\.\//, ""), `${name} → ${path}`)
    }
  })

  it("every entry point imports with plain node and exports the names of its sources; internals are refused", async () => {
    const imported = await importAll(full)
    for (const [entry, names] of entries) {
      assert.deepStrictEqual(
        [...(imported[entry]?.keys ?? [])].sort(),
        [...names].sort(),
        `${entry}: ${imported[entry]?.message}`
      )
    }
    for (const path of refused) assert.strictEqual(imported[path]?.code, "ERR_PACKAGE_PATH_NOT_EXPORTED", path)
  })

  it("without the optional peers, every entry point but ./effect-ai (the @effect/ai Prompt adapter) still imports", async () => {
    const imported = await importAll(bare)
    for (const [entry, names] of entries) {
      if (entry === "context-compressor/effect-ai") {
        assert.strictEqual(imported[entry]?.code, "ERR_MODULE_NOT_FOUND")
        assert.include(
          imported[entry]?.message,
          "context-compressor/effect-ai needs the package @effect/ai, which is not installed: npm install @effect/ai@"
        )
      } else {
        assert.deepStrictEqual(
          [...(imported[entry]?.keys ?? [])].sort(),
          [...names].sort(),
          `${entry}: ${imported[entry]?.message}`
        )
      }
    }
  })

  it("the program (the bundled bin) runs without the optional peers: --version is the package's, compact works, and --database-url names the package to install", async () => {
    const version = await node(bare, [bin, "--version"])
    assert.strictEqual(version.status, 0, version.stderr)
    assert.include(version.stdout, packageJson.version)
    const chat = [{ role: "user", content: "hello" }, { role: "assistant", content: "hi" }]
    writeFileSync(join(bare, "chat.json"), JSON.stringify(chat))
    const compacted = await node(bare, [bin, "compact", "chat.json", "--window", "128000"])
    assert.strictEqual(compacted.status, 0, compacted.stderr)
    assert.deepStrictEqual(JSON.parse(compacted.stdout), chat)
    assert.include(compacted.stderr, "under the trigger")
    // The bundle carries @effect/sql-pg (a second Effect from node_modules could not mix with its own): only pg is asked for.
    const pg = await node(bare, [bin, "compact", "chat.json", "--database-url", "postgres://worker@127.0.0.1:1/fleet"])
    assert.strictEqual(pg.status, 2)
    assert.strictEqual(pg.stdout, "")
    assert.include(pg.stderr, "needs the package pg, which is not installed: npm install pg")
    assert.strictEqual(pg.stderr.trim().split("\n").length, 1, pg.stderr)
  })

  it("the bundled program reads the @effect/ai Prompt format without @effect/ai installed, and with it", async () => {
    const prompt = {
      content: [{ role: "user", content: [{ type: "text", text: "hello" }] }, {
        role: "assistant",
        content: [{ type: "text", text: "hi" }]
      }]
    }
    for (const project of [bare, full]) {
      writeFileSync(join(project, "prompt.json"), JSON.stringify(prompt))
      const ran = await node(project, [bin, "compact", "prompt.json", "--format", "effect-ai", "--window", "128000"])
      assert.strictEqual(ran.status, 0, ran.stderr)
      assert.deepStrictEqual(JSON.parse(ran.stdout), prompt)
    }
  })

  // The page is found from where the bundle's chunks are, as from the sources.
  it("the bundled program serves the API and the inspector page", async () => {
    const server = spawn(process.execPath, [bin, "serve", "--port", "0", "--dir", join(bare, "served")], {
      cwd: bare,
      stdio: ["ignore", "ignore", "pipe"]
    })
    try {
      const origin = await new Promise<string>((resolve, reject) => {
        let stderr = ""
        server.stderr.setEncoding("utf8").on("data", (chunk: string) => {
          stderr += chunk
          const found = /listening on (http:\/\/\S+)/.exec(stderr)
          if (found !== null) resolve(found[1]!)
        })
        server.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)))
      })
      const page = await fetch(`${origin}/`)
      assert.strictEqual(page.status, 200)
      assert.include(await page.text(), "<html")
      const compacted = await fetch(`${origin}/v1/compact`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ transcript: [{ role: "user", content: "hi" }], contextWindow: 128000 })
      })
      assert.strictEqual(compacted.status, 200)
      assert.deepStrictEqual(((await compacted.json()) as { output: unknown }).output, [{
        role: "user",
        content: "hi"
      }])
    } finally {
      server.kill()
    }
  })

  // The bundled @effect/sql-pg against the pg that is installed beside it, on a real server.
  it.skipIf(SqlDatabases.postgres.skip !== undefined)(
    "the bundled program keeps its settings and cache in PostgreSQL with pg installed",
    async () => {
      const url = await Effect.runPromise(Effect.scoped(SqlDatabases.postgres.database)).then(({ url }) => url)
      const set = await node(full, [
        bin,
        "settings",
        "set",
        "trigger_pct",
        "70",
        "--database-url",
        url,
        "--config",
        join(full, "config.toml")
      ])
      assert.strictEqual(set.status, 0, set.stderr)
      assert.include(set.stdout, "# persisted in postgres://")
      const get = await node(full, [
        bin,
        "settings",
        "get",
        "trigger_pct",
        "--database-url",
        url,
        "--config",
        join(full, "config.toml")
      ])
      assert.strictEqual(get.status, 0, get.stderr)
      assert.match(get.stdout, /^trigger_pct = 70\b/)
      const stats = await node(full, [bin, "cache", "stats", "--database-url", url])
      assert.strictEqual(stats.status, 0, stats.stderr)
      assert.match(stats.stdout.trim(), /^postgres:\/\/\S+: 0 summaries, [\d,]+ bytes$/)
    }
  )

  it("require() gives createCompactor and the middleware as promise-returning functions; load() the module and its Error classes", async () => {
    writeFileSync(
      join(full, "use.cjs"),
      `
      const { createCompactor, load } = require("context-compressor/promise")
      const { compactionMiddleware, providerOptionsKey } = require("context-compressor/ai-sdk")
      ;(async () => {
        const compactor = await createCompactor({ directory: ${JSON.stringify(join(full, "state-cjs"))}, env: {} })
        const { messages, format } = await compactor.compact([{ role: "user", content: "hi" }], { contextWindow: 100000 })
        const { TranscriptError } = await load()
        const error = await compactor.compact({}, { contextWindow: 100000 }).catch((e) => e)
        const middleware = compactionMiddleware({ compactor, contextWindow: 100000 })
        const params = await middleware.transformParams({ type: "generate", model: { modelId: "m" }, params: { prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }] } })
        await compactor.close()
        process.stdout.write(JSON.stringify({ messages, format, transcriptError: error instanceof TranscriptError, reason: error.reason, prompt: params.prompt, providerOptionsKey }))
      })()
    `
    )
    const result = await node(full, ["use.cjs"])
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
    writeFileSync(
      join(full, "use.mjs"),
      `
      import { createCompactor, StateError } from "context-compressor/promise"
      import { compactionPrepareStep } from "context-compressor/ai-sdk"
      const compactor = await createCompactor({ directory: ${JSON.stringify(join(full, "state-esm"))}, env: {} })
      const step = await compactionPrepareStep({ compactor, contextWindow: 100000 })({ messages: [{ role: "user", content: "hi" }] })
      await compactor.close()
      const closed = await compactor.compact([], { contextWindow: 1 }).catch((e) => e)
      process.stdout.write(JSON.stringify({ step, closed: closed instanceof StateError && closed.reason }))
    `
    )
    const result = await node(full, ["use.mjs"])
    assert.strictEqual(result.status, 0, result.stderr)
    assert.deepStrictEqual(JSON.parse(result.stdout), {
      step: { messages: [{ role: "user", content: "hi" }] },
      closed: "closed"
    })
  })

  it("the declarations of ./promise and ./ai-sdk name no Effect type, and a CommonJS consumer type-checks against cjs/*.d.cts", async () => {
    const dist = join(full, "node_modules", "context-compressor", "dist", "src", "apps")
    for (const entry of ["promise", "ai-sdk"]) {
      const declarations = readFileSync(join(dist, entry, "index.d.ts"), "utf8")
      assert.notMatch(declarations, /from "(effect|@effect\/)|import\("(effect|@effect\/)/, entry)
    }
    writeFileSync(
      join(full, "consumer.cts"),
      `
      import promise = require("context-compressor/promise")
      import aiSdk = require("context-compressor/ai-sdk")
      export async function main(): Promise<number> {
        const told: Array<promise.Fallback> = []
        const onFallback: promise.OnFallback = (fallback) => void told.push(fallback)
        const compactor: promise.Compactor = await promise.createCompactor({ directory: ".cc", onFallback })
        const result: promise.CompactResult<Array<{ role: string; content: string }>> = await compactor.compact([{ role: "user", content: "hi" }], { contextWindow: 1000 })
        const warned: ReadonlyArray<string> = result.warnings
        const middleware = aiSdk.compactionMiddleware({ compactor, contextWindow: 1000 })
        const module = await promise.load()
        return result.messages.length + warned.length + told.length + (middleware.middlewareVersion === "v2" ? 1 : 0) + (module.TranscriptError.name.length > 0 ? 1 : 0)
      }
    `
    )
    const checked = await node(full, [
      tsc,
      "--noEmit",
      "--strict",
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "--skipLibCheck",
      "--types",
      "node",
      "--typeRoots",
      join(repo, "node_modules", "@types"),
      "consumer.cts"
    ])
    assert.strictEqual(checked.status, 0, checked.stdout + checked.stderr)
  })
})

/**
 * The package as a user installs it today: `npm install --ignore-scripts` of
 * the tarball into fresh applications, from the registry's packages (the
 * local npm cache first): one on ai@7 and @ai-sdk/provider@4, one on effect@4
 * with @effect/platform-node, @effect/sql-pg and @effect/vitest of their 4.x line,
 * one with nothing else. In each, the Promise API compacts in memory (no file,
 * no better-sqlite3 installed), the middleware compacts the prompt of a call,
 * and an AI SDK model writes the summary (through ai@7's generateText where
 * ai is installed, through the model's own doGenerate where it is not); and
 * `npm ls` finds no conflict.
 */
const appScript = `
import { createCompactor, OptionError } from "context-compressor/promise"
import { compactionMiddleware } from "context-compressor/ai-sdk"
import { existsSync, readFileSync } from "node:fs"
const { chat, messages, summary, withAi } = JSON.parse(readFileSync("input.json", "utf8"))
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } }
const reply = (text) => ({ content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] })
const out = {}

const compactor = await createCompactor({ settings: { capTokens: 10000 } })
const compacted = await compactor.compact(chat, { contextWindow: 200000, sessionId: "app" })
out.promise = { shorter: compacted.messages.length < chat.length, compacted: compacted.report !== undefined }
await compactor.close()
out.bogus = await createCompactor({ summarizer: "bogus" }).then(() => "accepted", (error) => (error instanceof OptionError ? error.option : String(error)))

const test = withAi ? await import("ai/test") : undefined
const calls = []
const summarizer = withAi
  ? new test.MockLanguageModelV4({ doGenerate: async (call) => (calls.push(call), reply(summary)) })
  : { specificationVersion: "v4", provider: "app", modelId: "summariser", doGenerate: async (call) => (calls.push(call), reply(summary)) }
const middleware = compactionMiddleware({ contextWindow: 12000, summarizer })
let sent
if (withAi) {
  const { generateText, wrapLanguageModel } = await import("ai")
  const main = new test.MockLanguageModelV4({ doGenerate: async () => reply("Done.") })
  const [system, ...rest] = messages
  const result = await generateText({ model: wrapLanguageModel({ model: main, middleware }), instructions: system.content, messages: rest })
  out.reply = result.text
  sent = main.doGenerateCalls[0].prompt
} else {
  sent = (await middleware.transformParams({ type: "generate", params: { prompt: messages }, model: { modelId: "main" } })).prompt
}
await middleware.close()
out.middleware = { shorter: sent.length < messages.length, summarised: JSON.stringify(sent).includes("The parser cache of the long run") }
out.summariser = { calls: calls.length, system: calls[0]?.prompt[0]?.role }
out.sqliteStart = await createCompactor({ directory: "state" }).then(async (compactor) => (await compactor.close(), "started"), (error) => error.message)
out.effectEntry = await import("context-compressor/layers").then(() => "loaded", (error) => String(error.message))
out.files = existsSync(".context-compressor")
out.sqlite = existsSync("node_modules/better-sqlite3")
process.stdout.write(JSON.stringify(out))
`

/**
 * The Effect application of test/package/app/ (its app.mjs says how it runs its checks): copied into
 * a fresh application as `effect-app/`, run there through one face (`effect4` or `effect3`), and
 * held to what each of its checks expects. The Effect 4 face runs under Node 22 (the version
 * scripts/node22.sh unpacks: its `.node22/` when it is there, the registry's `node` package
 * through npx when not), on the Effect 4 that test-effect4/ pins.
 */
const effectApp = join(repo, "test/package/app")
const effect4Pins = (JSON.parse(readFileSync(join(repo, "test-effect4/package.json"), "utf8")) as {
  readonly devDependencies: Record<string, string>
}).devDependencies
const effect4Version = effect4Pins["effect"]!
const node22Version = /^version=(\S+)$/m.exec(readFileSync(join(repo, "scripts/node22.sh"), "utf8"))![1]!

const node22 = (project: string, args: ReadonlyArray<string>): Promise<Ran> => {
  const unpacked = join(repo, ".node22/bin/node")
  return existsSync(unpacked)
    ? run(unpacked, args, project)
    : run("npx", ["-y", "-p", `node@${node22Version}`, "node", ...args], project)
}

interface EffectAppRun {
  readonly node: string
  readonly effect: string
  readonly checks?: Record<string, { readonly result?: unknown; readonly error?: string }>
  readonly refused?: string
  readonly lines?: number
}

/** Runs the Effect application in `app` through `face`, with `runner` (plain `node` or {@link node22}). */
const runEffectApp = async (
  app: string,
  face: "effect3" | "effect4",
  runner: (project: string, args: ReadonlyArray<string>) => Promise<Ran>
): Promise<EffectAppRun> => {
  if (!existsSync(join(app, "effect-app"))) cpSync(effectApp, join(app, "effect-app"), { recursive: true })
  const ran = await runner(app, ["effect-app/app.mjs", face])
  assert.strictEqual(ran.status, 0, ran.stderr)
  return JSON.parse(ran.stdout) as EffectAppRun
}

/** Every check of the application that runs on `face` gave what it expects. */
const holdChecks = async (ran: EffectAppRun, face: "effect3" | "effect4") => {
  const files = readdirSync(join(effectApp, "checks")).filter((name) => name.endsWith(".mjs")).sort()
  const checks = await Promise.all(files.map(async (file) => {
    const check = (await import(join(effectApp, "checks", file))) as {
      readonly expected: unknown
      readonly faces?: ReadonlyArray<string>
    }
    return { name: file.replace(/\.mjs$/, ""), check }
  }))
  const onFace = checks.filter(({ check }) => check.faces === undefined || check.faces.includes(face))
  assert.deepStrictEqual(Object.keys(ran.checks ?? {}).sort(), onFace.map(({ name }) => name), JSON.stringify(ran))
  for (const { check, name } of onFace) {
    assert.deepStrictEqual(ran.checks![name], { result: check.expected }, `${face}: ${name}`)
  }
  assert.include(onFace.map(({ name }) => name), "rules")
}

/** The @effect packages with an Effect 4 line that an Effect 4 application installs beside effect (issue 44). */
const effect4Packages = ["@effect/platform-node", "@effect/sql-pg", "@effect/vitest"]

/** Each Effect 3 entry point and the Effect 4 entry to import instead, where there is one. */
const effect3Entries: ReadonlyArray<readonly [string, string | undefined]> = entries.map(([entry]) => [
  entry,
  entry.replace(/^context-compressor/, "context-compressor/effect4")
])

describe("fresh applications installed from the tarball with npm --ignore-scripts", () => {
  const apps = {
    "ai@7": ["ai@7", "@ai-sdk/provider@4"],
    // A typical Effect 4 Node application: effect, its Node platform, PostgreSQL and the test kit, each of its Effect 4 line.
    // Each @effect package at the version test-effect4/ pins beside that effect: the newest 4.x of one may need a newer effect.
    "effect@4": [`effect@${effect4Version}`, ...effect4Packages.map((name) => `${name}@${effect4Pins[name] ?? "4"}`)],
    "nothing else": []
  } as const
  const installed = new Map<string, string>()

  beforeAll(async () => {
    const { tarball, work } = await packOnce()
    const input = JSON.stringify({
      chat: Histories.toOpenAiChat(Generated.longSession),
      messages: Histories.toModelMessages(Generated.longSession),
      summary: SummaryPrompt.generalSections.map((heading) =>
        `${heading}\nThe parser cache of the long run, as the user asked for it.`
      ).join("\n\n")
    })
    // The examples' application is installed meanwhile (its commands run one after another).
    void examplesAppOnce().catch(() => undefined)
    // The three installs at once: each waits mostly on the cache and the disk.
    await Promise.all(
      Object.entries(apps).map(async ([name, extra]) => {
        const app = join(work, `app-${name.replace(/\W+/g, "-")}`)
        mkdirSync(app, { recursive: true })
        writeFileSync(join(app, "package.json"), JSON.stringify({ name: "fresh-app", private: true, type: "module" }))
        await succeed("npm", [
          "install",
          "--ignore-scripts",
          "--prefer-offline",
          "--no-audit",
          "--no-fund",
          "--loglevel=error",
          tarball,
          ...extra
        ], app)
        writeFileSync(join(app, "input.json"), input.replace(/^\{/, `{"withAi":${name === "ai@7"},`))
        writeFileSync(join(app, "app.mjs"), appScript)
        installed.set(name, app)
      })
    )
  }, 300_000)

  it(`with effect@${effect4Version}, under Node 22: the Effect application imports context-compressor/effect4, /effect4/rules, /effect4/services, /effect4/layers and /effect4/adapters: builds the Compactor from its test layers and compacts a 300-message history, decodes a chat history, compacts and encodes it back, composes a rule of its own with agentic-workspace/v1 that reduces an envelope to the expected bytes and report, checks a property over the fake memory store with Effect 4's own checker, saves state to SQLite that a new process reads back the same, recalls a compacted message by its handle, classifies a provider's overflow, compacts through the chat-completions summariser against a local server over Production.nodeHttpClient, and serves the HTTP API of /effect4/http on a Node server`, async () => {
    const ran = await runEffectApp(installed.get("effect@4")!, "effect4", node22)
    assert.strictEqual(ran.node, `v${node22Version}`)
    assert.strictEqual(ran.effect, effect4Version)
    await holdChecks(ran, "effect4")
  })

  it(
    `with effect@${effect4Version}: a strict TypeScript application (skipLibCheck false) compiles against every Effect 4 entry`,
    async () => {
      const app = installed.get("effect@4")!
      const effect4Entries = Object.keys(packageJson.exports)
        .filter((key) => key.startsWith("./effect4"))
        .map((key) => `context-compressor/${key.slice(2)}`)
      assert.includeMembers(effect4Entries, [
        "context-compressor/effect4",
        "context-compressor/effect4/rules",
        "context-compressor/effect4/services",
        "context-compressor/effect4/layers",
        "context-compressor/effect4/adapters",
        "context-compressor/effect4/effect-ai",
        "context-compressor/effect4/http"
      ])
      writeFileSync(join(app, "tsconfig.json"), strictConfig)
      writeFileSync(join(app, "main.ts"), importingAll(effect4Entries))
      const checked = await node(app, [tsc, "-p", "."])
      assert.strictEqual(checked.status, 0, checked.stdout + checked.stderr)
    },
    120_000
  )

  it(`with effect@4, ${effect4Packages.join(", ")} at 4.x: a plain npm install (no --legacy-peer-deps) takes the package, whose peer ranges admit each`, async () => {
    const app = installed.get("effect@4")!
    const manifestOf = (name: string) => readFileSync(join(app, "node_modules", name, "package.json"), "utf8")
    for (const name of ["effect", ...effect4Packages]) {
      assert.match((JSON.parse(manifestOf(name)) as { readonly version: string }).version, /^4\./, name)
    }
    const listed = await run("npm", ["ls", "--all", ...effect4Packages], app)
    assert.strictEqual(listed.status, 0, listed.stdout + listed.stderr)
    assert.notMatch(listed.stdout, /invalid|ERESOLVE|UNMET/, listed.stdout)
  })

  // Uncaught, as an application that imports the wrong entry meets it: node prints the refusal's one line after its own
  // frame, and none of the guard's frames.
  it("with effect@4, every Effect 3 entry point refuses in one line naming the Effect 4 entry to import instead, without a stack trace", async () => {
    const app = installed.get("effect@4")!
    const refusals = await Promise.all(effect3Entries.map(async ([entry, effect4]) => {
      const file = `wrong-${entry.replace(/\W+/g, "-")}.mjs`
      writeFileSync(join(app, file), `import ${JSON.stringify(entry)}\n`)
      return { entry, effect4, ran: await node(app, [file]) }
    }))
    for (const { effect4, entry, ran } of refusals) {
      assert.notStrictEqual(ran.status, 0, entry)
      const ours = ran.stderr.split("\n").filter((line) => line.includes("context-compressor"))
      assert.strictEqual(ours.length, 1, ran.stderr)
      assert.match(
        ours[0]!,
        new RegExp(`^\\[Error: ${entry} needs effect 3, and effect 4\\.\\d+\\.\\d+\\S* is installed: `)
      )
      assert.include(
        ours[0]!,
        effect4 === undefined ? "it has no Effect 4 entry yet" : `on Effect 4, import ${effect4} instead`,
        entry
      )
      assert.notMatch(ran.stderr, /^\s+at /m, ran.stderr)
    }
  })

  for (const name of ["ai@7", "effect@4", "nothing else"] as const) {
    it(`with ${name}: npm ls finds no conflict; the Promise API, the middleware and an AI SDK model as the summariser run, in memory`, async () => {
      const app = installed.get(name)!
      const listed = await run("npm", ["ls", "--all"], app)
      assert.strictEqual(listed.status, 0, listed.stdout + listed.stderr)
      const ran = await node(app, ["app.mjs"])
      assert.strictEqual(ran.status, 0, ran.stderr)
      const out = JSON.parse(ran.stdout) as Record<string, unknown>
      assert.deepStrictEqual(out["promise"], { shorter: true, compacted: true })
      assert.strictEqual(out["bogus"], "summarizer")
      assert.deepStrictEqual(out["middleware"], { shorter: true, summarised: true })
      assert.deepStrictEqual(out["summariser"], { calls: 1, system: "system" })
      assert.strictEqual(out["files"], false)
      assert.strictEqual(out["sqlite"], false)
      if (name === "ai@7") assert.strictEqual(out["reply"], "Done.")
      if (name === "nothing else") {
        // Without better-sqlite3 the program runs in memory: settings get reads the files and the environment, and says so in one line on stderr.
        const program = await node(app, [bin, "settings", "get", "trigger_pct"])
        assert.strictEqual(program.status, 0, program.stderr)
        assert.match(program.stdout, /^trigger_pct = 80\b/)
        assert.strictEqual(program.stderr.trim().split("\n").length, 1, program.stderr)
        assert.include(
          program.stderr,
          "needs the package better-sqlite3, which is not installed: npm install better-sqlite3; the settings are read from config.toml"
        )
      }
      // A folder asks for SQLite, which is not installed: one line saying what to install.
      assert.strictEqual(
        out["sqliteStart"],
        "context-compressor could not start: cannot open state/state.db: SQLite needs the package better-sqlite3, which is not installed: npm install better-sqlite3"
      )
      // An Effect entry point without Effect 3: one line naming what to install, and that the others need none.
      const refusal = String(out["effectEntry"])
      assert.notInclude(refusal, "\n")
      if (name === "effect@4") {
        assert.match(
          refusal,
          /^context-compressor\/layers needs effect 3, and effect 4\.\d+\.\d+\S* is installed: on Effect 4, import context-compressor\/effect4\/layers instead/
        )
      } else {assert.match(
          refusal,
          /^context-compressor\/layers needs effect 3, which is not installed: npm install effect@"\^3\.22\.4"/
        )}
      assert.include(
        refusal,
        "context-compressor/promise, context-compressor/ai-sdk and the program carry their own Effect"
      )
    })
  }
})

/**
 * What a newcomer copies: the README's install commands, run as written (the
 * tarball in place of `context-compressor`; npm's quiet, offline-first and
 * `--ignore-scripts` flags added, which change nothing of what resolves) one
 * after another in a fresh application, then every shipped example
 * (`examples/*.ts`, copied out of the installed package, run with tsx as the
 * examples say) in it. The examples that import `ai` run on ai@5, ai@6 and
 * ai@7: the application has ai@5 and ai@6 and ai@7 under npm aliases, and a
 * sibling folder per alias links everything else and has `ai` point at it.
 */
const readme = readFileSync(join(repo, "README.md"), "utf8")
const installCommands: ReadonlyArray<string> = (() => {
  const section = readme.slice(readme.indexOf("## Installing"))
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? ""
  return block.split("\n").map((line) => line.replace(/#.*$/, "").trim()).filter((line) =>
    line.startsWith("npm install ")
  )
})()
const devDependencies =
  (JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { readonly devDependencies: Record<string, string> })
    .devDependencies
const peerDependencies = (JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as {
  readonly peerDependencies: Record<string, string>
}).peerDependencies
const quiet = ["--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"]
const tsxLoader = `file://${join(repo, "node_modules", "tsx", "dist", "loader.mjs")}`
const aiMajors = { "ai@5": "ai", "ai@6": "ai-v6", "ai@7": "ai-v7" } as const

interface ExamplesApp {
  readonly app: string
  /** The folder each ai major runs in, by major. */
  readonly byMajor: Readonly<Record<keyof typeof aiMajors, string>>
  readonly seconds: number
}

let examplesInstall: Promise<ExamplesApp> | undefined
const examplesAppOnce = (): Promise<ExamplesApp> =>
  examplesInstall ??= (async () => {
    const started = Date.now()
    const { tarball, work } = await packOnce()
    const app = join(work, "app-examples")
    mkdirSync(app, { recursive: true })
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "examples-app", private: true, type: "module" }))
    for (const command of installCommands) {
      const args = command.split(/\s+/).slice(2).map((arg) => (arg === "context-compressor" ? tarball : arg))
      await succeed("npm", ["install", ...quiet, ...args], app)
    }
    // What the examples themselves import beyond the package: the AI SDK (three majors), zod, the OpenAI SDK.
    await succeed("npm", [
      "install",
      ...quiet,
      `ai@${devDependencies["ai"]}`,
      `ai-v6@${devDependencies["ai-v6"]}`,
      `ai-v7@${devDependencies["ai-v7"]}`,
      `zod@${devDependencies["zod"]}`,
      `openai@${devDependencies["openai"]}`
    ], app)
    cpSync(join(app, "node_modules/context-compressor/examples"), join(app, "examples"), { recursive: true })
    const linked = (major: "ai@6" | "ai@7") => {
      const folder = join(work, `app-examples-${major.replace("@", "")}`)
      const modules = join(folder, "node_modules")
      mkdirSync(modules, { recursive: true })
      for (const name of readdirSync(join(app, "node_modules"))) {
        if (name.startsWith(".") || name === "ai" || name === "context-compressor") continue
        symlinkSync(join(app, "node_modules", name), join(modules, name), "dir")
      }
      symlinkSync(join(app, "node_modules", aiMajors[major]), join(modules, "ai"), "dir")
      // A copy: the package resolves `ai` from where its files really are.
      cpSync(join(app, "node_modules/context-compressor"), join(modules, "context-compressor"), { recursive: true })
      cpSync(join(app, "examples"), join(folder, "examples"), { recursive: true })
      cpSync(join(app, "package.json"), join(folder, "package.json"))
      return folder
    }
    return {
      app,
      byMajor: { "ai@5": app, "ai@6": linked("ai@6"), "ai@7": linked("ai@7") },
      seconds: (Date.now() - started) / 1000
    }
  })()

/** What each shipped example prints when it works; `""` for a module the others import, which prints nothing. */
const exampleOutputs: Record<string, RegExp | ""> = {
  "agent-loop.ts": /^turn \d+: history \d+ messages, sent \d+ \(compacted\)$/m,
  "ai-sdk-middleware.ts": /text: 'Done\.', streamed: 'Going on\.'/,
  "ai-sdk-prepare-step.ts": /^There are two folders\.$/m,
  "compaction.ts": /compaction 1: \d+ → \d+ tokens/,
  "custom-policy.ts": /^\d+ → \d+ characters, route envelope$/m,
  "make-envelopes.ts": /^wrote examples\/envelopes\/\S+ \(\d+ characters\)$/m,
  "make-session.ts": /^wrote examples\/session\/agent-session\.json: \d+ messages/,
  "mock-model.ts": "",
  "openai-loop.ts": /^assistant: Done with the task\.$/m,
  "portable.ts": /^\[\{"role":"system","content":"You are a coding agent[^\n]*\]$/m,
  "recall-middleware.ts": /handle: 'ctx_[A-Za-z0-9]+'[\s\S]*log \d+: a line of the log/,
  "recall-proxy.ts": "",
  "seeded.ts": ""
}

/** An OpenAI-compatible server on 127.0.0.1 that answers every chat completion with one line. */
const completionServer = async () => {
  const server = createServer((request, response) => {
    request.resume().on("end", () => {
      response.writeHead(200, { "content-type": "application/json" })
      response.end(
        JSON.stringify({
          id: "c",
          object: "chat.completion",
          created: 1,
          model: "m",
          choices: [{
            index: 0,
            message: { role: "assistant", content: "Done with the task." },
            finish_reason: "stop"
          }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }
        })
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address() as { readonly port: number }
  return {
    baseUrl: `http://127.0.0.1:${address.port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** Runs `jobs` two at a time: the machine is shared. */
const twoAtATime = async <A>(jobs: ReadonlyArray<() => Promise<A>>): Promise<ReadonlyArray<A>> => {
  const results: Array<A> = []
  let next = 0
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++
      results[index] = await jobs[index]!()
    }
  }
  await Promise.all([worker(), worker()])
  return results
}

describe("the README's install commands and the shipped examples, in a fresh application", () => {
  let installed: ExamplesApp

  beforeAll(async () => {
    installed = await examplesAppOnce()
  }, 300_000)

  it("the Effect 3 command pins every @effect package to the package's peer range, so npm resolves it", () => {
    const effect = installCommands.find((command) => command.includes(" effect@"))
    assert.isDefined(effect, installCommands.join("\n"))
    for (const spec of effect!.split(/\s+/).slice(2)) {
      const at = spec.lastIndexOf("@")
      const name = spec.slice(0, at)
      assert.strictEqual(
        spec.slice(at + 1),
        // The first of a range's alternatives is the Effect 3 line (effect and the @effect packages with an Effect 4 line admit `^4.0.0` too).
        peerDependencies[name]!.split(" || ")[0],
        spec
      )
    }
    for (const command of installCommands) {
      for (const spec of command.split(/\s+/).slice(2).filter((spec) => spec.startsWith("@effect/"))) {
        assert.match(spec, /^@effect\/[a-z-]+@\^0\.\d+\.\d+$/, command)
      }
    }
    assert.isAtLeast(installCommands.length, 4)
  })

  it("every README install command ran, npm ls finds no conflict, and the Effect entry points load on the Effect 3 they installed", async () => {
    const listed = await run("npm", ["ls", "--all"], installed.app)
    assert.strictEqual(listed.status, 0, listed.stdout + listed.stderr)
    writeFileSync(join(installed.app, "check.mjs"), checkScript)
    const imported = await importAll(installed.app)
    for (const [entry, names] of entries) {
      assert.deepStrictEqual(
        [...(imported[entry]?.keys ?? [])].sort(),
        [...names].sort(),
        `${entry}: ${imported[entry]?.message}`
      )
    }
  })

  it("the Effect application runs on the Effect 3 they installed through today's entries, and context-compressor/effect4 refuses that Effect in one line", async () => {
    const ran = await runEffectApp(installed.app, "effect3", node)
    assert.match(ran.effect, /^3\./)
    await holdChecks(ran, "effect3")
    const refused = await runEffectApp(installed.app, "effect4", node)
    assert.deepStrictEqual({ refused: refused.refused, lines: refused.lines }, {
      refused:
        `context-compressor/effect4 needs effect 4, and effect ${ran.effect} is installed: on Effect 3, import context-compressor instead`,
      lines: 1
    })
  })

  it("every shipped example runs; those that use the AI SDK on ai@5, ai@6 and ai@7 alike", async () => {
    const shipped = readdirSync(join(installed.app, "examples")).filter((name) => name.endsWith(".ts")).sort()
    assert.deepStrictEqual(
      shipped,
      Object.keys(exampleOutputs).sort(),
      "every shipped example has its expected output here"
    )
    for (const name of shipped) {
      assert.notMatch(
        readFileSync(join(installed.app, "examples", name), "utf8"),
        /from "\.\.\//,
        `${name} imports the sources`
      )
    }
    // An example that imports the AI SDK when it runs (mock-model.ts, which only its users call, runs once).
    const usesAi = (name: string) => /from "ai"/.test(readFileSync(join(installed.app, "examples", name), "utf8"))
    const server = await completionServer()
    try {
      const env = { ...process.env, OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: "sk-test", NO_COLOR: "1" }
      const runs = shipped.flatMap((name) =>
        (usesAi(name) ? (Object.keys(aiMajors) as Array<keyof typeof aiMajors>) : (["ai@5"] as const)).map(
          (major) => async () => {
            const folder = installed.byMajor[major]
            const ran = await run(process.execPath, ["--import", tsxLoader, join("examples", name)], folder, env)
            return { name, major, folder, ran }
          }
        )
      )
      const results = await twoAtATime(runs)
      for (const { major, name, ran } of results) {
        assert.strictEqual(ran.status, 0, `${name} on ${major}: ${ran.stderr}`)
        const expected = exampleOutputs[name]!
        if (expected === "") assert.strictEqual(ran.stdout, "", `${name} on ${major}`)
        else assert.match(ran.stdout, expected, `${name} on ${major}`)
      }
      // Each folder really has the major it is named for.
      for (const [major, folder] of Object.entries(installed.byMajor)) {
        const version = (JSON.parse(readFileSync(join(folder, "node_modules/ai/package.json"), "utf8")) as {
          readonly version: string
        }).version
        assert.strictEqual(`ai@${version.split(".")[0]}`, major)
      }
      assert.deepStrictEqual(results.filter(({ name }) => name === "ai-sdk-middleware.ts").map(({ major }) => major), [
        "ai@5",
        "ai@6",
        "ai@7"
      ])
      // The generators rewrite the bytes the package ships.
      const shippedExamples = join(installed.app, "node_modules/context-compressor/examples")
      for (
        const file of [
          ...readdirSync(join(shippedExamples, "envelopes")).map((name) => `envelopes/${name}`),
          "session/agent-session.json"
        ]
      ) {
        assert.strictEqual(
          readFileSync(join(installed.app, "examples", file), "utf8"),
          readFileSync(join(shippedExamples, file), "utf8"),
          file
        )
      }
    } finally {
      await server.close()
    }
  }, 120_000)
})

/**
 * A strict TypeScript application (`strict`, `skipLibCheck: false`,
 * NodeNext) that installed the package and the README's Effect 3 line, and no
 * other peer: every entry point it may use without a further peer compiles,
 * so no declaration those entries reach names an optional peer it did not
 * install (`@effect/ai`, `@effect/sql-pg`, `ai`, …). The entries are the
 * package's `exports` but the Effect 4 ones (they need effect 4) and those of
 * `furtherPeer`; with the README's @effect/ai line run as well,
 * `context-compressor/effect-ai` compiles too.
 */
const furtherPeer: Readonly<Record<string, string>> = { "context-compressor/effect-ai": "@effect/ai" }
const strictEntries = Object.keys(packageJson.exports)
  .filter((key) => key !== "./package.json" && !key.includes("*") && !key.startsWith("./effect4"))
  .map((key) => (key === "." ? "context-compressor" : `context-compressor/${key.slice(2)}`))
const strictConfig = JSON.stringify({
  compilerOptions: {
    strict: true,
    skipLibCheck: false,
    module: "nodenext",
    moduleResolution: "nodenext",
    target: "es2022",
    noEmit: true,
    types: ["node"],
    typeRoots: [join(repo, "node_modules", "@types")]
  },
  files: ["main.ts"]
})
const importingAll = (entries: ReadonlyArray<string>) =>
  entries.map((entry, i) => `import * as Entry${i} from ${JSON.stringify(entry)}\n`).join("") +
  `export const entries = [${entries.map((_, i) => `Entry${i}`).join(", ")}]\n`

describe("a strict TypeScript application with the README's Effect 3 line installed, and no other peer", () => {
  let app = ""
  const commandOf = (includes: string) => {
    const command = installCommands.find((command) => command.includes(includes))
    assert.isDefined(command, `the README's install command with ${includes}`)
    return command!.split(/\s+/).slice(2)
  }

  beforeAll(async () => {
    const { tarball, work } = await packOnce()
    app = join(work, "app-strict")
    mkdirSync(app, { recursive: true })
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "strict-app", private: true, type: "module" }))
    writeFileSync(join(app, "tsconfig.json"), strictConfig)
    await succeed("npm", ["install", ...quiet, tarball, ...commandOf(" effect@")], app)
  }, 300_000)

  it("compiles against every entry point that needs no further peer (tsc --noEmit, skipLibCheck false)", async () => {
    const entries = strictEntries.filter((entry) => furtherPeer[entry] === undefined)
    assert.includeMembers(entries, [
      "context-compressor",
      "context-compressor/rules",
      "context-compressor/services",
      "context-compressor/layers",
      "context-compressor/adapters",
      "context-compressor/http",
      "context-compressor/promise",
      "context-compressor/ai-sdk"
    ])
    for (const peer of ["@effect/ai", "@effect/sql-pg", "pg", "ai", "@ai-sdk/provider"]) {
      assert.isFalse(existsSync(join(app, "node_modules", peer)), `${peer} is not installed`)
    }
    writeFileSync(join(app, "main.ts"), importingAll(entries))
    const checked = await node(app, [tsc, "-p", "."])
    assert.strictEqual(checked.status, 0, checked.stdout + checked.stderr)
  }, 120_000)

  it("with the README's @effect/ai line run too, context-compressor/effect-ai compiles", async () => {
    await succeed("npm", ["install", ...quiet, ...commandOf("@effect/ai@")], app)
    writeFileSync(join(app, "main.ts"), importingAll(Object.keys(furtherPeer)))
    const checked = await node(app, [tsc, "-p", "."])
    assert.strictEqual(checked.status, 0, checked.stdout + checked.stderr)
  }, 120_000)
})
