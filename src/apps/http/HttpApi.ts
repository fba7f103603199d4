/**
 * The HTTP API of `context-compressor serve`, described as Schemas: the
 * compaction settings (`GET`/`POST /v1/settings/compaction`), compaction of a
 * transcript with what the inspector page draws (`POST /v1/compact`), the
 * reduction of one tool result (`POST /v1/reduce`), the stream of compactions
 * (`GET /v1/events`), the errors each answers with, and the bearer token that
 * protects them. The handlers are in `HttpServer.ts`; see `docs/http.md`.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Http from "#compat-http"
import { HttpApi, HttpApiGroup, OpenApi } from "#compat-http"
import * as Schema from "effect/Schema"
import * as Adapter from "../../face/adapters/Adapter.js"
import * as Compactor from "../../face/engine/Compactor.js"
import * as PackageVersion from "../../face/engine/internal/PackageVersion.js"
import * as Overflow from "../../face/engine/Overflow.js"
import * as Reduce from "../../face/engine/Reduce.js"
import * as Report from "../../face/models/Report.js"
import * as Settings from "../../face/services/Settings.js"

// --- errors ----------------------------------------------------------------------

/**
 * A token-less server was sent a state-changing request from another site:
 * its `Origin` is not the server's own (403).
 *
 * @since 0.1.0
 * @category errors
 */
export class CrossOrigin extends Schema.TaggedError<CrossOrigin>()(
  "CrossOrigin",
  { origin: Schema.String, message: Schema.String },
  Http.errorAnnotations({
    status: 403,
    description: "A token-less server refuses a state-changing request whose Origin is not its own."
  })
) {}

/**
 * A token-less server was sent a request naming another host in its `Host`
 * header, as a DNS-rebinding page would (421).
 *
 * @since 0.1.0
 * @category errors
 */
export class UnknownHost extends Schema.TaggedError<UnknownHost>()(
  "UnknownHost",
  { host: Schema.String, message: Schema.String },
  Http.errorAnnotations({
    status: 421,
    description: "A token-less server refuses a Host that is not its address, localhost or a name it was given."
  })
) {}

/**
 * The server has a token and the request did not bring it as
 * `Authorization: Bearer <token>` (401).
 *
 * @since 0.1.0
 * @category errors
 */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { message: Schema.String },
  Http.errorAnnotations({ status: 401, description: "The bearer token is missing or is not the server's." })
) {}

/**
 * The body is not JSON (400).
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidJson extends Schema.TaggedError<InvalidJson>()(
  "InvalidJson",
  { message: Schema.String },
  Http.errorAnnotations({ status: 400, description: "The request body is not valid JSON." })
) {}

/**
 * The body is larger than the server accepts (413); `limitBytes` is the limit.
 *
 * @since 0.1.0
 * @category errors
 */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  { limitBytes: Schema.Number, message: Schema.String },
  Http.errorAnnotations({
    status: 413,
    description: "The request body is past the size limit (serve --max-body-mb)."
  })
) {}

/**
 * No route has this method and path (404).
 *
 * @since 0.1.0
 * @category errors
 */
export class NotFound extends Schema.TaggedError<NotFound>()(
  "NotFound",
  { method: Schema.String, path: Schema.String, message: Schema.String },
  Http.errorAnnotations({ status: 404, description: "No route has this method and path." })
) {}

/**
 * A setting that was refused (400): an unknown key, a key given twice, a value
 * that is not a number for a numeric setting, not a string for the model.
 * `key`, `value` and `allowed` are those of `Settings.SettingsError`.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidSetting extends Schema.TaggedError<InvalidSetting>()(
  "InvalidSetting",
  {
    reason: Settings.SettingsErrorReason,
    key: Compat.optionalKey(Schema.String),
    value: Compat.optionalKey(Schema.String),
    allowed: Compat.optionalKey(Schema.String),
    message: Schema.String
  },
  Http.errorAnnotations({
    status: 400,
    description: "A setting was refused: the message names the key and what it accepts."
  })
) {}

/**
 * The transcript is not one of a supported format (400): not JSON or JSON
 * Lines, no adapter detects it, or one message is at fault (`index`).
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidTranscript extends Schema.TaggedError<InvalidTranscript>()(
  "InvalidTranscript",
  {
    format: Schema.String,
    index: Compat.optionalKey(Schema.Int),
    reason: Schema.String,
    message: Schema.String
  },
  Http.errorAnnotations({ status: 400, description: "The transcript is not one of a supported format." })
) {}

/**
 * The engine could not give a view (422): the window is too small for what
 * must stay (`cannot-fit`), or the view would break the transcript's rules.
 *
 * @since 0.1.0
 * @category errors
 */
