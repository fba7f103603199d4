/**
 * The service tags and interfaces of the compaction engine on Effect 4: those of `context-compressor/services`, compiled for Effect 4.
 *
 * @since 0.1.0
 */
export * from "../../face/services/index.js"
