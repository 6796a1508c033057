#!/usr/bin/env node
// Auth.js's own pages on Express, for the docs' gallery (tests/e2e/test_gallery_authjs.py
// takes Auth.js's default sign-in page beside authui's).
//
// Usage: node pages.mjs [PORT]   (or PORT in the environment; 0 or nothing: a free port)
//
// Serves ExpressAuth at /auth on 127.0.0.1 with the sign-in options authui's demo shows:
// GitHub, Google, GitLab and Discord (dummy clients, never used), sign-in links by email
// (a custom email provider that only logs the link), passkeys (Auth.js's experimental
// WebAuthn), and credentials with a Username and a Password field (demo / demo). Email and
// passkeys need an adapter: a small in-memory one below. Prints
// "listening on http://127.0.0.1:<port>" once it listens; errors go to stderr.
import { randomBytes } from "node:crypto"
import { ExpressAuth } from "@auth/express"
import Credentials from "@auth/core/providers/credentials"
import Discord from "@auth/core/providers/discord"
import GitHub from "@auth/core/providers/github"
import GitLab from "@auth/core/providers/gitlab"
import Google from "@auth/core/providers/google"
import Passkey from "@auth/core/providers/passkey"
import express from "express"

const port = Number(process.argv[2] ?? process.env.PORT ?? 0)

/** An Auth.js adapter keeping everything in memory: users, accounts, sessions, links, passkeys. */
function memoryAdapter() {
  const users = new Map()
  const accounts = new Map()
  const sessions = new Map()
  const tokens = new Map()
  const authenticators = new Map()
  const accountKey = (provider, providerAccountId) => `${provider}:${providerAccountId}`
  const find = (map, test) => [...map.values()].find(test) ?? null
  return {
    async createUser(user) {
      const created = { ...user, id: user.id ?? crypto.randomUUID() }
      users.set(created.id, created)
      return created
    },
    async getUser(id) {
      return users.get(id) ?? null
    },
    async getUserByEmail(email) {
      return find(users, (user) => user.email === email)
    },
    async getUserByAccount({ provider, providerAccountId }) {
      const account = accounts.get(accountKey(provider, providerAccountId))
      return account ? (users.get(account.userId) ?? null) : null
    },
    async updateUser(user) {
      const updated = { ...users.get(user.id), ...user }
      users.set(user.id, updated)
      return updated
    },
    async deleteUser(id) {
      users.delete(id)
    },
    async linkAccount(account) {
      accounts.set(accountKey(account.provider, account.providerAccountId), account)
      return account
    },
    async unlinkAccount({ provider, providerAccountId }) {
      accounts.delete(accountKey(provider, providerAccountId))
    },
    async getAccount(providerAccountId, provider) {
      return accounts.get(accountKey(provider, providerAccountId)) ?? null
    },
    async createSession(session) {
      sessions.set(session.sessionToken, session)
      return session
    },
    async getSessionAndUser(sessionToken) {
      const session = sessions.get(sessionToken)
      const user = session && users.get(session.userId)
      return user ? { session, user } : null
    },
    async updateSession(session) {
      const updated = { ...sessions.get(session.sessionToken), ...session }
      sessions.set(session.sessionToken, updated)
      return updated
    },
    async deleteSession(sessionToken) {
      sessions.delete(sessionToken)
    },
    async createVerificationToken(token) {
      tokens.set(`${token.identifier}:${token.token}`, token)
      return token
    },
    async useVerificationToken({ identifier, token }) {
      const key = `${identifier}:${token}`
      const found = tokens.get(key) ?? null
      tokens.delete(key)
      return found
    },
    async getAuthenticator(credentialID) {
      return authenticators.get(credentialID) ?? null
    },
    async createAuthenticator(authenticator) {
      authenticators.set(authenticator.credentialID, authenticator)
      return authenticator
    },
    async listAuthenticatorsByUserId(userId) {
      return [...authenticators.values()].filter((a) => a.userId === userId)
    },
    async updateAuthenticatorCounter(credentialID, counter) {
      const updated = { ...authenticators.get(credentialID), counter }
      authenticators.set(credentialID, updated)
      return updated
    },
  }
}

const dummy = (name) => ({ clientId: `pages-${name}-id`, clientSecret: `pages-${name}-secret` })

const authConfig = {
  secret: process.env.AUTH_SECRET ?? randomBytes(32).toString("base64url"),
  trustHost: true,
  basePath: "/auth",
  // JWT sessions, so that credentials sign-in works beside the adapter
  session: { strategy: "jwt" },
  adapter: memoryAdapter(),
  experimental: { enableWebAuthn: true },
  providers: [
    GitHub(dummy("github")),
    Google(dummy("google")),
    GitLab(dummy("gitlab")),
    Discord(dummy("discord")),
    // Auth.js's own email providers send through nodemailer or a mail service; this one,
    // as Auth.js's docs show for a custom sender, only logs the link.
    {
      id: "email",
      type: "email",
      name: "Email",
      maxAge: 24 * 60 * 60,
      async sendVerificationRequest({ identifier, url }) {
        console.error(`sign-in link for ${identifier}: ${url}`)
      },
    },
    Passkey,
    Credentials({
      credentials: {
        username: { label: "Username", autocomplete: "username", required: true },
        password: { label: "Password", type: "password", autocomplete: "current-password" },
      },
      authorize(credentials) {
        if (credentials.username === "demo" && credentials.password === "demo") {
          return { id: "1", name: "Demo User", email: "demo@example.com" }
        }
        return null
      },
    }),
  ],
  logger: { error: (error) => console.error(error), warn() {}, debug() {} },
}

const app = express()
app.set("trust proxy", true)
app.use("/auth/*", ExpressAuth(authConfig))
const server = app.listen(port, "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`)
})
