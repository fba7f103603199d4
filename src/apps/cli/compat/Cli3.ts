/**
 * The Effect 3 side of the program's compat: @effect/cli 0.77's options, arguments and commands,
 * and @effect/platform-node 0.108's runtime, file system and streams, under the names of
 * `Cli4.ts` (Effect 4's `effect/cli` and @effect/platform-node 4). The modules of `src/apps/cli/`
 * import it as `#compat-cli`; the program's Effect 3 bundle resolves that here, its Effect 4 build
 * to `Cli4.ts` (docs/effect4.md, "One source"). Where the two differ in design, the names follow
 * Effect 4: a flag is a `Flag`, a positional argument an `Argument`.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import type * as CliApp from "@effect/cli/CliApp"
import * as CliCommand from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStream from "@effect/platform-node/NodeStream"
import type * as Runtime from "@effect/platform/Runtime"
import type * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type { Readable } from "node:stream"

/** The major of Effect this build of the program is compiled against. */
export const major = 3 as const

/** A flag of a command (@effect/cli's `Options`). */
export type Flag<A> = Options.Options<A>

/** A check's refusal as @effect/cli shows it: one paragraph. */
const refusal = (message: string): ValidationError.ValidationError => ValidationError.invalidValue(HelpDoc.p(message))

/** The flags' constructors and combinators the program uses, by Effect 4's names. */
export const Flag = {
  String: Options.text,
  Boolean: Options.boolean,
  Int: Options.integer,
  Redacted: Options.redacted,
  Literals: <const L extends ReadonlyArray<string>>(name: string, literals: L): Flag<L[number]> =>
    Options.choice(name, literals),
  withDescription: Options.withDescription,
  withMetavar: Options.withPseudoName,
  optional: Options.optional,
  withDefault: Options.withDefault,
  withFallbackConfig: Options.withFallbackConfig,
  map: Options.map,
  /** Every occurrence of the flag, none or more. */
  repeated: <A>(self: Flag<A>): Flag<ReadonlyArray<A>> => Options.repeated(self),
  /** The value `check` answers, or the usage error of the message it fails with. */
  check: <A, B>(check: (value: A) => Effect.Effect<B, string>) => (self: Flag<A>): Flag<B> =>
    Options.mapEffect(self, (value) => Effect.mapError(check(value), refusal))
}

/** A positional argument of a command (@effect/cli's `Args`). */
export type Argument<A> = Args.Args<A>

/** The arguments' constructors and combinators the program uses, by Effect 4's names. */
export const Argument = {
  String: (name: string): Argument<string> => Args.text({ name }),
  /** A directory that must exist. */
  Directory: (name: string): Argument<string> => Args.directory({ name, exists: "yes" }),
  withDescription: Args.withDescription,
  optional: Args.optional,
  /** One or more. */
  atLeastOne: <A>(self: Argument<A>): Argument<ReadonlyArray<A>> => Args.atLeast(self, 1),
  /** The value `check` answers, or the usage error of the message it fails with. */
  check: <A, B>(check: (value: A) => Effect.Effect<B, string>) => (self: Argument<A>): Argument<B> =>
    Args.mapEffect(self, (value) => Effect.mapError(check(value), HelpDoc.p))
}

/** The commands' constructors the program uses. */
export const Command = {
  make: CliCommand.make,
  withDescription: CliCommand.withDescription,
  withSubcommands: CliCommand.withSubcommands
}

/** What running a command needs from the platform. */
export type Environment = CliApp.CliApp.Environment

/**
 * Runs a command on the arguments that follow the program's name. Usage errors (an unknown flag, a
 * value a check refused) are printed by @effect/cli and fail as a {@link isUsageError}; the
 * command's own failures fail as they are.
 */
export const runner = <Name extends string, R, E, A>(
  command: CliCommand.Command<Name, R, E, A>,
  options: { readonly name: string; readonly version: string }
): (args: ReadonlyArray<string>) => Effect.Effect<void, E | ValidationError.ValidationError, R | Environment> => {
  const run = CliCommand.run(command, options)
  return (args) => run(["node", options.name, ...args])
}

/** Whether a failure of {@link runner} is a usage error, already printed with the help that goes with it. */
export const isUsageError = (error: unknown): error is ValidationError.ValidationError =>
  ValidationError.isValidationError(error)

/**
 * The platform's services for the program: file system, path, terminal (@effect/platform-node's
 * `NodeContext.layer`).
 */
export const platformLayer: Layer.Layer<Environment> = NodeContext.layer

/**
 * Runs the program's main effect: its teardown ends the process, and no logger is added (the
 * program writes its own lines).
 */
export const runMain = (teardown: Runtime.Teardown) => <E>(effect: Effect.Effect<void, E>): void =>
  NodeRuntime.runMain(effect, { disablePrettyLogger: true, teardown })

/** The bytes of a readable stream to its end. */
export const readAll = <E>(readable: () => Readable, onFailure: (error: unknown) => E): Effect.Effect<Uint8Array, E> =>
  NodeStream.toUint8Array(readable, { onFailure })

/** Runs an effect with another console and a logger that writes to stderr, in colour or not. */
export const withConsoleAndLogger = (
  mannered: (console: Console.Console) => Console.Console,
  colors: boolean
) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.consoleWith((console) =>
    self.pipe(
      Effect.withConsole(mannered(console)),
      Effect.provide(Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true, colors })))
    )
  )
