/**
 * Opening a SQLite file for a reader, over either Effect's SQLite (`SqliteFile` on Effect 3,
 * `SqliteNode` on Effect 4): a file that may not be written is read from a private copy, and a
 * missing file that cannot be made is an empty database in memory.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

/** Failures of opening that mean the file or its folder may not be written. */
const cannotWrite = /SQLITE_READONLY|SQLITE_CANTOPEN|EACCES|EROFS|EPERM|readonly|unable to open/

/**
 * A reader's open made of a writer's: `open` first, and where it fails because the file or its
 * folder may not be written, a private copy in the temporary folder (removed when the scope
 * closes), or, when there is no file to copy, an empty database in memory. `refuse` makes the
 * open's error of a path and a reason.
 *
 * @since 0.1.0
 * @category constructors
 */
export const reading = <E extends { readonly path: string; readonly reason: string }>(
  open: (options: Compat.SqliteOptions) => Effect.Effect<Compat.SqlClient, E, Scope.Scope>,
  refuse: (path: string, reason: string) => E
) =>
(options: Compat.SqliteOptions): Effect.Effect<Compat.SqlClient, E, Scope.Scope> =>
  open(options).pipe(
    Compat.catchFailure((error: E) =>
      !cannotWrite.test(error.reason)
        ? Effect.fail(error)
        : !Fs.existsSync(options.filename)
        // Nothing to read, and nowhere to make the file: an empty database in memory.
        ? open({ ...options, filename: ":memory:" }).pipe(Effect.mapError(() => error))
        : Effect.acquireRelease(
          Effect.try({
            try: () => Fs.mkdtempSync(Path.join(Os.tmpdir(), "context-compressor-")),
            catch: () => error
          }),
          (folder) => Effect.sync(() => Fs.rmSync(folder, { recursive: true, force: true }))
        ).pipe(
          Effect.flatMap((folder) =>
            Effect.try({
              try: () => {
                const copy = Path.join(folder, Path.basename(options.filename))
                Fs.copyFileSync(options.filename, copy)
                // Commits still in the log are part of what the file holds.
                if (Fs.existsSync(`${options.filename}-wal`)) Fs.copyFileSync(`${options.filename}-wal`, `${copy}-wal`)
                return copy
              },
              catch: (copyError) =>
                refuse(options.filename, `${error.reason}; and it cannot be copied to be read: ${String(copyError)}`)
            })
          ),
          Effect.flatMap((copy) => open({ ...options, filename: copy })),
          Effect.mapError((copyError) =>
            copyError.path === options.filename ? copyError : refuse(options.filename, copyError.reason)
          )
        )
    )
  )
