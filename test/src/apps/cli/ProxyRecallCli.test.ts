import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as ProxyCli from "../../../../src/apps/cli/ProxyCli.js"

const withConfig = (text: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const dir = mkdtempSync(join(tmpdir(), "context-compressor-proxy-recall-"))
      writeFileSync(join(dir, "config.toml"), text)
      return join(dir, "config.toml")
    }),
    (path) => Effect.sync(() => rmSync(join(path, ".."), { recursive: true, force: true }))
  )

describe("[proxy] recall of config.toml", () => {
  it.scoped("recall = true turns recall on, its absence leaves it off, and a value that is not a boolean is refused naming the key", () =>
    Effect.gen(function*() {
      const on = yield* ProxyCli.readProxyConfig(yield* withConfig("[proxy]\nrecall = true\n"))
      assert.strictEqual(on.recall, true)
      const off = yield* ProxyCli.readProxyConfig(yield* withConfig("[proxy]\nupstream_timeout = \"30s\"\n"))
      assert.isUndefined(off.recall)
      const refused = yield* Effect.flip(ProxyCli.readProxyConfig(yield* withConfig("[proxy]\nrecall = \"yes\"\n")))
      assert.match(refused.message, /proxy\.recall must be true or false \(got yes\)$/)
    }))
})

describe("[proxy] native_compaction of config.toml", () => {
  it.scoped("native_compaction takes auto, emulate or pass, is absent when not set, and any other value is refused naming the key", () =>
    Effect.gen(function*() {
      for (const mode of ["auto", "emulate", "pass"] as const) {
        const read = yield* ProxyCli.readProxyConfig(yield* withConfig(`[proxy]\nnative_compaction = "${mode}"\n`))
        assert.strictEqual(read.nativeCompaction, mode)
      }
      const unset = yield* ProxyCli.readProxyConfig(yield* withConfig("[proxy]\nrecall = true\n"))
      assert.isUndefined(unset.nativeCompaction)
      const refused = yield* Effect.flip(
        ProxyCli.readProxyConfig(yield* withConfig("[proxy]\nnative_compaction = \"always\"\n"))
      )
      assert.match(refused.message, /proxy\.native_compaction must be "auto", "emulate" or "pass" \(got always\)$/)
    }))
})
