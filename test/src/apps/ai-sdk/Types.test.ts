/**
 * The helpers' types against each AI SDK version's own: checked by the
 * typecheck (`tsc`), which fails on any line here that does not hold; the
 * tests run only to be counted.
 */
import type { LanguageModelV2CallOptions, LanguageModelV2Middleware, LanguageModelV2Prompt } from "@ai-sdk/provider"
import type { LanguageModelV3CallOptions, LanguageModelV3Middleware, LanguageModelV3Prompt } from "@ai-sdk/provider-v3"
import type { LanguageModelV4CallOptions, LanguageModelV4Middleware, LanguageModelV4Prompt } from "@ai-sdk/provider-v4"
import { describe, expectTypeOf, it } from "@effect/vitest"
import type * as AiV5 from "ai"
import type * as AiV6 from "ai-v6"
import type * as AiV7 from "ai-v7"
import { compactionMiddleware, compactionPrepareStep } from "../../../../src/apps/ai-sdk/index.js"
import type * as CompactorPromise from "../../../../src/apps/promise/index.js"

const middleware = compactionMiddleware({ contextWindow: 128_000 })
const prepareStep = compactionPrepareStep({ contextWindow: 128_000 })

describe("the AI SDK helpers' types", () => {
  it("ai@5: a LanguageModelV2Middleware, a V2 prompt in and out, a prepareStep of ai@5", () => {
    const v2: LanguageModelV2Middleware = middleware
    expectTypeOf(v2).toMatchTypeOf<AiV5.LanguageModelMiddleware>()
    expectTypeOf(middleware.transformParams<LanguageModelV2CallOptions>).returns.resolves.toEqualTypeOf<
      LanguageModelV2CallOptions
    >()
    expectTypeOf<CompactorPromise.CompactResult<LanguageModelV2Prompt>["messages"]>().toEqualTypeOf<
      LanguageModelV2Prompt
    >()
    expectTypeOf(prepareStep).toMatchTypeOf<AiV5.PrepareStepFunction<Record<string, never>>>()
  })

  it("ai@6: a LanguageModelV3Middleware, a V3 prompt in and out, a prepareStep of ai@6", () => {
    const v3: LanguageModelV3Middleware = middleware
    expectTypeOf(v3).toMatchTypeOf<AiV6.LanguageModelMiddleware>()
    expectTypeOf(middleware.transformParams<LanguageModelV3CallOptions>).returns.resolves.toEqualTypeOf<
      LanguageModelV3CallOptions
    >()
    expectTypeOf<CompactorPromise.CompactResult<LanguageModelV3Prompt>["messages"]>().toEqualTypeOf<
      LanguageModelV3Prompt
    >()
    expectTypeOf(prepareStep).toMatchTypeOf<AiV6.PrepareStepFunction<Record<string, never>>>()
  })

  it("ai@7: a LanguageModelV4Middleware, a V4 prompt in and out, a prepareStep of ai@7", () => {
    const v4: LanguageModelV4Middleware = middleware
    expectTypeOf(v4).toMatchTypeOf<AiV7.LanguageModelMiddleware>()
    expectTypeOf(middleware.transformParams<LanguageModelV4CallOptions>).returns.resolves.toEqualTypeOf<
      LanguageModelV4CallOptions
    >()
    expectTypeOf<CompactorPromise.CompactResult<LanguageModelV4Prompt>["messages"]>().toEqualTypeOf<
      LanguageModelV4Prompt
    >()
    expectTypeOf(prepareStep).toMatchTypeOf<AiV7.PrepareStepFunction<Record<string, never>>>()
  })

  it("a model of each version is a summariser; the context window is required", () => {
    type Models = [
      import("@ai-sdk/provider").LanguageModelV2,
      import("@ai-sdk/provider-v3").LanguageModelV3,
      import("@ai-sdk/provider-v4").LanguageModelV4
    ]
    expectTypeOf<Models[0]>().toMatchTypeOf<CompactorPromise.AiSdkModel>()
    expectTypeOf<Models[1]>().toMatchTypeOf<CompactorPromise.AiSdkModel>()
    expectTypeOf<Models[2]>().toMatchTypeOf<CompactorPromise.AiSdkModel>()
    // @ts-expect-error the context window is required
    expectTypeOf(compactionMiddleware).toBeCallableWith({})
  })
})
