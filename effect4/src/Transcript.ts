/**
 * @since 0.1.0
 */
export * from "../../src/Transcript.js"
