/**
 * The working state's model on Effect 4: the Schema classes a state is made
 * of, with the names, fields and defaults of the Effect 3 face's, so that a
 * state stored by either face decodes in the other. The shared core's model
 * is plain data (`internal/working-state/WorkingState.ts`), which
 * {@link fromData} wraps in these classes.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as WorkingStateData from "../../src/internal/working-state/WorkingState.js"

/**
 * What became of a command.
 *
 * @since 0.1.0
 * @category models
 */
export const CommandStatus = Schema.Literals(["exited", "running", "pending-approval", "no-result", "unknown"])

/**
 * @since 0.1.0
 * @category models
 */
export type CommandStatus = typeof CommandStatus.Type

/**
 * A command the span ran, with its exit status.
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
 * A tool result that failed, and the call that fixed it when there is one.
 *
 * @since 0.1.0
 * @category models
 */
export class Failure extends Schema.Class<Failure>("Failure")({
  tool: Schema.String,
  toolCallId: Schema.String,
  command: Schema.NullOr(Schema.String),
  message: Schema.String,
  exitCode: Schema.NullOr(Schema.Int),
  fixedBy: Schema.NullOr(Schema.String).pipe(
    Schema.withDecodingDefaultKey(Effect.succeed(null)),
    Schema.withConstructorDefault(Effect.succeed(null))
  )
}) {}

/**
 * What an edit did to a file.
 *
 * @since 0.1.0
 * @category models
 */
export const EditAction = Schema.Literals(["written", "edited", "patched", "restored"])

/**
 * @since 0.1.0
 * @category models
 */
export type EditAction = typeof EditAction.Type

/**
 * A file the span changed: what happened to it last, through what, by which call, how many times.
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
 * Where the work stands at the end of the span.
 *
 * @since 0.1.0
 * @category models
 */
export class Standing extends Schema.Class<Standing>("Standing")({
  lastCommand: Schema.NullOr(Command),
  lastTestRun: Schema.NullOr(Command),
  failingTests: Schema.Array(Schema.String),
  lastPassingRun: Schema.NullOr(Schema.String),
  changedSinceLastPass: Schema.Array(Schema.String)
}) {}

const strings = Schema.Array(Schema.String).pipe(
  Schema.withDecodingDefaultKey(Effect.succeed([])),
  Schema.withConstructorDefault(Effect.succeed([]))
)

/**
 * The working state of a span (the fields a state saved before one existed lacks default as on Effect 3).
 *
 * @since 0.1.0
 * @category models
 */
export class WorkingState extends Schema.Class<WorkingState>("WorkingState")({
  filesWritten: Schema.Array(Schema.String),
  commands: Schema.Array(Command),
  artifacts: Schema.Array(Schema.String),
  toolsUsed: Schema.Array(ToolUse),
  failures: Schema.Array(Failure),
  unfinishedCalls: Schema.Array(Schema.String),
  protectedIds: Schema.Array(Schema.String),
  filePaths: Schema.Array(Schema.String),
  edits: Schema.Array(FileEdit).pipe(
    Schema.withDecodingDefaultKey(Effect.succeed([])),
    Schema.withConstructorDefault(Effect.succeed([]))
  ),
  standing: Schema.NullOr(Standing).pipe(
    Schema.withDecodingDefaultKey(Effect.succeed(null)),
    Schema.withConstructorDefault(Effect.succeed(null))
  ),
  workingIds: strings,
  testCommands: strings
}) {}

/**
 * This face's constructors of the working state's parts, for the shared core (WorkingStateData.withKit).
 *
 * @since 0.1.0
 * @category constructors
 */
export const kit: WorkingStateData.Kit<WorkingState> = {
  command: (fields) => fields instanceof Command ? fields : new Command(fields),
  toolUse: (fields) => fields instanceof ToolUse ? fields : new ToolUse(fields),
  failure: (fields) => fields instanceof Failure ? fields : new Failure(fields),
  fileEdit: (fields) => fields instanceof FileEdit ? fields : new FileEdit(fields),
  standing: (fields) => fields instanceof Standing ? fields : new Standing(fields),
  workingState: (fields) => fields instanceof WorkingState ? fields : new WorkingState(fields)
}

/**
 * The working state of this face from the shared core's plain data (what the
 * core's extraction and the compaction plan give): each part wrapped in its
 * class, a part already of this face kept as it is.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromData = (state: WorkingStateData.WorkingState): WorkingState =>
  state instanceof WorkingState ? state : WorkingStateData.withKit(kit, state)
