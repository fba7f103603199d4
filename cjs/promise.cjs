"use strict"
// context-compressor/promise for CommonJS. Node 20 cannot require() an ES module, so each
// function loads the package's ES module with import() and returns a promise; `load()` gives
// the whole module (its Error classes included, for instanceof).
const load = () => import("../dist/bundle/promise.js")
exports.load = load
exports.createCompactor = async (options) => (await load()).createCompactor(options)
