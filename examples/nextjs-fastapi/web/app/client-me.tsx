"use client";

import { useEffect, useState } from "react";

export default function ClientMe() {
  const [answer, setAnswer] = useState("…");
  useEffect(() => {
    // Same origin: the browser sends the session cookie, Next.js forwards it to FastAPI.
    fetch("/api/py/me").then(async (response) => {
      setAnswer(`${response.status} ${await response.text()}`);
    });
  }, []);
  return <pre id="client-me">{answer}</pre>;
}
