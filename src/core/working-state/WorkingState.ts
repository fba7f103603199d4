/**
 * The working state's model in the shared core and its construction: the
 * structural types a state is made of (plain data, which each face's Schema
 * classes satisfy and which each face's `WorkingState.fromData` wraps in its
 * classes), and a span's state extracted (`core/working-state/WorkingStateExtract.ts`)
 * or extended, as values or as steps that pause (`extractSteps`,
 * `extendSteps`, which the compaction plan and the offline summariser run).
 * `WorkingState` is its documented face.
 *
 * @since 0.1.0
 */
import type * as Boundary from "../checkpoint/Boundary.js"
import type * as Steps from "../Steps.js"
import type * as Transcript from "../transcript/TranscriptData.js"
import * as Extraction from "./WorkingStateExtract.js"
import * as Rendering from "./WorkingStateRender.js"

/**
 * What became of a command: it exited (with the exit code, when the result
 * said), is still running, waits for an approval, or has no result in the span.
 *
 * @since 0.1.0
 * @category models
 */
export type CommandStatus = "exited" | "running" | "pending-approval" | "no-result" | "unknown"

/**
 * A command the span ran: the call that ran it, the command line (its first
 * line, clipped), and the exit status read from the call's result.
 *
 * @since 0.1.0
 * @category models
 */
export interface Command {
  readonly toolCallId: string
  readonly tool: string
  readonly command: string
  readonly status: CommandStatus
  readonly exitCode: number | null
}

/**
 * A tool and how many times the span called it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolUse {
  readonly name: string
  readonly count: number
}

/**
 * A tool result that failed: a non-zero exit (except exit 1 of a command that
 * uses it for "no match" or "differs", such as `grep` and `diff`), an envelope
 * with `ok: false`, or text that opens with an error. `message` is its first
 * meaningful line (for a Python traceback, the exception line that ends it).
 *
 * @since 0.1.0
 * @category models
 */
export interface Failure {
  readonly tool: string
  readonly toolCallId: string
  /** The command line, when the failed call ran a command. */
  readonly command: string | null
  readonly message: string
  readonly exitCode: number | null
  /** The call of a later run of the same command that exited 0, when there is one: the fix. */
  readonly fixedBy: string | null
}

/**
 * What an edit did to a file: wrote it whole (a redirect, `tee`, a create or
 * write tool), edited it in place (`sed -i`, `perl -pi`, a script, a
 * replace tool, a transaction), patched it (`git apply`, `patch`,
 * `apply_patch`), or restored it (`git checkout`/`git restore`).
 *
 * @since 0.1.0
 * @category models
 */
export type EditAction = "written" | "edited" | "patched" | "restored"

/**
 * A file the span changed: what happened to it last, through which command or
 * tool (`via`: `sed -i`, `python heredoc`, `str_replace_editor str_replace`,
 * `transaction tx_…`), by which call, and how many times it was changed.
 *
 * @since 0.1.0
 * @category models
 */
export interface FileEdit {
  readonly path: string
  readonly action: EditAction
  readonly via: string
  readonly toolCallId: string
  readonly times: number
}

/**
 * Where the work stands at the end of the span: the latest command and test
 * run with their outcome, the tests failing in the latest test run, and the
 * files changed since the latest test run that exited 0 (all of them when
 * none did, `lastPassingRun` null).
 *
 * @since 0.1.0
 * @category models
 */
export interface Standing {
  readonly lastCommand: Command | null
  readonly lastTestRun: Command | null
  /** Names of the tests the latest test run reported failing (pytest, unittest, jest/vitest, go, cargo). */
  readonly failingTests: ReadonlyArray<string>
  /** The call of the latest test run that exited 0, if any. */
  readonly lastPassingRun: string | null
  readonly changedSinceLastPass: ReadonlyArray<string>
}

/**
 * The working state of a span.
 *
 * @since 0.1.0
 * @category models
 */
export interface WorkingState {
  /** Files the span wrote, edited, created or patched (tool arguments, shell redirects, staged transactions). */
  readonly filesWritten: ReadonlyArray<string>
  /** The last {@link recentCommandLimit} commands, oldest first, with their exit status. */
  readonly commands: ReadonlyArray<Command>
  /** Paths produced that are not source edits: files results say were written or saved, envelope content and plan paths. */
  readonly artifacts: ReadonlyArray<string>
  /** Tools called, in order of first use, with counts. */
  readonly toolsUsed: ReadonlyArray<ToolUse>
  /** The last {@link failureLimit} failed tool results. */
  readonly failures: ReadonlyArray<Failure>
  /** Tool-call ids whose result is missing from the span or is a staged approval still pending. */
  readonly unfinishedCalls: ReadonlyArray<string>
  /**
   * Every `tx_`/`run_`/`job_`/`todo_`/`research_`/`source_`/`approval_`/`plan_`
   * id of the span ({@link isLikelyId}), in order of first appearance.
   */
  readonly protectedIds: ReadonlyArray<string>
  /** Distinct file paths named in tool-call arguments, in order of first mention. */
  readonly filePaths: ReadonlyArray<string>
  /** Per file written, how and by which call, the most recently changed last (a state saved before it existed has none). */
  readonly edits: ReadonlyArray<FileEdit>
  /** Where the work stands; a state saved before it existed has none. */
  readonly standing: Standing | null
  /**
   * Ids a tool result produced that a later call used, whatever their shape
   * (`core/working-state/WorkingIds`), the most recently used last; a state saved before
   * it existed has none.
   */
  readonly workingIds: ReadonlyArray<string>
  /** The latest test commands run (at most three), oldest first; a state saved before it existed has none. */
  readonly testCommands: ReadonlyArray<string>
}

