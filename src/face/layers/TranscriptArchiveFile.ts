/**
 * The transcript archive as files, through the platform's FileSystem (`@effect/platform`'s on
 * Effect 3, `effect/FileSystem` on Effect 4):
 * one JSON Lines file per compaction, `<directory>/<session>/compaction-<n>-<digest>.jsonl`
 * (the digest of the ids it holds, so that two workers racing on a compaction never write each other's file),
 * each line one message in the neutral transcript's encoding; the messages the ladder cut in a view, archived
 * whole for recall, in `<directory>/<session>/cut-<digest>.jsonl` apart from them. A file is
 * written under a temporary name and renamed into place, so it is whole or absent.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Hash from "node:crypto"
import * as Handles from "../../core/block/Handles.js"
import * as ArchiveDigest from "../../core/services/ArchiveDigest.js"
import * as Cooperative from "../engine/internal/Cooperative.js"
import * as Transcript from "../models/Transcript.js"
import * as TranscriptArchive from "../services/TranscriptArchive.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The directory the session folders are made in. */
  readonly directory: string
  /**
   * The folder the archive names its files from (the state folder): a file
   * is then named by its path relative to it, `transcripts/<session>/compaction-….jsonl`,
   * in the compacted block sent to the model and in the reports, so that
   * nothing of the machine's folders reaches a prompt. Without it, files are
   * named by their absolute path.
   */
  readonly relativeTo?: string | undefined
}

const plainName = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/

/** How many archive files' handle indexes recall keeps in memory (the oldest read is forgotten first). */
const indexedFiles = 32

/**
 * The folder name of a session: the id itself when it is a plain file name,
 * else `session-` and a digest of it, so no id can reach outside the
 * directory or collide with another.
 *
 * @since 0.1.0
 * @category paths
 */
export const folderOf = (sessionId: string): string =>
  plainName.test(sessionId)
    ? sessionId
    : `session-${Hash.createHash("sha256").update(sessionId).digest("hex").slice(0, 24)}`

/**
 * A short digest of the ids of an entry's messages, in its file name
 * (`src/core/services/ArchiveDigest.ts`, which the memory archive shares).
 *
 * @since 0.1.0
 * @category paths
 */
export const digestOf: (messages: Transcript.Transcript) => string = ArchiveDigest.digestOf

const encodeMessage = Schema.encodeSync(Transcript.Message)

/**
 * The text of an entry: one JSON message per line.
 *
 * @since 0.1.0
 * @category encoding
 */
export const linesOf = (messages: Transcript.Transcript): string =>
  messages.map((message) => JSON.stringify(encodeMessage(message)) + "\n").join("")

/**
 * Reads an archive file's text back into messages.
 *
 * @since 0.1.0
 * @category encoding
 */
export const parseLines = (text: string): Effect.Effect<Transcript.Transcript, Error> =>
  Effect.forEach(
    text.split("\n").filter((line) => line !== ""),
    (line, index) =>
      Effect.try({
        try: () => JSON.parse(line) as unknown,
        catch: (error) => new Error(`line ${index + 1}: ${String(error)}`)
      }).pipe(
        Effect.flatMap(Compat.decodeUnknownEffect(Transcript.Message)),
        Effect.mapError((error) => new Error(`line ${index + 1}: ${error.message}`))
      )
  )

