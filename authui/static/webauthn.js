// authui passkeys: the browser half of the WebAuthn ceremonies, for the forms authui renders
// (the sign-in page's passkey form, the passkeys page's "Add a passkey" form) and for your
// own pages (window.authuiPasskeys.register()). No inline script, no third-party code; works
// on content htmx swaps in (through authui.js's onLoad). Load it after authui.js.
(() => {
  "use strict";

  const MESSAGES = {
    cancelled: "The passkey request was cancelled or timed out.",
    unsupported: "This browser does not support passkeys.",
    failed: "Signing in with a passkey did not work. Try again.",
  };

  // --- base64url <-> ArrayBuffer -------------------------------------------------------------

  function toBuffer(text) {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    const padded = base64 + "=".repeat((4 - (base64.length % 4)) % 4);
    const binary = atob(padded);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  }

  function toText(buffer) {
    const bytes = new Uint8Array(buffer);
    let binary = "";
    for (const byte of bytes) binary += String.fromCharCode(byte);
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function creationOptions(options) {
    return {
      ...options,
      challenge: toBuffer(options.challenge),
      user: { ...options.user, id: toBuffer(options.user.id) },
      excludeCredentials: (options.excludeCredentials || []).map((c) => ({
        ...c,
        id: toBuffer(c.id),
      })),
    };
  }

  function requestOptions(options) {
    return {
      ...options,
      challenge: toBuffer(options.challenge),
      allowCredentials: (options.allowCredentials || []).map((c) => ({
        ...c,
        id: toBuffer(c.id),
      })),
    };
  }

  function credentialJson(credential) {
    const response = credential.response;
    const json = {
      id: credential.id,
      rawId: toText(credential.rawId),
      type: credential.type,
      clientExtensionResults: credential.getClientExtensionResults(),
      authenticatorAttachment: credential.authenticatorAttachment || undefined,
      response: { clientDataJSON: toText(response.clientDataJSON) },
    };
    if (response.attestationObject) {
      json.response.attestationObject = toText(response.attestationObject);
      json.response.transports = response.getTransports ? response.getTransports() : [];
    } else {
      json.response.authenticatorData = toText(response.authenticatorData);
      json.response.signature = toText(response.signature);
      if (response.userHandle) json.response.userHandle = toText(response.userHandle);
    }
    return json;
  }

  // --- talking to the server ----------------------------------------------------------------

  function basePath() {
    return window.authui ? window.authui.basePath : "/auth";
  }

  async function fetchOptions(providerId, query) {
    const params = new URLSearchParams(query);
    const url = `${basePath()}/webauthn-options/${encodeURIComponent(providerId)}?${params}`;
    const response = await fetch(url, { credentials: "same-origin" });
    const data = await response.json().catch(() => null);
    if (!response.ok || !data || !data.options) {
      throw new Error((data && data.error) || MESSAGES.failed);
    }
    return data;
  }

  async function finish(providerId, action, credential, fields) {
    const body = new URLSearchParams({
      ...fields,
      action,
      data: JSON.stringify(credentialJson(credential)),
    });
    const response = await fetch(`${basePath()}/callback/${encodeURIComponent(providerId)}`, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Auth-Return-Redirect": "1",
      },
      body,
    });
    const data = await response.json().catch(() => null);
    if (!data || typeof data.url !== "string") throw new Error(MESSAGES.failed);
    location.assign(new URL(data.url, location.href).href);
  }

  async function ceremony(providerId, query, fields, signal) {
    const { action, options } = await fetchOptions(providerId, query);
    const credential =
      action === "register"
        ? await navigator.credentials.create({ publicKey: creationOptions(options), signal })
        : await navigator.credentials.get({ publicKey: requestOptions(options), signal });
    await finish(providerId, action, credential, fields);
  }

  function supported() {
    return typeof window.PublicKeyCredential === "function" && !!navigator.credentials;
  }

  function messageFor(error) {
    if (error && (error.name === "NotAllowedError" || error.name === "AbortError")) {
      return MESSAGES.cancelled;
    }
    return (error && error.message) || MESSAGES.failed;
  }

  function show(form, text) {
    let status = form.querySelector(".authui-passkey-status");
    if (!status) {
      status = document.createElement("div");
      status.className = "authui-passkey-status";
      form.prepend(status);
    }
    status.setAttribute("role", "alert");
    status.className = "authui-passkey-status authui-alert authui-alert-error";
    status.textContent = text;
  }

  function fieldsOf(form) {
    const fields = {};
    for (const [name, value] of new FormData(form).entries()) fields[name] = String(value);
    return fields;
  }

  // --- forms --------------------------------------------------------------------------------

  let conditional = null; // the pending autofill request, aborted before a button ceremony

  function cancelConditional() {
    if (conditional) conditional.abort();
    conditional = null;
  }

  async function startConditional(form, providerId) {
    if (!supported() || !PublicKeyCredential.isConditionalMediationAvailable) return;
    if (!(await PublicKeyCredential.isConditionalMediationAvailable())) return;
    cancelConditional();
    const controller = new AbortController();
    conditional = controller;
    try {
      const { options } = await fetchOptions(providerId, { action: "authenticate" });
      const credential = await navigator.credentials.get({
        publicKey: requestOptions(options),
        mediation: "conditional",
        signal: controller.signal,
      });
      await finish(providerId, "authenticate", credential, fieldsOf(form));
    } catch (error) {
      // Autofill is opportunistic: when it cannot run (an IP address as host, a cancelled
      // pick), the form still works, so nothing is shown.
      if (!controller.signal.aborted) console.debug("authui: passkey autofill:", error);
    }
  }

  function enhanceSignIn(form) {
    const providerId = form.dataset.authuiPasskey;
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (!supported()) {
        show(form, MESSAGES.unsupported);
        return;
      }
      cancelConditional();
      const fields = fieldsOf(form);
      try {
        await ceremony(providerId, fields.email ? { email: fields.email } : {}, fields);
      } catch (error) {
        show(form, messageFor(error));
      }
    });
    if (form.dataset.authuiConditional === "true") startConditional(form, providerId);
  }

  function enhanceRegister(form) {
    const providerId = form.dataset.authuiPasskeyRegister;
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (!supported()) {
        show(form, MESSAGES.unsupported);
        return;
      }
      try {
        await ceremony(providerId, { action: "register" }, fieldsOf(form));
      } catch (error) {
        show(form, messageFor(error));
      }
    });
  }

  function enhance(root) {
    for (const form of root.querySelectorAll("form[data-authui-passkey]")) {
      if (form.dataset.authuiEnhanced) continue;
      form.dataset.authuiEnhanced = "true";
      enhanceSignIn(form);
    }
    for (const form of root.querySelectorAll("form[data-authui-passkey-register]")) {
      if (form.dataset.authuiEnhanced) continue;
      form.dataset.authuiEnhanced = "true";
      enhanceRegister(form);
    }
  }

  /** Add a passkey to the signed-in user's account (then go to options.redirectTo). */
  async function register(providerId = "passkey", options = {}) {
    if (!supported()) throw new Error(MESSAGES.unsupported);
    const csrfToken = await window.authui.getCsrfToken();
    await ceremony(
      providerId,
      { action: "register" },
      { csrfToken, callbackUrl: options.redirectTo || location.href },
    );
  }

  window.authuiPasskeys = Object.freeze({ register });

  if (window.authui && window.authui.onLoad) {
    window.authui.onLoad(enhance);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => enhance(document.body));
  } else {
    enhance(document.body);
  }
})();
