/**
 * The entry `context-compressor/effect4`: the names of the root entry that exist on Effect 4 so
 * far (docs/effect4.md), each a namespace as in `context-compressor`.
 *
 * @since 0.1.0
 */
export * from "./src/index.js"
