import NextAuth from "next-auth";
import Credentials from "next-auth/providers/credentials";

// JWT sessions (no adapter): the session cookie holds the token the Python API reads.
// AUTH_SECRET and AUTH_URL come from the environment.
export const { handlers, auth } = NextAuth({
  providers: [
    Credentials({
      credentials: {
        username: { label: "Username" },
        password: { label: "Password", type: "password" },
      },
      // A demo user: "demo", password "demo". Check real users against your own store.
      authorize({ username, password }) {
        if (username !== "demo" || password !== "demo") return null;
        return { id: "1", name: "Demo User", email: "demo@example.com" };
      },
    }),
  ],
});
