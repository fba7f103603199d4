// The types of context-compressor/promise for CommonJS: those of the ES module, every function returning a promise.
type Module = typeof import("../dist/src/apps/promise/index.js", { with: { "resolution-mode": "import" } })
export type {
  AiSdkModel, AiSdkSummarizer, ChatCompletionsSummarizer, Choice, CompactionReport, CompactOptions, CompactResult, Compactor, CreateOptions, Fallback, Format,
  LadderStep, OnFallback, OnQuestion, Question, Reduction, ReductionReport, ReduceOptions, Repair, Settings
} from "../dist/src/apps/promise/index.js" with { "resolution-mode": "import" }
/** The ES module, loaded. */
export declare const load: () => Promise<Module>
export declare const createCompactor: Module["createCompactor"]
