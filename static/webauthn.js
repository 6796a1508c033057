// authui passkeys: the browser half of the WebAuthn ceremonies.
//
// Load it after authui.js (<script src=".../webauthn.js" defer>; the sign-in and passkeys
// pages do). It adds:
// - the sign-in flow of "webauthn" providers, so that authui.signIn("passkey", {email}) and
//   authui.registerPasskey() run a ceremony: GET <base>/webauthn-options/<id>, then
//   navigator.credentials.create/get, then POST action + data to <base>/callback/<id>;
// - the passkey forms: <form data-authui-passkey="<id>"> (sign in, or register a new user)
//   and <form data-authui-passkey-register="<id>"> (add a passkey to the signed-in user),
//   enhanced once each, also when htmx swaps them in; their messages appear in the form as
//   a role="alert" element;
// - autofill (conditional UI) for a form with data-authui-conditional="true": where the
//   browser supports it, its passkeys are offered in the fields whose autocomplete has
//   "webauthn"; a button-started ceremony aborts that pending request first.
// Plain ES2020, no dependencies, no inline script (the pages' CSP has none).
(function () {
  "use strict";

  const authui = window.authui;
  if (!authui || typeof authui.defineSignInFlow !== "function") {
    console.error("authui: webauthn.js needs authui.js, loaded before it");
    return;
  }

  // The form's data-authui-message-<key> wins (the pages translate them); these otherwise.
  const MESSAGES = {
    cancelled: "The passkey request was cancelled or timed out. Try again.",
    unsupported: "This browser does not support passkeys. Use another way to sign in.",
    insecure: "Passkeys need a secure (HTTPS) connection to this site.",
    address: "Passkeys cannot be used at this address of the site.",
    exists: "This device already holds a passkey for this account.",
    failed: "The site could not complete the passkey request. Try again.",
    addressNeeded: "Enter your email address to sign up with a passkey.",
  };

  // --- base64url <-> ArrayBuffer -----------------------------------------------------------

  function toBuffer(text) {
    const base64 = String(text).replace(/-/g, "+").replace(/_/g, "/");
    const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  }

  function toText(buffer) {
    const bytes = new Uint8Array(buffer);
    let binary = "";
    for (let i = 0; i < bytes.length; i += 1) binary += String.fromCharCode(bytes[i]);
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function descriptors(list) {
    return (list || []).map((descriptor) => ({ ...descriptor, id: toBuffer(descriptor.id) }));
  }

  // PublicKeyCredentialCreationOptionsJSON / RequestOptionsJSON -> what the API takes.
  function creationOptions(options) {
    return {
      ...options,
      challenge: toBuffer(options.challenge),
      user: { ...options.user, id: toBuffer(options.user.id) },
      excludeCredentials: descriptors(options.excludeCredentials),
    };
  }

  function requestOptions(options) {
    return {
      ...options,
      challenge: toBuffer(options.challenge),
      allowCredentials: descriptors(options.allowCredentials),
    };
  }

  // A PublicKeyCredential -> its JSON form (RegistrationResponseJSON / AuthenticationResponseJSON).
  function credentialJson(credential) {
    const response = credential.response;
    const json = {
      id: credential.id,
      rawId: toText(credential.rawId),
      type: credential.type,
      response: { clientDataJSON: toText(response.clientDataJSON) },
      clientExtensionResults: credential.getClientExtensionResults
        ? credential.getClientExtensionResults()
        : {},
    };
    if (credential.authenticatorAttachment) {
      json.authenticatorAttachment = credential.authenticatorAttachment;
    }
    if (response.attestationObject) {
      json.response.attestationObject = toText(response.attestationObject);
      json.response.transports =
        typeof response.getTransports === "function" ? response.getTransports() : [];
    } else {
      json.response.authenticatorData = toText(response.authenticatorData);
      json.response.signature = toText(response.signature);
      if (response.userHandle) json.response.userHandle = toText(response.userHandle);
    }
    return json;
  }

  // The pending autofill request: {form, controller, done}; at most one per page, and none
  // while a ceremony started by a button or a call runs (the browser takes one at a time).
  let autofill = null;
  let ceremonies = 0;

  // --- the ceremonies ------------------------------------------------------------------------

  function unsupportedReason() {
    if (typeof window.PublicKeyCredential === "function" && navigator.credentials) return null;
    return window.isSecureContext === false ? "insecure" : "unsupported";
  }

  function withQuery(url, query) {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value) params.set(name, String(value));
    }
    const text = params.toString();
    if (!text) return url;
    return url + (url.includes("?") ? "&" : "?") + text;
  }

  // GET the options: {action, options}. Anything else (a 400 {"error"}, a 500) rejects with
  // an AuthuiError carrying the status.
  async function fetchOptions(url, query, signal) {
    const response = await fetch(withQuery(url, query), {
      credentials: "same-origin",
      cache: "no-store",
      headers: { Accept: "application/json" },
      signal,
    });
    let data = null;
    try {
      data = await response.json();
    } catch {
      data = null;
    }
    if (!response.ok || !data || !data.options || !data.action) {
      const reason = data && typeof data.error === "string" ? data.error : "no options";
      const error = new helpers.AuthuiError(
        `authui: passkey options answered HTTP ${response.status} (${reason})`,
        response.status,
      );
      error.serverError = true;
      throw error;
    }
    return data;
  }

  // Where a provider's ceremony talks to: its options and callback URLs (a form's data
  // attributes may name them; the base path's otherwise).
  function urlsOf(provider, named = {}) {
    return {
      options: named.options || helpers.actionUrl("webauthn-options", provider.id),
      callback: named.callback || helpers.actionUrl("callback", provider.id),
    };
  }

  // One ceremony: options (the server picks register or authenticate unless fields.action
  // says), the browser's credential, then the POST. Resolves {response, url} like postForm.
  async function ceremony(provider, fields, urls) {
    const unsupported = unsupportedReason();
    if (unsupported) throw Object.assign(new Error(MESSAGES[unsupported]), { reason: unsupported });
    ceremonies += 1;
    try {
      await stopAutofill();
      const { action, options } = await fetchOptions(urls.options, {
        action: fields.action,
        email: fields.email,
      });
      const credential =
        action === "register"
          ? await navigator.credentials.create({ publicKey: creationOptions(options) })
          : await navigator.credentials.get({ publicKey: requestOptions(options) });
      if (!credential) {
        throw Object.assign(new Error(MESSAGES.cancelled), { name: "NotAllowedError" });
      }
      return await answer(urls.callback, fields, action, credential);
    } finally {
      ceremonies -= 1;
    }
  }

  function answer(callbackUrl, fields, action, credential) {
    return helpers.postForm(callbackUrl, {
      ...fields,
      action,
      data: JSON.stringify(credentialJson(credential)),
    });
  }

  const helpers = authui.defineSignInFlow("webauthn", (provider, fields) =>
    ceremony(provider, fields, urlsOf(provider)),
  );

  // --- autofill (conditional UI) -------------------------------------------------------------

  async function stopAutofill() {
    const pending = autofill;
    if (!pending) return;
    autofill = null;
    pending.controller.abort();
    await pending.done; // the browser takes one request at a time: let this one end first
  }

  async function autofillAvailable() {
    if (unsupportedReason()) return false;
    if (typeof PublicKeyCredential.isConditionalMediationAvailable !== "function") return false;
    try {
      return await PublicKeyCredential.isConditionalMediationAvailable();
    } catch {
      return false;
    }
  }

  async function startAutofill(form) {
    if (!(await autofillAvailable()) || ceremonies > 0) return;
    if (autofill && autofill.form.isConnected) return; // another form of the page has it
    await stopAutofill();
    if (ceremonies > 0 || autofill) return;
    const controller = new AbortController();
    const pending = { form, controller, done: null };
    autofill = pending;
    pending.done = (async () => {
      let picked = false;
      try {
        const urls = urlsOfForm(form);
        const { options } = await fetchOptions(
          urls.options,
          { action: "authenticate" },
          controller.signal,
        );
        const credential = await navigator.credentials.get({
          mediation: "conditional",
          publicKey: requestOptions(options),
          signal: controller.signal,
        });
        if (controller.signal.aborted || !credential) return;
        if (autofill === pending) autofill = null;
        picked = true;
        busy(form, true);
        const { url } = await answer(urls.callback, fieldsOf(form), "authenticate", credential);
        helpers.navigate(url);
      } catch (error) {
        if (autofill === pending) autofill = null;
        if (controller.signal.aborted) return; // a button ceremony took over
        // Autofill is a shortcut: when it cannot run, the button still works. Only a
        // picked passkey the server could not take is worth a message.
        if (picked) {
          busy(form, false);
          show(form, message(form, error));
          console.warn("authui: passkey sign-in failed:", error);
        } else {
          console.debug("authui: passkey autofill ended:", error);
        }
      }
    })();
  }

  // --- the forms -------------------------------------------------------------------------------

  function messageText(form, key) {
    const attribute = "authuiMessage" + key.charAt(0).toUpperCase() + key.slice(1);
    return (form && form.dataset[attribute]) || MESSAGES[key];
  }

  function message(form, error) {
    const name = error && error.name;
    if (error && error.reason) return messageText(form, error.reason);
    if (name === "NotAllowedError" || name === "AbortError") return messageText(form, "cancelled");
    if (name === "InvalidStateError") return messageText(form, "exists");
    if (name === "SecurityError") return messageText(form, "address");
    return messageText(form, "failed");
  }

  function statusOf(form) {
    let status = form.querySelector(".authui-passkey-status");
    if (!status) {
      status = document.createElement("div");
      status.className = "authui-passkey-status";
      form.prepend(status);
    }
    return status;
  }

  function show(form, text) {
    const alert = document.createElement("div");
    alert.className = "authui-alert authui-alert-error";
    alert.setAttribute("role", "alert");
    alert.textContent = text;
    statusOf(form).replaceChildren(alert);
  }

  function clear(form) {
    const status = form.querySelector(".authui-passkey-status");
    if (status) status.replaceChildren();
  }

  function busy(form, on) {
    form.setAttribute("aria-busy", on ? "true" : "false");
    for (const button of form.querySelectorAll("button[type=submit], button:not([type])")) {
      button.disabled = on;
    }
  }

  function fieldsOf(form) {
    const fields = {};
    for (const [name, value] of new FormData(form).entries()) {
      if (typeof value === "string") fields[name] = value;
    }
    return fields;
  }

  function urlsOfForm(form) {
    return urlsOf(
      { id: providerOf(form) },
      { options: form.dataset.authuiOptionsUrl, callback: form.dataset.authuiCallbackUrl },
    );
  }

  // Run one ceremony for a form: ``action`` "authenticate" (sign in: with a typed
  // address its passkeys are asked for, without one any passkey of this site), "register"
  // (add a passkey to the signed-in user), or none (sign up: the server decides from the
  // address, a new one registers, a known one signs in).
  async function run(form, action) {
    if (form.getAttribute("aria-busy") === "true") return;
    const register = action === "register";
    const conditional = !register && form.dataset.authuiConditional === "true";
    clear(form);
    const fields = fieldsOf(form);
    if (action) fields.action = action;
    if (!action && !fields.email) {
      show(form, messageText(form, "addressNeeded"));
      const field = form.querySelector("input[name=email]");
      if (field) field.focus();
      return;
    }
    busy(form, true);
    try {
      const { url } = await ceremony({ id: providerOf(form) }, fields, urlsOfForm(form));
      helpers.navigate(url);
    } catch (error) {
      busy(form, false);
      show(form, message(form, error));
      if (!error || !error.reason) console.warn("authui: passkey ceremony failed:", error);
      if (conditional) startAutofill(form);
    }
  }

  function providerOf(form) {
    return form.dataset.authuiPasskey || form.dataset.authuiPasskeyRegister;
  }

  // A sign-in form: its buttons (type="button") name their ceremony
  // (data-authui-passkey-action: "authenticate", or "sign-up" for the server's choice from
  // the address); they start hidden, shown here once passkeys can work. The form's own
  // submit is a passkey ceremony only when no email provider shares the form
  // (data-authui-passkey-submit).
  function enhanceSignIn(form) {
    const buttons = [...form.querySelectorAll("[data-authui-passkey-action]")];
    const ownsSubmit = form.dataset.authuiPasskeySubmit !== "false";
    const unsupported = unsupportedReason();
    if (unsupported) {
      // Beside a sign-in link the passkey buttons just stay hidden; alone, say why.
      if (ownsSubmit) show(form, messageText(form, unsupported));
      return;
    }
    for (const button of buttons) {
      button.hidden = false;
      button.addEventListener("click", () => run(form, actionOf(button)));
    }
    if (ownsSubmit) {
      // Enter in the field: continue with the typed address (sign up a new one, sign in a
      // known one), or, with none typed, sign in with any passkey of this site.
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        const typed = fieldsOf(form).email;
        run(form, typed ? undefined : "authenticate");
      });
    }
    if (form.dataset.authuiConditional === "true") startAutofill(form);
  }

  function actionOf(button) {
    const named = button.dataset.authuiPasskeyAction;
    return named === "authenticate" || named === "register" ? named : undefined;
  }

  // A form adding a passkey to the signed-in user: its submit registers one.
  function enhanceRegister(form) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      run(form, "register");
    });
    const unsupported = unsupportedReason();
    if (unsupported) show(form, messageText(form, unsupported));
  }

  const SIGN_IN = "form[data-authui-passkey]";
  const REGISTER = "form[data-authui-passkey-register]";

  function enhance(root) {
    if (!root || typeof root.querySelectorAll !== "function") return;
    for (const selector of [SIGN_IN, REGISTER]) {
      const forms = [...root.querySelectorAll(selector)];
      if (root.matches && root.matches(selector)) forms.unshift(root);
      for (const form of forms) {
        if (form.dataset.authuiEnhanced === "true") continue;
        form.dataset.authuiEnhanced = "true";
        if (selector === REGISTER) enhanceRegister(form);
        else enhanceSignIn(form);
      }
    }
  }

  authui.onLoad(enhance);
})();