/**
 * Makes the archive over the current FileSystem and Path.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: Options) {
  const fs = yield* Compat.FileSystem
  const path = yield* Compat.Path
  const directory = path.resolve(options.directory)
  const base = options.relativeTo === undefined ? undefined : path.resolve(options.relativeTo)
  const fileOf = ({ compaction, cut, messages, sessionId }: TranscriptArchive.Entry): string =>
    path.join(
      directory,
      folderOf(sessionId),
      cut === true ? `cut-${digestOf(messages)}.jsonl` : `compaction-${compaction}-${digestOf(messages)}.jsonl`
    )
  // The name given out: relative to the state folder, with forward slashes whatever the platform.
  const locate = (entry: TranscriptArchive.Entry): string =>
    base === undefined ? fileOf(entry) : path.relative(base, fileOf(entry)).split(path.sep).join("/")
  // A file is whole once renamed into place and never rewritten: its handles are indexed once, the newest files kept.
  const indexes = new Map<string, ReadonlyMap<string, Transcript.Message>>()
  const indexOf = (sessionId: string, file: string) => {
    const known = indexes.get(file)
    if (known !== undefined) return Effect.succeed(known)
    return Effect.map(Effect.flatMap(fs.readFileString(file), parseLines), (messages) => {
      const index = new Map<string, Transcript.Message>()
      for (const message of messages) {
        const handle = Handles.handleOfMessage(sessionId, message)
        if (handle !== undefined && !index.has(handle)) index.set(handle, message)
      }
      indexes.set(file, index)
      if (indexes.size > indexedFiles) indexes.delete(indexes.keys().next().value!)
      return index as ReadonlyMap<string, Transcript.Message>
    })
  }
  const service = TranscriptArchive.TranscriptArchive.of({
    locate,
    write: (entry) => {
      const { messages, sessionId } = entry
      const target = fileOf(entry)
      const name = locate(entry)
      const temporary = `${target}.${process.pid}-${Date.now().toString(36)}.tmp`
      return Effect.gen(function*() {
        yield* fs.makeDirectory(path.dirname(target), { recursive: true })
        // Encoded pausing every 10 ms: the archive of a long span does not hold up the rest of the process.
        const lines = yield* Cooperative.map(
          messages,
          (message) => JSON.stringify(encodeMessage(message)) + "\n",
          Cooperative.slice(10)
        )
        yield* fs.writeFileString(temporary, lines.join(""))
        yield* fs.rename(temporary, target)
        return name
      }).pipe(
        Effect.tapError(() => Effect.ignore(fs.remove(temporary))),
        Effect.mapError((error) => new TranscriptArchive.ArchiveError({ sessionId, path: name, reason: error.message }))
      )
    },
    // The session's own folder only, its newest compaction first: a handle never reads another session's files.
    lookup: (sessionId, handle) => {
      const folder = path.join(directory, folderOf(sessionId))
      const named = base === undefined ? folder : path.relative(base, folder).split(path.sep).join("/")
      return Effect.gen(function*() {
        if (!(yield* fs.exists(folder))) return Option.none<Transcript.Message>()
        const files = (yield* fs.readDirectory(folder))
          // The messages cut in a view (`cut-….jsonl`) after the compactions' files.
          .map((name) => ({
            name,
            compaction: /^compaction-(\d+)-[0-9a-f]+\.jsonl$/.exec(name)?.[1] ??
              (/^cut-[0-9a-f]+\.jsonl$/.test(name) ? "-1" : undefined)
          }))
          .filter((file): file is { name: string; compaction: string } => file.compaction !== undefined)
          .sort((a, b) => Number(b.compaction) - Number(a.compaction))
        for (const file of files) {
          const found = (yield* indexOf(sessionId, path.join(folder, file.name))).get(handle)
          if (found !== undefined) return Option.some(found)
        }
        return Option.none<Transcript.Message>()
      }).pipe(
        Effect.mapError((error) =>
          new TranscriptArchive.ArchiveError({ sessionId, path: named, reason: error.message })
        )
      )
    }
  })
  return service
})

/**
 * Provides the archive as files under `directory`.
 *
 * @example
 * ```ts
 * import { Transcript } from "context-compressor"
 * import { Production, TranscriptArchiveFile } from "context-compressor/layers"
 * import { TranscriptArchive } from "context-compressor/services"
 * import { Effect, Layer } from "effect"
 * import { mkdtempSync } from "node:fs"
 * import { tmpdir } from "node:os"
 * import { join } from "node:path"
 *
 * // The messages compactions move out, one JSON file per compaction in a folder.
 * const directory = join(mkdtempSync(join(tmpdir(), "agent-")), "transcripts")
 * const archive = TranscriptArchiveFile.layer({ directory }).pipe(Layer.provide(Production.nodeFileSystem))
 * const messages = [new Transcript.UserMessage({ id: "u1", content: "Fix the parser." })]
 * const entry = { sessionId: "s1", compaction: 1, messages }
 * const write = Effect.flatMap(TranscriptArchive.TranscriptArchive, (archive) => archive.write(entry))
 * console.log(await Effect.runPromise(Effect.provide(write, archive)))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<TranscriptArchive.TranscriptArchive, never, Compat.FileSystem | Compat.Path> =>
  Layer.effect(TranscriptArchive.TranscriptArchive, make(options))
