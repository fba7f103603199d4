/**
 * The Effect 4 side of the program's compat: Effect 4's `effect/cli` flags, arguments and
 * commands, and @effect/platform-node 4's runtime, file system and streams, under the names
 * `Cli3.ts` gives @effect/cli 0.77 and @effect/platform-node 0.108. The modules of `src/apps/cli/`
 * import it as `#compat-cli`; the program's Effect 4 build resolves that here (docs/effect4.md,
 * "One source").
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as CliArgument from "effect/cli/Argument"
import * as CliError from "effect/cli/CliError"
import * as CliOutput from "effect/cli/CliOutput"
import * as CliCommand from "effect/cli/Command"
import * as CliFlag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as Runtime from "effect/Runtime"
import type { Readable } from "node:stream"

/** The major of Effect this build of the program is compiled against. */
export const major = 4 as const

/** A flag of a command. */
export type Flag<A> = CliFlag.Flag<A>

/** A check's refusal as `effect/cli` shows it: its message under ERROR. */
const refusal = (message: string): CliError.CliError => new CliError.ValidationError({ message })

/** The flags' constructors and combinators the program uses. */
export const Flag = {
  String: CliFlag.String,
  /** False unless given (Effect 4's own fails when it is left out). */
  Boolean: (name: string): Flag<boolean> => CliFlag.withDefault(CliFlag.Boolean(name), false),
  Int: CliFlag.Int,
  Redacted: CliFlag.Redacted,
  Literals: <const L extends ReadonlyArray<string>>(name: string, literals: L): Flag<L[number]> =>
    CliFlag.Literals(name, literals),
  withDescription: CliFlag.withDescription,
  withMetavar: CliFlag.withMetavar,
  optional: CliFlag.optional,
  withDefault: CliFlag.withDefault,
  withFallbackConfig: CliFlag.withFallbackConfig,
  map: CliFlag.map,
  /** Every occurrence of the flag, none or more. */
  repeated: <A>(self: Flag<A>): Flag<ReadonlyArray<A>> => CliFlag.atLeast(self, 0),
  /** The value `check` answers, or the usage error of the message it fails with. */
  check: <A, B>(check: (value: A) => Effect.Effect<B, string>) => (self: Flag<A>): Flag<B> =>
    CliFlag.mapEffect(self, (value) => Effect.mapError(check(value), refusal))
}

/** A positional argument of a command. */
export type Argument<A> = CliArgument.Argument<A>

/** The arguments' constructors and combinators the program uses. */
export const Argument = {
  String: CliArgument.String,
  /** A directory that must exist. */
  Directory: (name: string): Argument<string> => CliArgument.Directory(name, { mustExist: true }),
  withDescription: CliArgument.withDescription,
  optional: CliArgument.optional,
  /** One or more. */
  atLeastOne: <A>(self: Argument<A>): Argument<ReadonlyArray<A>> => CliArgument.atLeast(self, 1),
  /** The value `check` answers, or the usage error of the message it fails with. */
  check: <A, B>(check: (value: A) => Effect.Effect<B, string>) => (self: Argument<A>): Argument<B> =>
    CliArgument.mapEffect(self, (value) => Effect.mapError(check(value), refusal))
}

/** The commands' constructors the program uses. */
export const Command = {
  make: CliCommand.make,
  withDescription: CliCommand.withDescription,
  withSubcommands: CliCommand.withSubcommands
}

/** What running a command needs from the platform. */
export type Environment = CliCommand.Environment

/**
 * Runs a command on the arguments that follow the program's name. Usage errors (an unknown flag, a
 * value a check refused) are printed with the help and fail as a {@link isUsageError}; the
 * command's own failures fail as they are.
 */
export const runner = <Name extends string, Input, ContextInput, E, R>(
  command: CliCommand.Command<Name, Input, ContextInput, E, R>,
  options: { readonly name: string; readonly version: string }
): (args: ReadonlyArray<string>) => Effect.Effect<void, E | CliError.CliError, R | Environment> => {
  const run = CliCommand.runWith(command, { version: options.version, renderErrors: true })
  return (args) => Effect.provideService(run(args), CliOutput.Presenter, usageOnStderr)
}

/**
 * Help and the version on stdout as `effect/cli` presents them; a usage error as its sentences on
 * stderr, without the help (stdout carries only what was asked for, as on Effect 3).
 */
const usageOnStderr: CliOutput.Presenter = {
  present: (event) =>
    event._tag === "InvalidInvocation"
      ? Console.error(event.errors.map((error) => error.message).join("\n"))
      : CliOutput.defaultPresenter.present(event)
}

/** Whether a failure of {@link runner} is a usage error, already printed with the help that goes with it. */
export const isUsageError = (error: unknown): error is CliError.CliError => CliError.isCliError(error)

/**
 * The platform's services for the program: file system, path, terminal, standard streams
 * (@effect/platform-node's `NodeServices.layer`).
 */
export const platformLayer: Layer.Layer<Environment> = NodeServices.layer

/**
 * Runs the program's main effect: its teardown ends the process, and no failure is logged (the
 * program writes its own lines).
 */
export const runMain = (teardown: Runtime.Teardown) => <E>(effect: Effect.Effect<void, E>): void =>
  NodeRuntime.runMain(effect, { disableErrorReporting: true, teardown })

/** The bytes of a readable stream to its end. */
export const readAll = <E>(readable: () => Readable, onFailure: (error: unknown) => E): Effect.Effect<Uint8Array, E> =>
  NodeStream.toUint8Array(readable, { onError: onFailure })

/** Runs an effect with another console and a logger that writes to stderr, in colour or not. */
export const withConsoleAndLogger = (
  mannered: (console: Console.Console) => Console.Console,
  colors: boolean
) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Console.consoleWith((console) =>
    self.pipe(
      Effect.provideService(Console.Console, mannered(console)),
      Effect.provideService(Logger.LogToStderr, true),
      Effect.provide(Logger.layer([Logger.consolePretty({ colors })]))
    )
  )