export class CompactionFailed extends Schema.TaggedError<CompactionFailed>()(
  "CompactionFailed",
  {
    reason: Compat.Literals(["no-progress", "cannot-fit", "invalid-view"]),
    sessionId: Schema.String,
    message: Schema.String
  },
  Http.errorAnnotations({
    status: 422,
    description: "The engine could not give a view of this transcript in this window."
  })
) {}

/**
 * No question is waiting with this id (404): it was never asked, was already
 * answered, or waited past its deadline and was taken as Trim.
 *
 * @since 0.1.0
 * @category errors
 */
export class QuestionNotFound extends Schema.TaggedError<QuestionNotFound>()(
  "QuestionNotFound",
  { id: Schema.String, message: Schema.String },
  Http.errorAnnotations({
    status: 404,
    description: "No question is waiting with this id (answered already, or expired and taken as Trim)."
  })
) {}

/**
 * The server could not do it (500): its databases could not be read or written.
 *
 * @since 0.1.0
 * @category errors
 */
export class ServerError extends Schema.TaggedError<ServerError>()(
  "ServerError",
  { message: Schema.String },
  Http.errorAnnotations({ status: 500, description: "The server's state could not be read or written." })
) {}

/**
 * The server is at one of its limits (503): as many compactions waiting as
 * `maxQueue` (beside `maxCompactions` running), a compaction's wait for a
 * place past `queueTimeoutMs`, or as many event streams open as
 * `maxEventStreams`. The answer carries `Retry-After`.
 *
 * @since 0.1.0
 * @category errors
 */
export class Busy extends Schema.TaggedError<Busy>()(
  "Busy",
  { limit: Schema.String, max: Schema.Int, message: Schema.String },
  Http.errorAnnotations({
    status: 503,
    description:
      "The server is at a limit (the compaction queue full or waited past its deadline, or open event streams); retry after Retry-After."
  })
) {}

// --- security --------------------------------------------------------------------

/**
 * The bearer token of the server (`serve --token`, or `CONTEXT_COMPRESSOR_TOKEN`):
 * when one is set, every endpoint answers 401 without it.
 *
 * @since 0.1.0
 * @category security
 */
export class Authorization
  extends Http.SecurityMiddleware<Authorization>()("context-compressor/HttpApi/Authorization", {
    error: Unauthorized,
    security: { bearer: Http.bearer }
  })
{}

// --- settings --------------------------------------------------------------------

/**
 * The settings in effect, by snake_case key; `summarizer_model` is null when
 * the session's own model summarises.
 *
 * @since 0.1.0
 * @category models
 */
export const EffectiveSettings = Schema.Struct({
  trigger_pct: Schema.Number,
  cap_tokens: Schema.Number,
  summary_max_tokens: Schema.Number,
  summarizer_model: Schema.NullOr(Schema.String),
  keep_fraction: Schema.Number,
  envelope_cap_chars: Schema.Number,
  reply_reserve_tokens: Schema.Number,
  target_after_pct: Schema.Number,
  summary_request: Compat.Literals(["delimited", "shared-prefix"])
})

/**
 * A number of a settings change that was clamped into its range.
 *
 * @since 0.1.0
 * @category models
 */
export const Clamped = Schema.Struct({
  key: Schema.String,
  given: Schema.Number,
  stored: Schema.Number,
  allowed: Schema.String
})

/**
 * The settings as the settings card shows them: those in effect, the persisted
 * overrides among them, the range of each number and, after a change, the
 * numbers that were clamped.
 *
 * @since 0.1.0
 * @category models
 */
export class SettingsView extends Schema.Class<SettingsView>("SettingsView")({
  settings: EffectiveSettings,
  overrides: Compat.Record(Schema.String, Compat.Union([Schema.Number, Schema.String])),
  ranges: Compat.Record(Schema.String, Compat.Tuple([Schema.Number, Schema.Number])),
  clamped: Schema.Array(Clamped)
}) {}

/**
 * The body of `POST /v1/settings/compaction`: any settings, each by its
 * snake_case key or camelCase field, to a number (or its text), a model id
 * (`summarizer_model`; empty for the session's own model), or null to remove
 * the persisted override.
 *
 * @since 0.1.0
 * @category models
 */
