/**
 * How the program ends when a signal stops it: SIGINT or SIGTERM interrupts
 * the running verb (its finalisers run, nothing more is written on stdout),
 * then the process says so in one line on stderr and exits with 128 plus the
 * signal's number (130, 143), never with the 0 of a verb that finished.
 *
 * @since 0.1.0
 */
import type * as Exit from "effect/Exit"
import * as Fs from "node:fs"

/**
 * The signals that stop the program, and the exit code each ends it with
 * (128 plus the signal's number, as a shell reports it).
 *
 * @since 0.1.0
 * @category constants
 */
export const exitCodes = { SIGINT: 130, SIGTERM: 143 } as const

/**
 * A signal that stops the program.
 *
 * @since 0.1.0
 * @category models
 */
export type Stopping = keyof typeof exitCodes

/** The first stopping signal this process received, once it received one. */
let received: Stopping | undefined

/**
 * The line said on stderr when `signal` stopped the program.
 *
 * @since 0.1.0
 * @category formatting
 */
export const stoppedLine = (programName: string, signal: Stopping): string =>
  `${programName}: stopped by ${signal} before the command finished (exit ${
    exitCodes[signal]
  }); nothing more was written`

/**
 * Records the first SIGINT or SIGTERM (the executable calls it once, before
 * the runtime installs its own listeners, which interrupt the verb). A second
 * signal finds no listener of ours left and ends the process at once, as the
 * system's default does.
 *
 * @since 0.1.0
 * @category running
 */
export const watch = (): void => {
  for (const signal of Object.keys(exitCodes) as ReadonlyArray<Stopping>) {
    process.once(signal, () => {
      received ??= signal
    })
  }
}

/**
 * The runtime's teardown for the executable: once a signal stopped the verb,
 * one line on stderr (written synchronously, so that it is out before the
 * process ends) and its exit code; otherwise the process ends by itself with
 * the code the verb gave, which `process.exitCode` holds.
 *
 * @since 0.1.0
 * @category running
 */
export const teardown =
  (programName: string) => <E, A>(exit: Exit.Exit<E, A>, onExit: (code: number) => void): void => {
    if (received !== undefined) {
      try {
        Fs.writeSync(2, `${stoppedLine(programName, received)}\n`)
      } catch {
        // stderr is gone: the exit code still says it.
      }
      return onExit(exitCodes[received])
    }
    // 0 lets the process end by itself, with the `process.exitCode` the verb set, once its output is out.
    onExit(exit._tag === "Success" ? 0 : 2)
  }
