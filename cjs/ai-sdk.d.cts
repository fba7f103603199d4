// The types of context-compressor/ai-sdk for CommonJS: those of the ES module.
type Module = typeof import("../dist/src/apps/ai-sdk/index.js", { with: { "resolution-mode": "import" } })
export type { CallOptions, CompactionMiddleware, CompactionPrepareStep, MiddlewareOptions, Options, PrepareStepOptions, Step } from "../dist/src/apps/ai-sdk/index.js" with { "resolution-mode": "import" }
/** The ES module, loaded. */
export declare const load: () => Promise<Module>
export declare const providerOptionsKey: Module["providerOptionsKey"]
export declare const compactionMiddleware: Module["compactionMiddleware"]
export declare const compactionPrepareStep: Module["compactionPrepareStep"]