/**
 * How many recent commands the working state keeps.
 *
 * @since 0.1.0
 * @category constants
 */
export const recentCommandLimit: number = Extraction.recentCommandLimit

/**
 * How many failures the working state keeps (the most recent).
 *
 * @since 0.1.0
 * @category constants
 */
export const failureLimit: number = Extraction.failureLimit

/**
 * How many entries a list of paths keeps (the most recent), so that the state
 * stays small enough to persist and render whatever the span.
 *
 * @since 0.1.0
 * @category constants
 */
export const pathLimit: number = Extraction.pathLimit

/**
 * How many protected ids the state keeps (the first seen).
 *
 * @since 0.1.0
 * @category constants
 */
export const protectedIdLimit: number = Extraction.protectedIdLimit

/**
 * The working state of an empty span.
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty: WorkingState = {
  filesWritten: [],
  commands: [],
  artifacts: [],
  toolsUsed: [],
  failures: [],
  unfinishedCalls: [],
  protectedIds: [],
  filePaths: [],
  edits: [],
  standing: null,
  workingIds: [],
  testCommands: []
}

/**
 * Whether nothing was extracted.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isEmpty: (state: WorkingState) => boolean = Extraction.isEmpty

/**
 * The Python scripts a span writes from here-documents, by path: what a run
 * of one in a later span writes ({@link History}'s `scripts`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const scriptsWritten: (span: Transcript.Transcript) => ReadonlyMap<string, string> = Extraction.scriptsWritten

/**
 * A working state from the extraction's fields: the fields a state saved
 * before they existed lacks given their defaults, as plain data.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromFields = (fields: Extraction.Fields): WorkingState => ({
  ...fields,
  failures: fields.failures.map((failure) =>
    failure.fixedBy === undefined ? { ...failure, fixedBy: null } : failure as Failure
  ),
  edits: fields.edits ?? [],
  standing: fields.standing ?? null,
  workingIds: fields.workingIds ?? [],
  testCommands: fields.testCommands ?? []
})

/**
 * Extracts the working state of a span. Pure and total: broken JSON
 * arguments, odd shapes and huge contents are read as far as they can be.
 *
 * @since 0.1.0
 * @category constructors
 */
export const extract = (span: Transcript.Transcript): WorkingState => fromFields(Extraction.extract(span))

/**
 * {@link extract} as steps that pause every few messages: run them with
 * `Cooperative.run` to let the event loop turn during a long span.
 *
 * @since 0.1.0
 * @category constructors
 */
export function* extractSteps(
  span: Transcript.Transcript,
  staged?: Boundary.Staged | undefined
): Steps.Steps<WorkingState> {
  return fromFields(yield* Extraction.extractSteps(span, undefined, staged))
}

/**
 * What {@link extend} needs to know of the whole history that the earlier
 * state could not: which staged approvals are still unanswered, and the
 * result of a call, for the calls the earlier state left without one.
 *
 * @since 0.1.0
 * @category models
 */
export type History = Extraction.History

/**
 * The working state of an earlier span followed by `span`, from the earlier
 * state and `span` alone: what {@link extract} gives for the two spans
 * together, at the cost of the new span only, when `span` starts at a turn
 * start (so no call is cut from its result) and the lists stay under their
 * limits. Commands and calls the earlier state left without a result or
 * waiting for an approval are looked up again in `history`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const extend = (previous: WorkingState, span: Transcript.Transcript, history: History): WorkingState =>
  fromFields(Extraction.extend(previous, span, history))

/**
 * {@link extend} as steps that pause every few messages (see {@link extractSteps}).
 *
 * @since 0.1.0
 * @category constructors
 */
export function* extendSteps(
  previous: WorkingState,
  span: Transcript.Transcript,
  history: History
): Steps.Steps<WorkingState> {
  return fromFields(yield* Extraction.extendSteps(previous, span, history))
}

/**
 * Renders the working state as compact markdown sections (see `WorkingState.render`).
 *
 * @since 0.1.0
 * @category rendering
 */
export const render: (state: WorkingState, budget?: Rendering.Budget) => string = Rendering.render
