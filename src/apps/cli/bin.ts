#!/usr/bin/env node
/**
 * The `context-compressor` executable: runs {@link Cli.run} on the process
 * arguments and ends the process with the exit code it returns.
 *
 * @since 0.1.0
 */
import * as CliCompat from "#compat-cli"
import * as Effect from "effect/Effect"
import * as Cli from "./Cli.js"
import * as CliIo from "./CliIo.js"
import * as Signals from "./Signals.js"

// A reader that stops early (`| head`) ends the output, not the program with a stack trace;
// another write error (a full disk) is the verb's failure, said by CliIo.printOut.
CliIo.watchStdout()
// SIGINT and SIGTERM interrupt the verb; the teardown ends the process with 130 or 143 and one line.
Signals.watch()

Cli.run(process.argv.slice(2)).pipe(
  Effect.flatMap((exitCode) =>
    Effect.sync(() => {
      process.exitCode = exitCode
    })
  ),
  Effect.provide(CliCompat.platformLayer),
  // Cli.run writes its own logs to stderr and never fails: no logger of the runtime's own.
  CliCompat.runMain(Signals.teardown(CliIo.programName))
)
