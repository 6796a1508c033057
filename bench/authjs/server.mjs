#!/usr/bin/env node
// Auth.js on Express, as authui's benchmarks run it beside authui (bench/harness.py).
//
// Environment:
//   PORT            where to listen (127.0.0.1)
//   BENCH_MODE      "bare": only GET /hello (the Express baseline);
//                   "auth": /hello, the Auth.js routes at /auth/*, GET /protected
//   BENCH_STRATEGY  "jwt" (default) or "database" (PostgreSQL through @auth/pg-adapter)
//   BENCH_SECRET    AUTH_SECRET
//   BENCH_PG        {"host", "port", "user", "database", "searchPath"} for "database"
//
// The credentials provider accepts bench / bench, as authui's bench apps do. Errors go to
// stderr (the harness shows the server's output when it fails).
import { ExpressAuth, getSession } from "@auth/express"
import Credentials from "@auth/core/providers/credentials"
import GitHub from "@auth/core/providers/github"
import PostgresAdapter from "@auth/pg-adapter"
import express from "express"
import pg from "pg"

const mode = process.env.BENCH_MODE ?? "auth"
const strategy = process.env.BENCH_STRATEGY ?? "jwt"

function config() {
  const settings = {
    secret: process.env.BENCH_SECRET,
    trustHost: true,
    basePath: "/auth",
    session: { strategy },
    providers: [
      // Auth.js refuses credentials with database sessions; an OAuth provider stands in
      // there (never used: the bench stores its session in the database itself).
      strategy === "database" ? GitHub({ clientId: "bench", clientSecret: "bench" }) : null,
      Credentials({
        credentials: { username: { label: "Username" }, password: { label: "Password" } },
        authorize(credentials) {
          if (credentials.username === "bench" && credentials.password === "bench") {
            return { id: "1", name: "Bench User", email: "bench@example.com" }
          }
          return null
        },
      }),
    ].filter((provider) => provider && (strategy !== "database" || provider.id !== "credentials")),
    logger: { error: (error) => console.error(error), warn() {}, debug() {} },
  }
  if (strategy === "database") {
    const { searchPath, ...connection } = JSON.parse(process.env.BENCH_PG)
    const pool = new pg.Pool({ ...connection, max: 10, options: `-c search_path=${searchPath}` })
    settings.adapter = PostgresAdapter(pool)
  }
  return settings
}

const app = express()
app.set("trust proxy", true)
app.get("/hello", (req, res) => {
  res.type("text/plain").send("hello")
})
if (mode === "auth") {
  const authConfig = config()
  app.use("/auth/*", ExpressAuth(authConfig))
  app.get("/protected", async (req, res) => {
    const session = await getSession(req, authConfig)
    if (!session?.user) {
      res.status(401).json({ message: "Sign in to access this resource." })
      return
    }
    res.type("text/plain").send(`secret for ${session.user.name}`)
  })
}
app.listen(Number(process.env.PORT), "127.0.0.1", () => {
  console.log(`listening on ${process.env.PORT}`)
})
