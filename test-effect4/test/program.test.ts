/**
 * The program on both Effects (docs/effect4.md, "One source"): `src/apps/cli/` bundled once on the
 * package's Effect 3 and once on test-effect4's Effect 4 (`programSetup.ts`), each run as a user
 * runs it, a process of its own in a fresh working directory. They print the same bytes on stdout
 * and stderr, and end with the same code: `compact` of the example session and of every shared
 * transcript (when ../shared is beside the checkout) at 8k, 32k and 128k (the example session twice
 * at each, the second run reading the first one's summary cache), `reduce` of the example
 * envelopes, reading standard input, and the refusals of a bad value and of a missing file. The
 * Effect 3 program runs on the Node that ran npm (the machines' Node 20, whose build of
 * better-sqlite3 it loads), the Effect 4 one on this suite's Node 22.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { fileURLToPath } from "node:url"
import { inject } from "vitest"

const repository = fileURLToPath(new URL("../..", import.meta.url))
const programs = inject("programs")
const shared = join(repository, "../shared/transcripts")

/** The Node each program runs on: npm's own for Effect 3 (`npm run test:effect4` sets it), this one for Effect 4. */
const nodes = {
  effect3: process.env["npm_node_execpath"] ?? process.execPath,
  effect4: process.execPath
}

interface Ran {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs one program in `cwd` (its folder's name taken out of what it prints). */
const run = (major: "effect3" | "effect4", args: ReadonlyArray<string>, cwd: string, stdin?: string): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const child = spawn(nodes[major], [programs[major], ...args], { cwd, env: { ...process.env, NO_COLOR: "1" } })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("error", reject)
    const plain = (text: string) => text.split(cwd).join("<cwd>")
    child.on("close", (status) => resolve({ status, stdout: plain(stdout), stderr: plain(stderr) }))
    child.stdin.end(stdin ?? "")
  })

/** The same runs with each program (the two at once), each sequence in a fresh folder holding `files`. */
const both = async (
  files: ReadonlyArray<string>,
  runs: ReadonlyArray<{ readonly args: ReadonlyArray<string>; readonly stdin?: string }>
): Promise<{ readonly effect3: ReadonlyArray<Ran>; readonly effect4: ReadonlyArray<Ran> }> => {
  const sequence = async (major: "effect3" | "effect4") => {
    const cwd = mkdtempSync(join(tmpdir(), "program-"))
    try {
      for (const file of files) copyFileSync(file, join(cwd, basename(file)))
      const ran: Array<Ran> = []
      for (const { args, stdin } of runs) ran.push(await run(major, args, cwd, stdin))
      return ran
    } finally {
      rmSync(cwd, { recursive: true, force: true })
    }
  }
  const [effect3, effect4] = await Promise.all([sequence("effect3"), sequence("effect4")])
  return { effect3, effect4 }
}

const transcripts = [
  join(repository, "examples/session/agent-session.json"),
  ...(existsSync(shared)
    ? readdirSync(shared).filter((name) => name.endsWith(".json")).sort().map((name) => join(shared, name))
    : [])
]

describe("the program on Effect 4 prints what it prints on Effect 3", () => {
  for (const transcript of transcripts) {
    const twice = transcript === transcripts[0]
    it(`compact ${basename(transcript)} at 8k, 32k and 128k${twice ? ", twice each" : ""}`, async () => {
      const name = basename(transcript)
      const runs = [8_000, 32_000, 128_000].flatMap((window) => {
        const args = ["compact", name, "--window", String(window)]
        return twice ? [{ args }, { args }] : [{ args }]
      })
      const { effect3, effect4 } = await both([transcript], runs)
      assert.deepStrictEqual(effect4, effect3)
      for (const ran of effect3) assert.strictEqual(ran.status, 0, ran.stderr)
      assert.match(effect3[0]!.stderr, /compacted/)
      // The second run read the summary the first one made and kept.
      if (twice) assert.match(effect3[1]!.stderr, /summary from the cache/)
    }, 120_000)
  }

  it("reduce of every example envelope, from a file and from standard input", async () => {
    const folder = join(repository, "examples/envelopes")
    const envelopes = readdirSync(folder).filter((name) => name.endsWith(".json")).sort()
    assert.ok(envelopes.length > 0)
    const runs = envelopes.flatMap((name) => [
      { args: ["reduce", name] },
      { args: ["reduce", "-", "--cap", "2000"], stdin: readFileSync(join(folder, name), "utf8") }
    ])
    const { effect3, effect4 } = await both(envelopes.map((name) => join(folder, name)), runs)
    assert.deepStrictEqual(effect4, effect3)
    for (const ran of effect3) assert.strictEqual(ran.status, 0, ran.stderr)
  }, 120_000)

  it("--version prints the package's version alone, on both", async () => {
    const { effect3, effect4 } = await both([], [{ args: ["--version"] }])
    const version: string = JSON.parse(readFileSync(join(repository, "package.json"), "utf8")).version
    assert.deepStrictEqual(effect3, [{ status: 0, stdout: `${version}\n`, stderr: "" }])
    assert.deepStrictEqual(effect4, effect3)
  })

  it("a missing file and a value a check refuses end with 2 and one line, on both", async () => {
    const { effect3, effect4 } = await both([], [
      { args: ["compact", "missing.json"] },
      { args: ["reduce", "missing.json"] }
    ])
    assert.deepStrictEqual(effect4, effect3)
    for (const ran of effect4) {
      assert.strictEqual(ran.status, 2)
      assert.strictEqual(ran.stdout, "")
      assert.match(ran.stderr, /^context-compressor: cannot read missing\.json: /)
    }
    // The usage text differs between the two command-line libraries; the refusal and the code do not.
    const refused = await both([], [{ args: ["reduce", "x.json", "--cap", "12"] }])
    for (const ran of [...refused.effect3, ...refused.effect4]) {
      assert.strictEqual(ran.status, 2)
      assert.include(ran.stdout + ran.stderr, "--cap must be an integer of at least")
    }
  })
})