export const SettingsChange = Compat.Record(Schema.String, Compat.Union([Schema.Number, Schema.String, Schema.Null]))
  .pipe(Http.annotate({
    description: `Settings by key (${Settings.names.map((name) => name.key).join(", ")}, or the camelCase field): ` +
      "a number (clamped into its range), a model id for summarizer_model, or null to remove the override."
  }))

// --- compaction ------------------------------------------------------------------

/**
 * The format a transcript is read as: detected (`auto`), or named.
 *
 * @since 0.1.0
 * @category models
 */
export const TranscriptFormat = Compat.Literals(["auto", ...Adapter.Format.literals])

/**
 * The context window assumed when a request names none, in tokens.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultWindow = 128_000

/**
 * The body of `POST /v1/compact`. The session is `sessionId`, else
 * `Session.idOf(transcript)` (a digest of the messages up to the first user
 * message), so that posting a growing transcript again continues the same session
 * and two histories that open alike but differ later are two sessions (the second
 * a branch of the first's id, `Session.branchOf`); either way within the caller's
 * own sessions when the request carries an `Authorization` header
 * (`Session.scoped`). The report gives back the id the session was kept under.
 *
 * @since 0.1.0
 * @category models
 */
export const CompactRequest = Schema.Struct({
  transcript: Compat.Union([Schema.String, Schema.Array(Schema.Unknown), Compat.Record(Schema.String, Schema.Unknown)])
    .pipe(Http.annotate({
      description:
        "The transcript: the text of a file (JSON, or JSON Lines of one message a line), or the parsed document."
    })),
  format: Compat.optionalWithDefault(TranscriptFormat, () => "auto" as const),
  window: Compat.optionalWithDefault(
    Schema.Int.pipe(
      Http.between(1_000, 100_000_000),
      Http.annotate({ description: "The model's context window in tokens." })
    ),
    () => defaultWindow
  ),
  sessionId: Compat.optionalKey(Schema.String.pipe(Http.minLength(1), Http.maxLength(256))),
  model: Compat.optionalKey(Schema.String.pipe(
    Http.minLength(1),
    Http.annotate({ description: "The session's model: it summarises unless the settings pin another." })
  )),
  instructions: Compat.optionalKey(Schema.String.pipe(
    Http.maxLength(100_000),
    Http.annotate({
      description:
        "Compact now, even under the trigger, with the summary asked to focus on this text (as /compact <focus>); part of the summary's cache key."
    })
  )),
  reportedContextTokens: Compat.optionalKey(Schema.Int.pipe(
    Http.between(0, 100_000_000),
    Http.annotate({
      description:
        "The context tokens the provider reported for the session's last call: the signal the trigger is compared with instead of the server's count (SPEC R2.1)."
    })
  )),
  cause: Compat.optionalWithDefault(
    Compat.Literals(["trigger", "overflow"]).pipe(Http.annotate({
      description:
        "overflow: the main model refused the view as too long; it is compacted whatever the count says (Compactor.contextOverflow)."
    })),
    () => "trigger" as const
  ),
  overflowError: Compat.optionalKey(Schema.Unknown.pipe(Http.annotate({
    description:
      "With cause overflow: the main model's error (its body as text or JSON); the window and prompt tokens it names are believed over the server's count."
  }))),
  attended: Compat.optionalWithDefault(
    Schema.Boolean.pipe(Http.annotate({
      description:
        "true: when the summariser fails twice, answer 202 with a question (Retry or Trim) instead of trimming; answer it with POST /v1/questions/{id}."
    })),
    () => false
  )
})

/**
 * One message of the outbound view, for the inspector: its text and tokens,
 * and the tokens of what it stands for in the transcript (for the compacted
 * block, every message it replaces).
 *
 * @since 0.1.0
 * @category models
 */
export const ViewMessage = Schema.Struct({
  id: Schema.String,
  role: Compat.Literals(["system", "user", "assistant", "tool", "compacted"]),
  text: Schema.String,
  tokens: Schema.Number,
  tokensBefore: Schema.Number,
  /** Where the message is in the transcript; null for the compacted block. */
  transcriptIndex: Schema.NullOr(Schema.Int),
  toolCallId: Compat.optionalKey(Schema.String),
  name: Compat.optionalKey(Schema.String),
  replaced: Compat.optionalKey(Schema.Struct({ firstId: Schema.String, lastId: Schema.String }))
})

/**
 * @since 0.1.0
 * @category models
 */
export type ViewMessage = typeof ViewMessage.Type

