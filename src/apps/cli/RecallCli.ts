/**
 * `recall`: compacted messages read back by the handles (`ctx_…`) a block
 * lists, from the archive in the state folder that `compact`, `serve` and
 * `proxy` write (`<folder>/transcripts/`), within one session only. Each is
 * printed whole (or the page `--offset`/`--length` ask for) as JSON on
 * stdout; a handle that gives nothing back fails the command with one line.
 *
 * @since 0.1.0
 */
import { Argument, Command, Flag } from "#compat-cli"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Recall from "../../face/engine/Recall.js"
import * as Production from "../../face/layers/Production.js"
import * as CliIo from "./CliIo.js"
import { archiveLayer } from "./CompactCli.js"
import * as Manners from "./Manners.js"

const handles = Argument.String("HANDLE").pipe(
  Argument.atLeastOne,
  Argument.withDescription(
    "A recall handle the compacted block lists (ctx_ and 10 or more letters or digits); several may be given."
  )
)

const session = Flag.String("session").pipe(
  Flag.withMetavar("ID"),
  Flag.withDescription(
    "The session the handles are of: for compact, the transcript as it was named (the path given to compact, as its stderr line begins; " +
      "'standard input' for -); for serve and proxy, the session id of the request. A handle of another session is refused."
  )
)

const dir = Flag.String("dir").pipe(
  Flag.withMetavar("DIR"),
  Flag.withDescription(
    `The state folder whose transcripts/ archive to read (default ${Production.defaultDirectory}; for compact, the folder of its --state).`
  ),
  Flag.withDefault(Production.defaultDirectory)
)

const offset = Manners.integer("offset").pipe(
  Flag.withMetavar("N"),
  Flag.withDescription("Give each message from character N (default 0)."),
  Flag.optional
)

const length = Manners.integer("length").pipe(
  Flag.withMetavar("N"),
  Flag.withDescription("Give at most N characters of each message (default: all of it)."),
  Flag.optional
)

const encodePages = Schema.encodeSync(Schema.Array(Recall.Page))

/**
 * The `recall` command: the pages of `HANDLE…` as a JSON array on stdout, in
 * the order given.
 *
 * @since 0.1.0
 * @category commands
 */
export const recallCommand = Command.make(
  "recall",
  { handles, session, dir, offset, length },
  (flags) =>
    Effect.gen(function*() {
      const pages = yield* Effect.forEach(flags.handles, (handle) =>
        Recall.recall(
          {
            sessionId: flags.session,
            handle,
            ...(flags.offset._tag === "Some" ? { offset: flags.offset.value } : {}),
            ...(flags.length._tag === "Some" ? { length: flags.length.value } : {})
          },
          // Whole messages unless a length is asked for.
          { pageChars: Number.MAX_SAFE_INTEGER }
        ).pipe(
          Effect.mapError((error) =>
            new CliIo.CliFailure({
              message: `recall ${Manners.echo(handle, 80)} in ${flags.dir}: ${error.message}${
                error.reason === "not-found"
                  ? ` (the session is ${JSON.stringify(Manners.echo(flags.session, 80))})`
                  : ""
              }`
            })
          )
        ))
      yield* CliIo.printOut(JSON.stringify(encodePages(pages), null, 2))
    }).pipe(Effect.provide(archiveLayer(flags.dir)))
).pipe(
  Command.withDescription(
    "Print the compacted messages the handles stand for, read back from the state folder's archive, as a JSON array " +
      "(handle, messageId, offset, total, text, and nextOffset when more is left)."
  )
)
