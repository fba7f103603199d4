/**
 * What the README says, held to the code: the quick start's line as the
 * program prints it, and the status section's claims (recall shipped on
 * every surface, the per-session caches' bound).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as Compactor from "../src/face/engine/Compactor.js"
import * as Recall from "../src/face/engine/Recall.js"
import * as Program from "./support/Program.js"
import * as Scratch from "./support/Scratch.js"

const readme = Fs.readFileSync(NodePath.join(Program.root, "README.md"), "utf8")
const proxyDocs = Fs.readFileSync(NodePath.join(Program.root, "docs/proxy.md"), "utf8")
const section = (heading: string): string => {
  const start = readme.indexOf(`\n## ${heading}\n`)
  assert.isAtLeast(start, 0, heading)
  const end = readme.indexOf("\n## ", start + 1)
  return readme.slice(start, end === -1 ? undefined : end)
}
const scratch = Scratch.make("readme")

describe("README.md", () => {
  it.effect("the quick start's main job prints, byte for byte, the line the README shows", () =>
    Effect.gen(function*() {
      const quickStart = section("Quick start")
      const command = /npm run -s cli -- (compact [^\n]+)/.exec(quickStart)?.[1]
      assert.strictEqual(command, "compact examples/session/agent-session.json --window 32000 --out compacted.json")
      const shown = /The first command writes[\s\S]*?```\n([^\n]+)\n```/.exec(quickStart)?.[1]
      const folder = scratch.fresh()
      // The README's command, its files in a folder of the test's (the line names neither).
      const args = command!.split(" ").map((arg) => (arg === "compacted.json" ? NodePath.join(folder, arg) : arg))
      const ran = yield* Program.inProcess([
        ...args,
        "--state",
        NodePath.join(folder, "state.db"),
        "--cache",
        NodePath.join(folder, "cache.db")
      ])
      assert.strictEqual(ran.exitCode, 0, ran.stderr)
      assert.strictEqual(ran.stderr.trim(), shown)
      // "The block lists the compacted messages by recall handle": it does, and recall gives one back.
      const handle = /ctx_[A-Za-z0-9]{10,}/.exec(Fs.readFileSync(NodePath.join(folder, "compacted.json"), "utf8"))?.[0]
      assert.isDefined(handle)
      assert.include(quickStart, "context-compressor\nrecall HANDLE --session examples/session/agent-session.json")
      const recalled = yield* Program.inProcess([
        "recall",
        handle!,
        "--session",
        "examples/session/agent-session.json",
        "--dir",
        folder
      ])
      assert.strictEqual(recalled.exitCode, 0, recalled.stderr)
      assert.strictEqual((JSON.parse(recalled.stdout) as ReadonlyArray<{ handle: string }>)[0]!.handle, handle)
    }))

  it.effect("the status says recall shipped, with no 'not yet' of it, and every surface it names has it: the program's recall verb among them", () =>
    Effect.gen(function*() {
      const status = section("Status")
      const notYet = /Not yet:([^]*?)(?:\n\n|$)/.exec(status)?.[1] ?? ""
      assert.notMatch(notYet, /recall/i)
      assert.include(status, "recall by handle on every surface")
      const help = yield* Program.inProcess(["--help"])
      assert.include(help.stdout, "recall")
      assert.include(section("The command line"), "context-compressor recall HANDLE")
      assert.isFunction(Recall.recall)
    }))

  it("the per-session caches' bound it states is the engine's constant, as docs/proxy.md states it; nowhere are they said to be unbounded", () => {
    const mib = Compactor.defaultSessionCacheBytes / 1_048_576
    const stated = [...readme.matchAll(/caches (?:are )?bounded by bytes \((\d+) MiB by default/g)].map((match) =>
      Number(match[1])
    )
    assert.deepStrictEqual(stated, [mib, mib])
    assert.include(proxyDocs, `(default \`Compactor.defaultSessionCacheBytes\`, ${mib} MiB`)
    assert.notMatch(readme, /not yet bounded/i)
  })
})
