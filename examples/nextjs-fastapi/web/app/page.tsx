import { apiFetch } from "@/api";
import { auth } from "@/auth";
import ClientMe from "./client-me";

export default async function Home() {
  const session = await auth();
  const me = await apiFetch("/api/py/me");
  const { greeting } = await (await apiFetch("/api/py/greeting")).json();
  return (
    <main>
      <h1>{greeting}</h1>
      {session?.user ? (
        <p>
          Signed in as {session.user.email}. <a href="/api/auth/signout">Sign out</a>
        </p>
      ) : (
        <p>
          Not signed in. <a href="/api/auth/signin">Sign in</a>
        </p>
      )}
      <h2>From the server, with a bearer token</h2>
      <pre id="server-me">
        {me.status} {await me.text()}
      </pre>
      <h2>From the browser, through the rewrite</h2>
      <ClientMe />
    </main>
  );
}
