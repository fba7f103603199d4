/**
 * The working state of a span, extracted mechanically: the files it wrote, the
 * commands it ran with their exit status, the artifacts it produced, the tools
 * it used, what failed, what is unfinished, and every prefixed id it mentions
 * (SPEC R2.8). It rides in the compacted block beside the summary, so what an
 * agent needs to resume does not depend on the summariser alone.
 *
 * The model's Schema classes are this face's (the shared core's model is plain
 * data, `core/working-state/WorkingState.ts`, which {@link fromData} wraps
 * in them), the extraction is in `core/working-state/WorkingStateExtract.ts`;
 * this module is their face.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Schema from "effect/Schema"
import * as ShellWrites from "../../core/shell/ShellWrites.js"
import * as Failures from "../../core/working-state/Failures.js"
import * as FilePaths from "../../core/working-state/FilePaths.js"
import * as Ids from "../../core/working-state/Ids.js"
import * as ToolResultRead from "../../core/working-state/ToolResultRead.js"
import * as internal from "../../core/working-state/WorkingState.js"
import * as Rendering from "../../core/working-state/WorkingStateRender.js"
import type * as Envelope from "../models/Envelope.js"
import type * as Json from "../models/Json.js"
import type * as Transcript from "../models/Transcript.js"

/**
 * What became of a command: it exited (with the exit code, when the result
 * said), is still running, waits for an approval, or has no result in the span.
 *
 * @since 0.1.0
 * @category models
 */
export const CommandStatus = Compat.Literals(["exited", "running", "pending-approval", "no-result", "unknown"])

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
  fixedBy: Compat.optionalKeyWithDefault(Schema.NullOr(Schema.String), () => null)
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
export const EditAction = Compat.Literals(["written", "edited", "patched", "restored"])

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
  edits: Compat.optionalKeyWithDefault(Schema.Array(FileEdit), () => []),
  /** Where the work stands; a state saved before it existed has none. */
  standing: Compat.optionalKeyWithDefault(Schema.NullOr(Standing), () => null),
  /**
   * Ids a tool result produced that a later call used, whatever their shape
   * (`core/working-state/WorkingIds`), the most recently used last; a state saved before
   * it existed has none.
   */
  workingIds: Compat.optionalKeyWithDefault(Schema.Array(Schema.String), () => []),
  /** The latest test commands run (at most three), oldest first; a state saved before it existed has none. */
  testCommands: Compat.optionalKeyWithDefault(Schema.Array(Schema.String), () => [])
}) {}

/**
 * The working state of this face from the shared core's plain data (what the
 * core's extraction, the compaction plan and the offline summariser give):
 * each part wrapped in its class, a part already of this face kept as it is.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromData = (state: internal.WorkingState): WorkingState =>
  state instanceof WorkingState ? state : new WorkingState({
    ...state,
    commands: state.commands.map(command),
    toolsUsed: state.toolsUsed.map((fields) => fields instanceof ToolUse ? fields : new ToolUse(fields)),
    failures: state.failures.map((fields) => fields instanceof Failure ? fields : new Failure(fields)),
    edits: state.edits.map((fields) => fields instanceof FileEdit ? fields : new FileEdit(fields)),
    standing: state.standing === null ? null : new Standing({
      ...state.standing,
      lastCommand: state.standing.lastCommand === null ? null : command(state.standing.lastCommand),
      lastTestRun: state.standing.lastTestRun === null ? null : command(state.standing.lastTestRun)
    })
  })

const command = (fields: internal.Command): Command => fields instanceof Command ? fields : new Command(fields)

/**
 * How many recent commands the working state keeps.
 *
 * @since 0.1.0
 * @category constants
 */
export const recentCommandLimit: number = internal.recentCommandLimit

/**
 * How many failures the working state keeps (the most recent).
 *
 * @since 0.1.0
 * @category constants
 */
export const failureLimit: number = internal.failureLimit

/**
 * How many entries a list of paths keeps (the most recent), so that the state
 * stays small enough to persist and render whatever the span.
 *
 * @since 0.1.0
 * @category constants
 */
export const pathLimit: number = internal.pathLimit

/**
 * How many protected ids the state keeps (the first seen).
 *
 * @since 0.1.0
 * @category constants
 */
export const protectedIdLimit: number = internal.protectedIdLimit

/**
 * The working state of an empty span.
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty: WorkingState = fromData(internal.empty)

/**
 * Whether nothing was extracted.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isEmpty: (state: WorkingState) => boolean = internal.isEmpty

/**
 * Parses text that looks like JSON (an object or an array); anything else,
 * and broken JSON, gives `undefined`.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseJson: (text: string) => Json.Json | undefined = ToolResultRead.parseJson

/**
 * The agentic-workspace/v1 envelope a tool result holds, if any, without the
 * paths it declares omitted (`retention.omit_when_summarizing`, SPEC R1.2).
 *
 * @since 0.1.0
 * @category parsing
 */
export const envelopeOf: (content: string) => Envelope.Envelope | undefined = ToolResultRead.envelopeOf

/**
 * A tool result as the working state and the offline summariser read it: its
 * text, parsed JSON and envelope, with the paths the envelope declares omitted
 * removed from all three (the text is the stripped envelope's JSON then).
 *
 * @since 0.1.0
 * @category parsing
 */
export const readToolResult: (content: string) => {
  readonly content: string
  readonly parsed: Json.Json | undefined
  readonly envelope: Envelope.Envelope | undefined
} = ToolResultRead.readToolResult

