/**
 * context-compressor for code that has never seen Effect: `createCompactor`
 * starts the engine once (state in memory by default, in a folder's SQLite
 * files or a PostgreSQL database on request; the offline summariser, an
 * OpenAI-compatible server or an AI SDK model), and its methods return
 * promises. `compact` takes a history in any supported format and gives it
 * back in the same one; failures reject with the `Error` subclasses below,
 * whose `reason` says what to do. No Effect type appears in this module's
 * signatures.
 *
 * The module is a face: the shapes are in `Models`, the errors in `Errors`,
 * the option checks in `Options`, the layers in `Engine`, the compactor in
 * `Compactor`.
 *
 * From CommonJS, `require("context-compressor/promise")` gives the same
 * functions through a small wrapper that loads this module with `import()`
 * (Node 20 cannot `require` an ES module).
 *
 * @since 0.1.0
 */
export type {
  /**
   * @since 0.1.0
   * @category models
   */
  AiSdkModel,
  /**
   * @since 0.1.0
   * @category models
   */
  AiSdkSummarizer,
  /**
   * @since 0.1.0
   * @category models
   */
  ChatCompletionsSummarizer,
  /**
   * @since 0.1.0
   * @category models
   */
  Choice,
  /**
   * @since 0.1.0
   * @category models
   */
  CompactionReport,
  /**
   * @since 0.1.0
   * @category models
   */
  CompactOptions,
  /**
   * @since 0.1.0
   * @category models
   */
  Compactor,
  /**
   * @since 0.1.0
   * @category models
   */
  CompactResult,
  /**
   * @since 0.1.0
   * @category models
   */
  CreateOptions,
  /**
   * @since 0.1.0
   * @category models
   */
  Fallback,
  /**
   * @since 0.1.0
   * @category models
   */
  Format,
  /**
   * @since 0.1.0
   * @category models
   */
  LadderStep,
  /**
   * @since 0.1.0
   * @category models
   */
  OnFallback,
  /**
   * @since 0.1.0
   * @category models
   */
  OnQuestion,
  /**
   * @since 0.1.0
   * @category models
   */
  Question,
  /**
   * @since 0.1.0
   * @category models
   */
  RecallOptions,
  /**
   * @since 0.1.0
   * @category models
   */
  RecallPage,
  /**
   * @since 0.1.0
   * @category models
   */
  ReduceOptions,
  /**
   * @since 0.1.0
   * @category models
   */
  Reduction,
  /**
   * @since 0.1.0
   * @category models
   */
  ReductionReport,
  /**
   * @since 0.1.0
   * @category models
   */
  Repair,
  /**
   * @since 0.1.0
   * @category models
   */
  Settings
} from "./Models.js"

export {
  /**
   * @since 0.1.0
   * @category errors
   */
  CompactionError,
  /**
   * @since 0.1.0
   * @category errors
   */
  CompressorError,
  /**
   * @since 0.1.0
   * @category errors
   */
  OptionError,
  /**
   * @since 0.1.0
   * @category errors
   */
  RecallError,
  /**
   * @since 0.1.0
   * @category errors
   */
  StartError,
  /**
   * @since 0.1.0
   * @category errors
   */
  StateError,
  /**
   * @since 0.1.0
   * @category errors
   */
  TranscriptError
} from "./Errors.js"

export {
  /**
   * @since 0.1.0
   * @category constructors
   */
  createCompactor
} from "./Compactor.js"
