/**
 * The `context-compressor` program, as the tests run it: in this process
 * (`inProcess`, `Cli.run` with what it prints recorded) or as the real
 * executable (`executable` to its end, `spawnExecutable` for a long-running
 * verb). The executable is the program bundled from the sources for this
 * run (`programSetup.ts`), or `node --import tsx src/apps/cli/bin.ts` with
 * `CONTEXT_COMPRESSOR_TEST_TSX=1`: one Node process either way (the `tsx`
 * binary would start two).
 */
import * as Compat from "#compat"
import * as CliCompat from "#compat-cli"
import * as TestCompat from "#test-compat"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import * as NodeUrl from "node:url"
import { inject } from "vitest"
import * as Cli from "../../src/apps/cli/Cli.js"

/** The repository's root, where the executable runs. */
export const root = NodeUrl.fileURLToPath(new URL("../..", import.meta.url))

/** What a run of the program printed, and how it ended. */
export interface Ran {
  readonly exitCode: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the program in this process, recording what it prints (`log` is stdout, `error` stderr). */
export const inProcess = (args: ReadonlyArray<string>): Effect.Effect<Ran> =>
  Console.consoleWith((console) => {
    const out: Array<string> = []
    const err: Array<string> = []
    return Cli.run(args).pipe(
      TestCompat.withConsole(TestCompat.recordingConsole(console, out, err)),
      Effect.provide(CliCompat.platformLayer),
      Effect.map((exitCode) => ({ exitCode, stdout: out.join("\n"), stderr: err.join("\n") }))
    )
  })

/** Where and with what the executable runs. */
export interface Options {
  /** Written to its standard input, which is then closed (closed at once when absent). */
  readonly stdin?: string | Uint8Array | undefined
  /** Added to this process's environment. */
  readonly env?: Record<string, string> | undefined
  /** The working directory (the repository's root by default). */
  readonly cwd?: string | undefined
}

/** tsx's loader, named by its file so that the executable may run in any directory. */
const tsxLoader = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href

/** The command line of the real executable with `args`: the program and its arguments. */
export const executableCommand = (args: ReadonlyArray<string>): ReadonlyArray<string> => {
  const bundled = inject("program")
  return bundled === ""
    ? [process.execPath, "--import", tsxLoader, `${root}src/apps/cli/bin.ts`, ...args]
    : [process.execPath, bundled, ...args]
}

/** Starts the real executable with `args`; the caller reads its streams and ends it. */
export const spawnExecutable = (args: ReadonlyArray<string>, options: Options = {}): ChildProcessWithoutNullStreams => {
  const [program, ...rest] = executableCommand(args)
  return spawn(program!, rest, {
    cwd: options.cwd ?? root,
    stdio: "pipe",
    env: { ...process.env, ...options.env }
  })
}

/** Runs the real executable with `args` to its end; interrupting the effect kills it. */
export const executable = (args: ReadonlyArray<string>, options: Options = {}): Effect.Effect<Ran> =>
  Compat.callback<Ran>((resume) => {
    const child = spawnExecutable(args, options)
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("close", (exitCode) => resume(Effect.succeed({ exitCode, stdout, stderr })))
    child.stdin.end(options.stdin ?? "")
    return Effect.sync(() => child.kill())
  })
