/**
 * docs/integration.md's program for both Effects (issue 32): `examples/portable.ts`, written for
 * Effect 3 (`Compactor.layer` over `Production.layerMemory()` with a tokenizer swapped in,
 * `OpenAiChat.adapter.decode`, `checkpoint`, `encode`), runs on Effect 4 with its imports of the
 * package changed to `context-compressor/effect4…` and nothing else. Both are run as a user runs
 * them, each a process of its own: the file as it is on this package's Effect 3, and the file with
 * its imports changed on test-effect4's Effect 4 (`support/effect4-resolve.mjs`), the package's
 * names pointed at its sources. They print the same requests, byte for byte, for the example
 * session and a shared transcript; and the Effect 4 file typechecks on the Effect 4 project's
 * compiler options.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const repository = fileURLToPath(new URL("../..", import.meta.url))
const source = readFileSync(join(repository, "examples/portable.ts"), "utf8")
const page = readFileSync(join(repository, "docs/integration.md"), "utf8")

/** The program for Effect 4: every import of the package's entries names the Effect 4 entry. */
const forEffect4 = (code: string): string =>
  code.replace(
    /from "context-compressor(\/[\w-]+)?"/g,
    (_, entry?: string) => `from "context-compressor/effect4${entry ?? ""}"`
  )

/** The same, its package imports pointed at the sources, as a file that runs outside a packed install. */
const runnable = (code: string): string =>
  code.replace(
    /from "context-compressor\/effect4(\/[\w-]+)?"/g,
    (_, entry?: string) => `from ${JSON.stringify(join(repository, "src/effect4", entry ?? "", "index.ts"))}`
  )

const histories = [
  join(repository, "examples/session/agent-session.json"),
  // One shared transcript, the longest, when ../shared is beside the checkout.
  ...(() => {
    const shared = join(repository, "../shared/transcripts")
    if (!existsSync(shared)) return []
    const files = readdirSync(shared).filter((name) => name.endsWith(".json")).map((name) => join(shared, name))
    return files.sort((a, b) => readFileSync(b).length - readFileSync(a).length).slice(0, 1)
  })()
]

const run = (args: ReadonlyArray<string>) =>
  execFileSync(process.execPath, ["--import", "tsx", ...args], {
    cwd: repository,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    stdio: ["ignore", "pipe", "pipe"]
  })

describe("examples/portable.ts: one program for Effect 3 and Effect 4", () => {
  it("changes only its import lines of the package, which docs/integration.md shows", () => {
    const before = source.split("\n")
    const after = forEffect4(source).split("\n")
    assert.strictEqual(after.length, before.length)
    const changed = before.flatMap((line, k) => (line === after[k] ? [] : [after[k]!]))
    assert.deepStrictEqual(changed, [
      "import { Compactor } from \"context-compressor/effect4\"",
      "import { OpenAiChat } from \"context-compressor/effect4/adapters\"",
      "import { Production, TokenizerApprox } from \"context-compressor/effect4/layers\"",
      "import { builtInPolicies } from \"context-compressor/effect4/rules\""
    ])
    const section = page.slice(page.indexOf("\n## Effect 4\n"))
    assert.include(section, `\`\`\`ts\n${changed.join("\n")}\n\`\`\``)
  })

  it("typechecks on Effect 4", () => {
    const directory = mkdtempSync(join(tmpdir(), "context-compressor-portable-types-"))
    try {
      const file = join(directory, "portable.mts")
      writeFileSync(file, runnable(forEffect4(source)))
      const config = ts.getParsedCommandLineOfConfigFile(
        join(repository, "test-effect4/tsconfig.json"),
        {},
        { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} }
      )!
      // The file is outside the project's rootDir, which only emitting needs.
      const { rootDir: _rootDir, ...options } = config.options
      const program = ts.createProgram({
        rootNames: [file],
        options: { ...options, noEmit: true, allowImportingTsExtensions: true }
      })
      const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) =>
        ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")
      )
      assert.deepStrictEqual(problems, [])
    } finally {
      rmSync(directory, { recursive: true, force: true })
    }
  })

  it("prints the same requests on both, compacted", () => {
    const directory = mkdtempSync(join(tmpdir(), "context-compressor-portable-"))
    try {
      const file = join(directory, "portable.mts")
      writeFileSync(file, runnable(forEffect4(source)))
      for (const history of histories) {
        const effect3 = run(["examples/portable.ts", history])
        const effect4 = run(["--import", "./test-effect4/test/support/effect4-resolve.mjs", file, history])
        assert.strictEqual(effect4, effect3, history)
        const messages: ReadonlyArray<unknown> = JSON.parse(readFileSync(history, "utf8"))
        const requests: ReadonlyArray<ReadonlyArray<{ role: string; content: unknown }>> = effect3
          .trimEnd()
          .split("\n")
          .map((line) => JSON.parse(line))
        assert.isAbove(requests.length, 10, history)
        // The session was compacted: the last request sends fewer messages than the history
        // before it, and a compacted block right after the system messages.
        const last = requests.at(-1)!
        assert.isBelow(last.length, messages.length - 1, history)
        const block = last.find((message) => message.role !== "system")!
        assert.match(String(block.content), /compacted/i, history)
      }
    } finally {
      rmSync(directory, { recursive: true, force: true })
    }
  })
})
