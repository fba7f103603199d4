/**
 * The working state's model and its construction: the Schema classes a state
 * is made of, and a span's state extracted (`internal/working-state/WorkingStateExtract.ts`)
 * or extended, as values or as steps that pause (`extractSteps`,
 * `extendSteps`, which the compaction plan and the offline summariser run).
 * `WorkingState` is its documented face.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
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
export const CommandStatus = Schema.Literal("exited", "running", "pending-approval", "no-result", "unknown")

/**
 * @since 0.1.0
 * @category models
 */
export type CommandStatus = typeof CommandStatus.Type

/**
 * A command the span ran: the call that ran it, the command line (its first
 * line, clipped), and the exit status read from the call's result.
 *
 * @since 0.1.0
 * @category models
 */
export class Command extends Schema.Class<Command>("Command")({
  toolCallId: Schema.String,
  tool: Schema.String,
  command: Schema.String,
  status: CommandStatus,
  exitCode: Schema.NullOr(Schema.Int)
}) {}

/**
 * A tool and how many times the span called it.
 *
 * @since 0.1.0
 * @category models
 */
export class ToolUse extends Schema.Class<ToolUse>("ToolUse")({
  name: Schema.String,
  count: Schema.Int
}) {}

/**
 * A tool result that failed: a non-zero exit (except exit 1 of a command that
 * uses it for "no match" or "differs", such as `grep` and `diff`), an envelope
 * with `ok: false`, or text that opens with an error. `message` is its first
 * meaningful line (for a Python traceback, the exception line that ends it).
 *
 * @since 0.1.0
 * @category models
 */
export class Failure extends Schema.Class<Failure>("Failure")({
  tool: Schema.String,
  toolCallId: Schema.String,
  /** The command line, when the failed call ran a command. */
  command: Schema.NullOr(Schema.String),
  message: Schema.String,
  exitCode: Schema.NullOr(Schema.Int),
  /** The call of a later run of the same command that exited 0, when there is one: the fix. */
  fixedBy: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true, default: () => null })
}) {}

/**
 * What an edit did to a file: wrote it whole (a redirect, `tee`, a create or
 * write tool), edited it in place (`sed -i`, `perl -pi`, a script, a
 * replace tool, a transaction), patched it (`git apply`, `patch`,
 * `apply_patch`), or restored it (`git checkout`/`git restore`).
 *
 * @since 0.1.0
 * @category models
 */
export const EditAction = Schema.Literal("written", "edited", "patched", "restored")

/**
 * @since 0.1.0
 * @category models
 */
export type EditAction = typeof EditAction.Type

/**
 * A file the span changed: what happened to it last, through which command or
 * tool (`via`: `sed -i`, `python heredoc`, `str_replace_editor str_replace`,
 * `transaction tx_…`), by which call, and how many times it was changed.
 *
 * @since 0.1.0
 * @category models
 */
export class FileEdit extends Schema.Class<FileEdit>("FileEdit")({
  path: Schema.String,
  action: EditAction,
  via: Schema.String,
  toolCallId: Schema.String,
  times: Schema.Int
}) {}

/**
 * Where the work stands at the end of the span: the latest command and test
 * run with their outcome, the tests failing in the latest test run, and the
 * files changed since the latest test run that exited 0 (all of them when
 * none did, `lastPassingRun` null).
 *
 * @since 0.1.0
 * @category models
 */
export class Standing extends Schema.Class<Standing>("Standing")({
  lastCommand: Schema.NullOr(Command),
  lastTestRun: Schema.NullOr(Command),
  /** Names of the tests the latest test run reported failing (pytest, unittest, jest/vitest, go, cargo). */
  failingTests: Schema.Array(Schema.String),
  /** The call of the latest test run that exited 0, if any. */
  lastPassingRun: Schema.NullOr(Schema.String),
  changedSinceLastPass: Schema.Array(Schema.String)
}) {}

/**
 * The working state of a span.
 *
 * @since 0.1.0
 * @category models
 */
export class WorkingState extends Schema.Class<WorkingState>("WorkingState")({
  /** Files the span wrote, edited, created or patched (tool arguments, shell redirects, staged transactions). */
  filesWritten: Schema.Array(Schema.String),
  /** The last {@link recentCommandLimit} commands, oldest first, with their exit status. */
  commands: Schema.Array(Command),
  /** Paths produced that are not source edits: files results say were written or saved, envelope content and plan paths. */
  artifacts: Schema.Array(Schema.String),
  /** Tools called, in order of first use, with counts. */
  toolsUsed: Schema.Array(ToolUse),
  /** The last {@link failureLimit} failed tool results. */
  failures: Schema.Array(Failure),
  /** Tool-call ids whose result is missing from the span or is a staged approval still pending. */
  unfinishedCalls: Schema.Array(Schema.String),
  /**
   * Every `tx_`/`run_`/`job_`/`todo_`/`research_`/`source_`/`approval_`/`plan_`
   * id of the span ({@link isLikelyId}), in order of first appearance.
   */
  protectedIds: Schema.Array(Schema.String),
  /** Distinct file paths named in tool-call arguments, in order of first mention. */
  filePaths: Schema.Array(Schema.String),
  /** Per file written, how and by which call, the most recently changed last (a state saved before it existed has none). */
  edits: Schema.optionalWith(Schema.Array(FileEdit), { exact: true, default: () => [] }),
  /** Where the work stands; a state saved before it existed has none. */
  standing: Schema.optionalWith(Schema.NullOr(Standing), { exact: true, default: () => null }),
  /**
   * Ids a tool result produced that a later call used, whatever their shape
   * (`internal/working-state/WorkingIds`), the most recently used last; a state saved before
   * it existed has none.
   */
  workingIds: Schema.optionalWith(Schema.Array(Schema.String), { exact: true, default: () => [] }),
  /** The latest test commands run (at most three), oldest first; a state saved before it existed has none. */
  testCommands: Schema.optionalWith(Schema.Array(Schema.String), { exact: true, default: () => [] })
}) {}

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
export const empty: WorkingState = new WorkingState({
  filesWritten: [],
  commands: [],
  artifacts: [],
  toolsUsed: [],
  failures: [],
  unfinishedCalls: [],
  protectedIds: [],
  filePaths: []
})

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

const commandOf = (command: Extraction.CommandFields): Command =>
  command instanceof Command ? command : new Command(command)

const fromFields = (fields: Extraction.Fields): WorkingState =>
  new WorkingState({
    ...fields,
    commands: fields.commands.map(commandOf),
    toolsUsed: fields.toolsUsed.map((use) => use instanceof ToolUse ? use : new ToolUse(use)),
    failures: fields.failures.map((failure) => failure instanceof Failure ? failure : new Failure(failure)),
    edits: (fields.edits ?? []).map((edit) => edit instanceof FileEdit ? edit : new FileEdit(edit)),
    standing: fields.standing === undefined || fields.standing === null
      ? null
      : new Standing({
        ...fields.standing,
        lastCommand: fields.standing.lastCommand === null ? null : commandOf(fields.standing.lastCommand),
        lastTestRun: fields.standing.lastTestRun === null ? null : commandOf(fields.standing.lastTestRun)
      })
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
