/**
 * The one request path of every front end (the command line, the Promise API,
 * `POST /v1/compact`, the proxy, the compacting @effect/ai `LanguageModel`):
 * a document read in its format, its session's checkpoint run by the engine
 * for a cause (the trigger, the main model's overflow, a manual compaction),
 * and the view written back in the same format. A front end keeps what is
 * its own: how it reads its input, the shape of its answer, and how it words
 * the one error this path fails with. Not in the `context-compressor/adapters`
 * entry: it loads the engine.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as Checkpoint from "../engine/Checkpoint.js"
import * as Compactor from "../engine/Compactor.js"
import * as Cooperative from "../engine/internal/Cooperative.js"
import type * as Overflow from "../engine/Overflow.js"
import * as Session from "../engine/Session.js"
import type * as Adapter from "./Adapter.js"
import * as Formats from "./Formats.js"

/**
 * A document as a front end received it: text (JSON or JSON Lines) or a
 * parsed value, its format (or `auto` to detect it among `adapters`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Source {
  readonly _tag: "Source"
  readonly document: unknown
  readonly format: Adapter.Format | "auto"
  readonly adapters: ReadonlyArray<Adapter.Adapter>
  /** How long decoding works before it lets the event loop run, in ms (default `Compactor.defaultSliceMs`). */
  readonly sliceMs?: number | undefined
}

/**
 * A document read: its container, its neutral transcript and how to write a
 * view of it back, and the session it belongs to.
 *
 * @since 0.1.0
 * @category models
 */
export interface Read {
  readonly _tag: "Read"
  readonly sessionId: string
  /**
   * The session id was derived from the transcript (`Session.idOf`), none given: a history that opens like
   * another but differs later is kept under a branch of the id (`Checkpoint.CheckpointInput.sessionIdDerived`).
   */
  readonly sessionIdDerived?: boolean | undefined
  readonly container: Formats.Container
  readonly decoded: Adapter.Decoded
}

/**
 * What a front end knows of the session besides its messages: its id (without
 * one, the session the transcript stands for, `Session.idOf`), the model and
 * its window, and the context tokens the provider reported for its last call.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionPolicy {
  readonly sessionId?: string | undefined
  readonly model: string
  readonly contextWindow: number
  readonly reportedContextTokens?: number | undefined
  /** Which compaction was in force in the view the report is of (`Checkpoint.CheckpointInput`). */
  readonly reportedCompactions?: number | undefined
}

/**
 * Why the checkpoint runs: the trigger (a compaction when the view nears it),
 * the main model's context overflow (with what its error names, if it was
 * classified), or a manual compaction (with what the summary should focus on).
 *
 * @since 0.1.0
 * @category models
 */
export type Cause =
  | { readonly _tag: "Trigger" }
  | { readonly _tag: "Overflow"; readonly overflow?: Overflow.ContextOverflow | undefined }
  | {
    readonly _tag: "Manual"
    readonly instructions?: string | undefined
    /** The summariser's instruction in place of the built-in one (`Checkpoint.CompactNowInput.summaryPrompt`). */
    readonly summaryPrompt?: string | undefined
  }

/**
 * The cause of a checkpoint at the trigger.
 *
 * @since 0.1.0
 * @category constructors
 */
export const trigger: Cause = { _tag: "Trigger" }

/**
 * A compacted document: the document read, the checkpoint (the view, its
 * tokens and trigger, the compaction, the ladder and the repairs: the report)
 * and the view written back in the document's format.
 *
 * @since 0.1.0
 * @category models
 */
export interface Compaction {
  readonly read: Read
  readonly checkpoint: Checkpoint.Checkpoint
  /** The view as a document of the read one's format (its container aside: see {@link text}). */
  readonly output: unknown
}

/**
 * Why a document was not compacted: it is not a transcript of its format
 * (`AdapterError`), or the engine gave no view (`CompactionError`).
 *
 * @since 0.1.0
 * @category errors
 */
