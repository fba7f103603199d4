/**
 * @since 0.1.0
 */
export * from "../../../src/internal/effect3/EngineFace.js"
