/**
 * The packages only some uses need (`@effect/sql-pg` for PostgreSQL,
 * `@effect/ai` for the `LanguageModel` summariser and provider) are optional
 * peer dependencies, loaded with `import()` by the code that uses them, the
 * first time it runs. When one is not installed, that code fails with
 * `MissingPackageError`, whose one-line message names the package to install.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * An optional package that is not installed: `packageName` is the one to
 * install, `feature` what needed it.
 *
 * @since 0.1.0
 * @category errors
 */
export class MissingPackageError extends Schema.TaggedError<MissingPackageError>()("MissingPackageError", {
  packageName: Schema.String,
  feature: Schema.String
}) {
  /**
   * One line: what needed the package and how to install it.
   *
   * @since 0.1.0
   */
  override get message(): string {
    return `${this.feature} needs the package ${this.packageName}, which is not installed: npm install ${this.packageName}`
  }
}

/**
 * The package an `import()` failure says is missing, or `undefined` when the
 * failure is something else (a module that is there but does not load).
 *
 * @example
 * ```ts
 * import { OptionalPackage } from "context-compressor"
 *
 * const error = Object.assign(new Error("Cannot find package '@effect/sql-pg' imported from /app/main.js"), {
 *   code: "ERR_MODULE_NOT_FOUND"
 * })
 * assert.strictEqual(OptionalPackage.missingPackageOf(error), "@effect/sql-pg")
 * assert.strictEqual(OptionalPackage.missingPackageOf(new Error("boom")), undefined)
 * ```
 *
 * @since 0.1.0
 * @category utils
 */
export const missingPackageOf = (error: unknown): string | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const { code, message } = error as { readonly code?: unknown; readonly message?: unknown }
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return undefined
  const named = typeof message === "string" ? /Cannot find (?:package|module) '([^']+)'/.exec(message)?.[1] : undefined
  if (named === undefined) return undefined
  // A bare specifier names the package (`pg`, `@effect/ai/Prompt` → `@effect/ai`); a path is a file of one that is there.
  if (named.startsWith(".") || named.startsWith("/") || named.startsWith("file:")) return undefined
  const parts = named.split("/")
  return named.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]
}

/**
 * Loads an optional package's module with `importModule` (an `import()` of it). A
 * missing package, or a missing package it depends on, fails with
 * `MissingPackageError` naming that package; any other failure to load is a
 * defect.
 *
 * @since 0.1.0
 * @category constructors
 */
export const load = <A>(
  packageName: string,
  feature: string,
  importModule: () => Promise<A>
): Effect.Effect<A, MissingPackageError> =>
  Effect.tryPromise({ try: importModule, catch: (error) => error }).pipe(
    Compat.catch((error) => {
      const missing = missingPackageOf(error)
      return missing === undefined
        ? Effect.die(error)
        : Effect.fail(new MissingPackageError({ packageName: missing, feature }))
    }),
    Effect.withSpan("OptionalPackage.load", { attributes: { packageName } })
  )
