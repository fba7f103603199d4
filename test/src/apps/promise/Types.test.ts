/**
 * The Promise API's plain types against the engine's schemas they mirror:
 * checked by the typecheck (`tsc`), which fails on any line here that does
 * not hold. The Promise API shows no Effect type, so it keeps its own
 * interfaces; these lines keep them equal to the engine's encoded values.
 * The tests run only to be counted.
 */
import { describe, expectTypeOf, it } from "@effect/vitest"
import type * as CompactorPromise from "../../../../src/apps/promise/index.js"
import type * as Adapter from "../../../../src/face/adapters/Adapter.js"
import type * as Checkpoint from "../../../../src/face/engine/Checkpoint.js"

describe("the Promise API's plain types", () => {
  it("LadderStep is the engine's Checkpoint.LadderStep as encoded, field for field", () => {
    expectTypeOf<CompactorPromise.LadderStep>().toEqualTypeOf<typeof Checkpoint.LadderStep.Encoded>()
  })

  it("Repair is the engine's Checkpoint.Repair as encoded, field for field", () => {
    expectTypeOf<CompactorPromise.Repair>().toEqualTypeOf<typeof Checkpoint.Repair.Encoded>()
  })

  it("Format is the adapters' Adapter.Format, name for name", () => {
    expectTypeOf<CompactorPromise.Format>().toEqualTypeOf<typeof Adapter.Format.Type>()
  })
})