export class CompactDocumentError extends Data.TaggedError("CompactDocumentError")<{
  readonly problem: Adapter.AdapterError | Checkpoint.CompactionError
  /** The session's window, when no view fits it and the compaction was not asked for (the cause was not `Manual`). */
  readonly tooSmallWindow?: number | undefined
}> {
  /**
   * The problem in one line: an unreadable document's reason (with the
   * message at fault when the reason does not name it), or the engine's
   * message, after the window it is too small for when there is one.
   */
  override get message(): string {
    const problem = this.problem
    if (problem._tag === "AdapterError") {
      return problem.index === undefined || problem.reason.includes(`message ${problem.index}`)
        ? problem.reason
        : `${problem.reason} (message ${problem.index})`
    }
    return this.tooSmallWindow === undefined
      ? problem.message
      : `the window of ${this.tooSmallWindow} tokens is too small: ${problem.message}`
  }
}

/**
 * Reads a document: parsed when it is text, its adapter found (the named one,
 * or the first that detects it), decoded in slices of time so a long one does
 * not hold up the event loop; its session the one given, else the one its
 * transcript stands for.
 *
 * @since 0.1.0
 * @category reading
 */
export const read = (
  source: Omit<Source, "_tag">,
  sessionId?: string | undefined
): Effect.Effect<Read, CompactDocumentError> =>
  Effect.flatMap(
    Effect.suspend(() =>
      Cooperative.run(
        Formats.decodeTranscriptSteps(source.adapters, source.document, source.format),
        Cooperative.slice(source.sliceMs ?? Compactor.defaultSliceMs)
      )
    ),
    (decoding) =>
      Compat.matchResult(decoding, {
        onFailure: (problem): Effect.Effect<Read, CompactDocumentError> =>
          Effect.fail(new CompactDocumentError({ problem })),
        onSuccess: ({ decoded, document }) =>
          Effect.succeed<Read>({
            _tag: "Read",
            sessionId: sessionId ?? Session.idOf(decoded.transcript),
            ...(sessionId === undefined ? { sessionIdDerived: true } : {}),
            container: document.container,
            decoded
          })
      })
  )

/**
 * Compacts a document: reads it (unless it was read already; its session is
 * then the read one's), runs the engine's checkpoint for the cause
 * (`checkpoint`, `contextOverflow` or `compactNow`) and writes the view back
 * in the document's format.
 *
 * @since 0.1.0
 * @category compacting
 */
export const compactDocument = (request: {
  readonly document: Source | Read
  readonly session: SessionPolicy
  readonly cause: Cause
}): Effect.Effect<Compaction, CompactDocumentError, Compactor.Compactor> =>
  Effect.gen(function*() {
    const { cause, session } = request
    const document = request.document._tag === "Read"
      ? request.document
      : yield* read(request.document, session.sessionId)
    const compactor = yield* Compactor.Compactor
    const input: Checkpoint.CheckpointInput = {
      sessionId: document.sessionId,
      ...(document.sessionIdDerived === true ? { sessionIdDerived: true } : {}),
      transcript: document.decoded.transcript,
      model: session.model,
      contextWindow: session.contextWindow,
      ...(session.reportedContextTokens === undefined ? {} : { reportedContextTokens: session.reportedContextTokens }),
      ...(session.reportedCompactions === undefined ? {} : { reportedCompactions: session.reportedCompactions })
    }
    const checkpoint = yield* (
      cause._tag === "Overflow"
        ? compactor.contextOverflow({ ...input, overflow: cause.overflow })
        : cause._tag === "Manual"
        ? compactor.compactNow({
          ...input,
          instructions: cause.instructions,
          ...(cause.summaryPrompt === undefined ? {} : { summaryPrompt: cause.summaryPrompt })
        })
        : compactor.checkpoint(input)
    ).pipe(
      Effect.mapError((problem) =>
        new CompactDocumentError({
          problem,
          tooSmallWindow: problem.reason === "cannot-fit" && cause._tag !== "Manual" ? session.contextWindow : undefined
        })
      )
    )
    return { read: document, checkpoint, output: document.decoded.encode(checkpoint.view) }
  })

/**
 * A compaction's view as text in the container the document came in (pretty
 * JSON, or JSON Lines).
 *
 * @since 0.1.0
 * @category encoding
 */
export const text = (compaction: Compaction): string =>
  Formats.renderText({ container: compaction.read.container, value: compaction.output })