/**
 * What the retention rules make of one tool result of the transcript, at the
 * envelope cap the compaction renders tool results with: sizes, tokens
 * before and after, the decisions by action and by rule.
 *
 * @since 0.1.0
 * @category models
 */
export const ToolResultReport = Schema.Struct({
  transcriptIndex: Schema.Int,
  id: Schema.String,
  toolCallId: Schema.String,
  name: Compat.optionalKey(Schema.String),
  /** Kept verbatim in the outbound view; false: moved out into the compacted block. */
  inView: Schema.Boolean,
  tokensBefore: Schema.Number,
  tokensAfter: Schema.Number,
  route: Report.Route,
  policy: Schema.NullOr(Schema.String),
  capChars: Schema.Number,
  inputChars: Schema.Number,
  outputChars: Schema.Number,
  totals: Compat.Record(Schema.String, Schema.Number),
  rules: Schema.Array(Schema.Struct({
    rule: Schema.String,
    reason: Schema.String,
    counts: Compat.Record(Schema.String, Schema.Number)
  })),
  notes: Schema.Array(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ToolResultReport = typeof ToolResultReport.Type

/**
 * What a compaction did to one transcript: the fields of the CLI's
 * `FileReport`, with the session instead of the file.
 *
 * @since 0.1.0
 * @category models
 */
export class CompactReport extends Schema.Class<CompactReport>("CompactReport")({
  sessionId: Schema.String,
  format: Adapter.Format,
  messages: Schema.Int,
  viewMessages: Schema.Int,
  tokensBefore: Schema.Number,
  tokensAfter: Schema.Number,
  trigger: Schema.Number,
  /** The compaction, or null when the view was under the trigger (unchanged, or the session's earlier block, or changed only by the ladder and the repairs). */
  compacted: Schema.NullOr(Compactor.Compacted),
  /** The rungs of the degradation ladder the view took, compacted or not, in order (none when it fit as it was). */
  ladder: Schema.Array(Compactor.LadderStep).pipe(Http.annotate({
    description:
      "The rungs of the degradation ladder the view took, compacted or not, in order: reply-reserve, reduce-tool-results, clip-messages, clip-block (none when it fit as it was)."
  })),
  /** Lost, late or duplicated tool results repaired in the view, compacted or not. */
  repairs: Schema.Array(Compactor.Repair).pipe(Http.annotate({
    description:
      "Tool results repaired in the view (never in the transcript), compacted or not: lost-result, late-result, duplicate-result."
  })),
  /** With cause overflow and an overflowError the classifier recognised: what it named. */
  overflow: Compat.optionalKey(Overflow.ContextOverflow)
}) {}

/**
 * The answer of `POST /v1/compact`: the report, the compacted transcript in
 * the request's format (`output`, written as `container`), the view message by
 * message and each tool result's reduction.
 *
 * @since 0.1.0
 * @category models
 */
export class CompactResult extends Schema.Class<CompactResult>("CompactResult")({
  report: CompactReport,
  output: Schema.Unknown,
  container: Compat.Literals(["json", "jsonl"]),
  view: Schema.Array(ViewMessage),
  toolResults: Schema.Array(ToolResultReport),
  tokenizer: Schema.String
}) {}

/**
 * The answer of an attended compaction (202) whose summariser failed twice:
 * the question, its choices, until when it waits (then it is Trim), and the
 * path its answer is posted to (`{"choice": "retry" | "trim"}`).
 *
 * @since 0.1.0
 * @category models
 */
export class CompactQuestion extends Schema.Class<CompactQuestion>("CompactQuestion")({
  id: Schema.String,
  sessionId: Schema.String,
  /** What failed, in words, as the question is put. */
  problem: Schema.String,
  choices: Schema.Array(Compat.Literals(["retry", "trim"])),
  /** When an unanswered question is taken as Trim (ISO 8601). */
  expiresAt: Schema.String,
  /** Where the answer is posted: `/v1/questions/{id}`. */
  answerPath: Schema.String
}) {}

/**
 * The body of `POST /v1/questions/{id}`.
 *
 * @since 0.1.0
 * @category models
 */
export const QuestionAnswer = Schema.Struct({
  choice: Compat.Literals(["retry", "trim"]).pipe(Http.annotate({
    description: "retry: ask the summariser once more; trim: trim the oldest turns without a summary."
  }))
})

/**
 * The body of an event of `GET /v1/events`: `event: compacted`, the data one
 * `Compacted` report as JSON. The stream opens with `event: ready` and carries
 * `: keep-alive` comments between events.
 *
 * @since 0.1.0
 * @category models
 */
export const EventStream = Schema.String.pipe(
  Http.asText({ contentType: "text/event-stream" }),
  Http.annotate({
    description: "Server-sent events: `ready` once, then `compacted` with a Compacted report as data."
  })
)

// --- reduction -------------------------------------------------------------------

/**
 * The body of `POST /v1/reduce`: one tool result (an agentic-workspace/v1
 * envelope, MCP structuredContent, any JSON, or text) and the cap.
 *
 * @since 0.1.0
 * @category models
 */
export const ReduceRequest = Schema.Struct({
  envelope: Compat.Union([
    Schema.String,
    Schema.Array(Schema.Unknown),
    Compat.Record(Schema.String, Schema.Unknown),
    Schema.Number,
    Schema.Boolean,
    Schema.Null
  ]).pipe(Http.annotate({ description: "The tool result: its JSON value, or its text (read as JSON when it is)." })),
  cap: Compat.optionalKey(Schema.Int.pipe(
    Compat.greaterThanOrEqualTo(Reduce.minimumCap),
    Http.annotate({
      description:
        `The cap in characters of compact JSON (at least ${Reduce.minimumCap}, default ${Reduce.defaultCap}).`
    })
  ))
})

/**
 * The answer of `POST /v1/reduce`: the reduced value (null when the output is
 * text), the reduced text, the rule report and its decisions by action.
 *
 * @since 0.1.0
 * @category models
 */
export class ReduceResult extends Schema.Class<ReduceResult>("ReduceResult")({
  value: Schema.Unknown,
  text: Schema.String,
  report: Report.Report,
  totals: Compat.Record(Schema.String, Schema.Number)
}) {}

// --- the API ---------------------------------------------------------------------

/**
 * `GET` and `POST /v1/settings/compaction`.
 *
 * @since 0.1.0
 * @category groups
 */
export class SettingsGroup extends HttpApiGroup.make("settings")
  .add(Http.endpoint("GET")("get", "/settings/compaction", { success: SettingsView, error: [ServerError] }))
  .add(
    Http.endpoint("POST")("set", "/settings/compaction", {
      payload: SettingsChange,
      success: SettingsView,
      error: [InvalidSetting, ServerError]
    })
  )
  .middleware(Authorization)
{}

/**
 * `POST /v1/compact`, `POST /v1/questions/{id}` (the answer to an attended compaction's question) and `GET /v1/events`.
 *
 * @since 0.1.0
 * @category groups
 */
export class CompactionGroup extends HttpApiGroup.make("compaction")
  .add(
    Http.endpoint("POST")("compact", "/compact", {
      payload: CompactRequest,
      success: [CompactResult, CompactQuestion.pipe(Http.status(202))],
      error: [InvalidJson, Http.DecodeError, InvalidTranscript, CompactionFailed, Busy, ServerError]
    })
  )
  .add(
    Http.endpoint("POST")("answer", "/questions/:id", {
      params: Schema.Struct({ id: Schema.String }),
      payload: QuestionAnswer,
      success: [CompactResult, CompactQuestion.pipe(Http.status(202))],
      error: [QuestionNotFound, CompactionFailed, ServerError]
    })
  )
  .add(Http.endpoint("GET")("events", "/events", { success: EventStream, error: [Busy] }))
  .middleware(Authorization)
{}

/**
 * `POST /v1/reduce`.
 *
 * @since 0.1.0
 * @category groups
 */
export class ReductionGroup extends HttpApiGroup.make("reduction")
  .add(
    Http.endpoint("POST")("reduce", "/reduce", {
      payload: ReduceRequest,
      success: ReduceResult,
      error: [InvalidJson, Http.DecodeError]
    })
  )
  .middleware(Authorization)
{}

/**
 * The whole API, under `/v1`. The errors of the API itself (bad JSON, a body
 * past the limit, an unknown route) are answered before any endpoint runs.
 *
 * @since 0.1.0
 * @category api
 */
export class Api extends Http.addApiErrors(
  HttpApi.make("context-compressor").add(SettingsGroup).add(CompactionGroup).add(ReductionGroup),
  [InvalidJson, PayloadTooLarge, NotFound]
)
  .prefix("/v1")
  .annotate(OpenApi.Title, "context-compressor")
  .annotate(OpenApi.Version, PackageVersion.version)
  .annotate(
    OpenApi.Description,
    "Compaction settings, transcript compaction, tool-result reduction and the stream of compactions (docs/http.md)."
  )
{}
