/**
 * Vitest global setup: a PostgreSQL server for the SQL suites' PostgreSQL
 * variants, given to them as `inject("postgres")`.
 *
 * - `CONTEXT_COMPRESSOR_TEST_DATABASE_URL` set: that server is used (each test
 *   creates and drops its own database there, so the role needs CREATEDB);
 * - `CONTEXT_COMPRESSOR_TEST_POSTGRES=skip`: the variants are skipped;
 * - `CONTEXT_COMPRESSOR_TEST_POSTGRES=require` (CI): as below, but a server
 *   that cannot be started fails the run instead of skipping the variants;
 * - otherwise a throwaway server is started when PostgreSQL is installed
 *   (`PostgresCluster`), and stopped and removed after the run; when it is
 *   not, the variants are skipped, and the skip names the reason.
 */
import type { TestProject } from "vitest/node"
import * as PostgresCluster from "./PostgresCluster.js"

/** What the tests are given: the server's URL, or why there is none. */
export type Provided = { readonly url: string } | { readonly skip: string }

declare module "vitest" {
  export interface ProvidedContext {
    postgres: Provided
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env["CONTEXT_COMPRESSOR_TEST_DATABASE_URL"]
  if (given !== undefined && given.trim() !== "") {
    project.provide("postgres", { url: given.trim() })
    return async () => {}
  }
  if (process.env["CONTEXT_COMPRESSOR_TEST_POSTGRES"] === "skip") {
    project.provide("postgres", { skip: "CONTEXT_COMPRESSOR_TEST_POSTGRES=skip" })
    return async () => {}
  }
  const required = process.env["CONTEXT_COMPRESSOR_TEST_POSTGRES"] === "require"
  const available = PostgresCluster.availability()
  if (!available.available) {
    if (required) throw new Error(`CONTEXT_COMPRESSOR_TEST_POSTGRES=require: ${available.reason}`)
    project.provide("postgres", { skip: available.reason })
    return async () => {}
  }
  try {
    const cluster = await PostgresCluster.start()
    project.provide("postgres", { url: cluster.url })
    return cluster.stop
  } catch (error) {
    if (required) throw error
    project.provide("postgres", {
      skip: `the test server did not start: ${error instanceof Error ? error.message : String(error)}`
    })
    return async () => {}
  }
}