/**
 * Whether a word looks like a file path: path characters only, and either a
 * directory part with a file extension at the end or a known file extension.
 * Directories, options, URLs and dotted identifiers (`django.db.models`) do not.
 *
 * @since 0.1.0
 * @category file paths
 */
export const looksLikeFilePath: (word: string) => boolean = FilePaths.looksLikeFilePath

/**
 * What a shell command line touches: the files it writes (redirects, `tee`,
 * `sed -i`, `touch`, `cat > file <<EOF`) and the file paths it names.
 *
 * @since 0.1.0
 * @category shell
 */
export const shellFiles: (
  command: string
) => { readonly written: ReadonlyArray<string>; readonly mentioned: ReadonlyArray<string> } = ShellWrites.shellFiles

/**
 * The exit code a tool result reports: an envelope's `data.job.exitCode` (or
 * `data.exitCode`), `<returncode>N</returncode>`, `exit code N`, `Exit code: N`,
 * `exit status N`, or an `exit_code`/`returncode` JSON field.
 *
 * @since 0.1.0
 * @category tool results
 */
export const exitCodeOf: (content: string, envelope?: Envelope.Envelope) => number | null = Failures.exitCodeOf

/**
 * The prefixed ids of a piece of tool text: read from the parsed JSON when it
 * is JSON (escapes such as `\n` would hide an id's start in the raw text),
 * else from the text; only {@link isLikelyId} ones.
 *
 * @since 0.1.0
 * @category ids
 */
export const idsOfToolText: (text: string) => ReadonlyArray<string> = ToolResultRead.idsOfToolText

/**
 * The prefixed ids of message text: those of `Envelope.idsInText` that are {@link isLikelyId}.
 *
 * @since 0.1.0
 * @category ids
 */
export const idsOfText: (text: string) => ReadonlyArray<string> = Ids.idsOfText

/**
 * Whether a prefixed word is an id rather than an identifier of code, prose or
 * a call's argument names: `run_from_argv`, `source_code`, `plan_id` and
 * `job_queue` are not ids; `tx_8f2c`, `approval_979a8972` and `plan_deadbeef`
 * are (a digit, a capital or a dash in the suffix, or six or more hex digits).
 *
 * @since 0.1.0
 * @category ids
 */
export const isLikelyId: (id: string) => boolean = Ids.isLikelyId

/**
 * Extracts the working state of a span. Pure and total: broken JSON
 * arguments, odd shapes and huge contents are read as far as they can be.
 *
 * @example
 * ```ts
 * import { Transcript, WorkingState } from "context-compressor"
 *
 * const call = new Transcript.ToolCall({ id: "c1", name: "bash", arguments: JSON.stringify({ command: "sed -i 's/<=/</' src/parser.ts" }) })
 * const span = [
 *   new Transcript.UserMessage({ id: "m0", content: "Fix the parser." }),
 *   new Transcript.AssistantMessage({ id: "m1", content: "", toolCalls: [call] }),
 *   new Transcript.ToolResult({ id: "m2", toolCallId: "c1", content: "exit code 0" })
 * ]
 * const state = WorkingState.extract(span)
 * assert.deepStrictEqual(state.filesWritten, ["src/parser.ts"])
 * assert.ok(WorkingState.render(state).includes("src/parser.ts"))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const extract = (span: Transcript.Transcript): WorkingState => fromData(internal.extract(span))

/**
 * What {@link extend} needs to know of the whole history that the earlier
 * state could not: which staged approvals are still unanswered, the result
 * of a call, for the calls the earlier state left without one, and the
 * scripts the earlier span wrote from here-documents ({@link scriptsWritten}
 * of it), so that running one in the new span edits what it opens.
 *
 * @since 0.1.0
 * @category models
 */
export type History = internal.History

/**
 * The Python scripts a span writes from here-documents (`cat > /tmp/fix.py
 * <<'EOF'`), by path: give them to {@link extend} as `History.scripts` for the
 * span before the one it extends by.
 *
 * @since 0.1.0
 * @category constructors
 */
export const scriptsWritten: (span: Transcript.Transcript) => ReadonlyMap<string, string> = internal.scriptsWritten

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
  fromData(internal.extend(previous, span, history))

/**
 * Text as a markdown code span, with a fence longer than any run of backticks inside it.
 *
 * @since 0.1.0
 * @category rendering
 */
export const inlineCode: (text: string) => string = Rendering.inlineCode

/**
 * How a command's status reads.
 *
 * @since 0.1.0
 * @category rendering
 */
export const describeStatus: (command: Command) => string = Rendering.describeStatus

/**
 * How {@link render} is bounded: a token budget and the counter.
 *
 * @since 0.1.0
 * @category rendering
 */
export type RenderBudget = Rendering.Budget

/**
 * Renders the working state as compact markdown sections, the most valuable
 * first: `### Unfinished calls`, `### Protected ids`, `### Files` (per file
 * what happened, through which command or tool and by which call; then the
 * files only read), `### Errors` (with the fix when a later run of the same
 * command exited 0), `### Where the work stands`, `### Recent commands`,
 * `### Artifacts`, `### Tools used`; empty ones left out. Within a budget the
 * sections fill it in that order and a last section says what was left out.
 * An empty state renders as "".
 *
 * @since 0.1.0
 * @category rendering
 */
export const render: (state: WorkingState, budget?: RenderBudget) => string = internal.render
