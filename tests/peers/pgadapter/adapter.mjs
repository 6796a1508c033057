#!/usr/bin/env node
// Auth.js's own PostgreSQL adapter (@auth/pg-adapter over node-postgres), for authui's
// interoperability tests (tests/peers/pgadapter_node.py runs this file).
//
// Reads one JSON request from stdin:
//   {"connection": {host, port, user, password, database}, "searchPath": "schema",
//    "calls": [{"name": "n", "method": "createUser", "args": [...]}, ...]}
// runs the calls in order, one pg connection for all of them, and writes one JSON object
// to stdout: {"n": {"result": …} | {"error": message, "name": error class}, ...}.
//
// The pg connection sets `search_path` to `searchPath` (the `-c search_path=…` startup
// option), so the adapter's unqualified table names land in the test's schema.
//
// JSON has no dates, so both ways a date is {"$date": "<ISO 8601 with milliseconds>"}.
// In arguments, {"$ref": "n", "path": ["id"]} stands for a field of call n's result (the
// user id the database numbered, for instance).
import PostgresAdapter from "@auth/pg-adapter"
import pg from "pg"

// Nothing but the answer may reach stdout.
console.log = console.info = console.debug = console.warn

function decode(value, results) {
  if (Array.isArray(value)) return value.map((v) => decode(v, results))
  if (value === null || typeof value !== "object") return value
  if (typeof value.$date === "string") return new Date(value.$date)
  if (typeof value.$ref === "string") {
    let found = results[value.$ref]?.result
    for (const key of value.path ?? []) found = found?.[key]
    if (found === undefined) throw new Error(`nothing at ${JSON.stringify(value)}`)
    return found
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decode(v, results)]))
}

function encode(value) {
  if (value instanceof Date) return { $date: value.toISOString() }
  if (Array.isArray(value)) return value.map(encode)
  if (value === null || value === undefined) return null
  if (typeof value === "bigint") return value.toString()
  if (typeof value !== "object") return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encode(v)]))
}

let input = ""
process.stdin.setEncoding("utf8")
for await (const piece of process.stdin) input += piece
const { connection, searchPath, calls } = JSON.parse(input)

const client = new pg.Client({ ...connection, options: `-c search_path=${searchPath}` })
await client.connect()
const adapter = PostgresAdapter(client)
const results = {}
try {
  for (const { name, method, args = [] } of calls) {
    try {
      if (typeof adapter[method] !== "function") throw new TypeError(`no method ${method}`)
      const result = await adapter[method](...decode(args, results))
      results[name] = { result: encode(result) }
    } catch (error) {
      results[name] = { error: String(error?.message ?? error), name: String(error?.name) }
    }
  }
} finally {
  await client.end()
}
process.stdout.write(JSON.stringify(results))
