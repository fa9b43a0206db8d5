// Hosted onboarding page. It renders what GET /v1/onboarding/{intentId} returns and
// submits each step to POST /v1/onboarding/{intentId}/steps/{stepCode}; the intent's
// workflow decides what comes next. No framework, no third-party code, no inline script
// (the content security policy forbids it). Texts come from messages.en.json.
//
// Messages to the embedding page: window.parent.postMessage({type, data}, origin), only
// to the parent's origin and only when it is one of the project's embedOrigins:
//   STEP_COMPLETED   {intentId, stepCode}   a step became COMPLETED on this page
//   INTENT_COMPLETED {intentId}             every compliance step is done
//   INTENT_FAILED    {intentId, reason}     a step was rejected (or the intent ended)
//   INTENT_DISMISSED {intentId}             the customer pressed Close

// While a step is under review the page asks every 2 s; while a form is shown, every
// 15 s, so an intent that expires (or a link that does) is noticed without a submit.
const REVIEW_POLL_MS = 2000;
const WATCH_POLL_MS = 15000;
// Intent statuses after which nothing can be resumed (docs/states.md: final statuses).
const FAILED_STATUSES = ["FAILED", "EXPIRED", "CANCELLED"];

const intentId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
// The link's token, then out of the address bar and the history (a reload in this tab
// finds it in sessionStorage): the link grants access to this onboarding for an hour.
const tokenKey = `ramp-onboarding-token:${intentId}`;
const token = new URLSearchParams(location.search).get("token") || storedToken() || "";
if (new URLSearchParams(location.search).has("token")) {
  try {
    sessionStorage.setItem(tokenKey, token);
  } catch {
    // Storage refused (a blocked third-party frame): a reload needs the link again.
  }
  history.replaceState(null, "", location.pathname);
}

function storedToken() {
  try {
    return sessionStorage.getItem(tokenKey);
  } catch {
    return null;
  }
}
const apiBase = new URL(`../v1/onboarding/${encodeURIComponent(intentId)}`, location.href);
const embedded = window.parent !== window;

const app = document.getElementById("app");
const live = document.getElementById("live");
const closeButton = document.getElementById("close");

let messages = {};
let view = null;
let screenKey = null;
let pollTimer = null;
let dismissed = false;
let announcedEnd = false;
// What the customer's wallet signs next (issue 27): undefined until asked, null when
// nothing is, else the request of GET /signature.
let signing = undefined;
const completedSteps = new Set();

// --- texts --------------------------------------------------------------------------

function t(key, vars = {}) {
  const found = key.split(".").reduce((node, part) => (node == null ? node : node[part]), messages);
  const text = typeof found === "string" ? found : key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

function fieldText(name, part) {
  const entry = messages.fields && messages.fields[name];
  return entry && entry[part] ? entry[part] : null;
}

function countryNames() {
  try {
    return new Intl.DisplayNames([document.documentElement.lang || "en"], { type: "region" });
  } catch {
    return null;
  }
}

function formatBytes(bytes) {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MB` : `${Math.round(bytes / 1024)} KB`;
}

// --- DOM helpers ----------------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function announce(text) {
  live.textContent = "";
  // A fresh text node, so screen readers announce a repeated message again.
  window.setTimeout(() => { live.textContent = text; }, 30);
}

function fieldId(name) {
  return `field-${name.replace(/[^A-Za-z0-9]/g, "-")}`;
}

// --- talking to the embedding page ------------------------------------------------------

function parentOrigin() {
  if (!embedded) return null;
  if (location.ancestorOrigins && location.ancestorOrigins.length > 0) return location.ancestorOrigins[0];
  try {
    return document.referrer ? new URL(document.referrer).origin : null;
  } catch {
    return null;
  }
}

function originAllowed(origin, allowed) {
  if (!origin || origin === "null") return false;
  return allowed.some((entry) => {
    if (entry === origin) return true;
    if (entry.endsWith(":*")) {
      const base = entry.slice(0, -2);
      return origin === base || (origin.startsWith(`${base}:`) && /^\d+$/.test(origin.slice(base.length + 1)));
    }
    return false;
  });
}

function post(type, data) {
  if (!embedded || !view) return;
  const origin = parentOrigin();
  // Never "*": only an origin the project allowed hears about this intent.
  if (!originAllowed(origin, view.embedOrigins)) return;
  window.parent.postMessage({ type, data }, origin);
}

function redirectUrl(status) {
  if (!view || !view.redirectUrl) return null;
  const url = new URL(view.redirectUrl);
  url.searchParams.set("intentId", view.intentId);
  url.searchParams.set("status", status);
  return url.toString();
}

// --- the API ------------------------------------------------------------------------------

async function api(method, path = "", body = undefined) {
  const headers = { Authorization: `Bearer ${token}`, Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(new URL(apiBase.pathname + path, location.origin), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "omit",
    cache: "no-store",
  });
  let payload = null;
  try {
    payload = await response.json();
  } catch {
    payload = null;
  }
  return { ok: response.ok, status: response.status, body: payload };
}

// --- state changes ------------------------------------------------------------------------

function accept(next, { initial = false } = {}) {
  const previous = view;
  view = next;
  for (const step of next.steps) {
    if (step.status !== "COMPLETED" || completedSteps.has(step.code)) continue;
    completedSteps.add(step.code);
    // Steps already done when the page opened are not news to the embedding page.
    if (!initial && previous) post("STEP_COMPLETED", { intentId: next.intentId, stepCode: step.code });
  }
  if (!announcedEnd && next.planStatus === "COMPLETED") {
    announcedEnd = true;
    post("INTENT_COMPLETED", { intentId: next.intentId });
  } else if (!announcedEnd && FAILED_STATUSES.includes(next.status)) {
    announcedEnd = true;
    post("INTENT_FAILED", { intentId: next.intentId, reason: next.failureReason || next.status });
  }
  render();
}

function schedulePoll(delay) {
  window.clearTimeout(pollTimer);
  pollTimer = window.setTimeout(async () => {
    const result = await api("GET").catch(() => null);
    const problem = result ? linkProblem(result) : null;
    if (problem) showProblem(problem);
    // Re-rendered only when something changed: a form keeps what the customer typed,
    // and the focus stays where it is.
    else if (result && result.ok && changed(result.body)) accept(result.body);
    else schedulePoll(delay);
  }, delay);
}

function changed(next) {
  return (
    next.status !== view.status ||
    next.planStatus !== view.planStatus ||
    next.currentStepCode !== view.currentStepCode ||
    next.steps.some(
      (step, i) =>
        !view.steps[i] ||
        view.steps[i].status !== step.status ||
        // The provider's link arrives after the intent is opened.
        JSON.stringify(view.steps[i].handoff || null) !== JSON.stringify(step.handoff || null),
    )
  );
}

function linkProblem(result) {
  if (result.status === 401) return result.body && result.body.code === "TOKEN_EXPIRED" ? "expired" : "invalid";
  if (result.status === 404) return "invalid";
  return null;
}

// --- rendering ------------------------------------------------------------------------------

// Verification is over: the intent reached a final status or every step is done. Close
// then says so instead of offering to resume.
function verificationEnded() {
  return FAILED_STATUSES.includes(view.status) || view.status === "COMPLETED" || view.planStatus === "COMPLETED";
}

function currentStep() {
  return view.steps.find((step) => step.code === view.currentStepCode) || null;
}

function stepState(step) {
  if (step.status === "COMPLETED") return "done";
  if (step.status === "REJECTED") return "rejected";
  if (step.status === "SUBMITTED") return "review";
  if (step.code === view.currentStepCode) return "current";
  return "upcoming";
}

function renderSteps() {
  const steps = view.steps;
  const position = steps.findIndex((step) => step.code === view.currentStepCode);
  const progress = position >= 0
    ? t("page.progress", { current: position + 1, total: steps.length })
    : view.planStatus === "COMPLETED" ? t("page.allDone", { total: steps.length }) : "";
  return el(
    "nav",
    { "aria-label": t("page.stepsLabel") },
    el("p", { class: "progress", text: progress }),
    el(
      "ol",
      { class: "steps" },
      steps.map((step, index) => {
        const state = stepState(step);
        const label = {
          done: t("status.COMPLETED"),
          rejected: t("status.REJECTED"),
          review: t("status.SUBMITTED"),
          current: t("status.current"),
          upcoming: t("status.upcoming"),
        }[state];
        return el(
          "li",
          { class: `step step--${state}`, "aria-current": state === "current" || state === "review" ? "step" : null },
          el("span", { class: "step__marker", "aria-hidden": "true", text: state === "done" ? "" : String(index + 1) }),
          el("span", { class: "step__name", text: t(`requirements.${step.code}.title`) }),
          el("span", { class: "visually-hidden", text: `: ${label}` }),
        );
      }),
    ),
  );
}

function panel(key, heading, ...children) {
  const title = el("h1", { class: "panel__title", id: "panel-title", tabindex: "-1", text: heading });
  // A status icon, when given first, stands above the heading.
  const icon = children[0] instanceof Node && children[0].classList.contains("panel__icon") ? children.shift() : null;
  return { key, node: el("section", { class: "panel", "aria-labelledby": "panel-title" }, icon, title, ...children) };
}

function render() {
  window.clearTimeout(pollTimer);
  document.getElementById("provider").textContent = t("page.with", { provider: view.provider.name });
  document.getElementById("amount").textContent = t("page.amount", {
    amount: view.transferAmount.amount,
    currency: view.transferAmount.currencyCode,
  });
  // After Close on an ended verification there is nothing left to close.
  closeButton.hidden = dismissed && verificationEnded();
  closeButton.textContent = t("page.cancel");
  closeButton.setAttribute("aria-label", t("page.cancelLabel"));

  let screen;
  const step = currentStep();
  if (dismissed) screen = verificationEnded() ? closedPanel() : dismissedPanel();
  else if (FAILED_STATUSES.includes(view.status)) screen = failedPanel();
  else if (view.planStatus === "COMPLETED" && !view.transaction && signing === undefined) {
    screen = signingCheckPanel();
  } else if (view.planStatus === "COMPLETED" && !view.transaction && signing) {
    screen = signingPanel(signing);
  } else if (view.planStatus === "COMPLETED") screen = completedPanel();
  else if (step && step.status === "SUBMITTED") {
    screen = reviewPanel(step);
    schedulePoll(REVIEW_POLL_MS);
  } else if (step && !step.handoff && pendingOffer(step)) {
    // Asked once per provider that holds data for this step, before its form.
    screen = consentPanel(pendingOffer(step));
  } else if (step) {
    screen = stepPanel(step);
    // At the provider's page the customer finishes elsewhere: follow it closely.
    schedulePoll(step.handoff ? REVIEW_POLL_MS : WATCH_POLL_MS);
  }
  else screen = completedPanel();

  app.replaceChildren(renderSteps(), screen.node);
  app.setAttribute("aria-busy", "false");
  document.title = `${screen.node.querySelector("h1").textContent} · ${t("page.title")}`;
  if (screen.key !== screenKey) {
    screenKey = screen.key;
    // Keyboard and screen-reader users land on the new step's heading.
    screen.node.querySelector("h1").focus();
  }
  if (screen.after) screen.after();
}

// --- compliance data asked once ------------------------------------------------------------

// Data another provider holds for this step that the customer has not answered about yet.
function pendingOffer(step) {
  return (view.sharing || []).find(
    (offer) => offer.consent === null && offer.fields.some((name) => name.startsWith(`${step.code}.`)),
  );
}

// "First name, Last name, Street address…": the labels of what would be shared.
function sharedLabels(names) {
  const labels = names.map((name) => {
    const field = name.slice(name.indexOf(".") + 1);
    return fieldText(field, "label") || field;
  });
  return [...new Set(labels)].join(", ");
}

function consentPanel(offer) {
  const provider = view.provider.name;
  const source = offer.providerName;
  const summary = el("div", { class: "summary", id: "form-summary", role: "alert" });
  const answer = async (granted, button) => {
    for (const each of buttons) each.disabled = true;
    button.textContent = t("page.submitting");
    try {
      const result = await api("POST", "/consent", { providerAccountId: offer.providerAccountId, granted });
      if (result.ok) {
        accept(result.body);
        announce(t(granted ? "sharing.shared" : "sharing.declined", { source, provider }));
        return;
      }
      if (result.status === 401) {
        showProblem((result.body || {}).code === "TOKEN_EXPIRED" ? "expired" : "invalid");
        return;
      }
      summary.textContent = (result.body || {}).message || t("page.tryAgain");
    } catch {
      summary.textContent = t("page.tryAgain");
    }
    for (const each of buttons) each.disabled = false;
    share.textContent = t("sharing.yes", { provider });
    decline.textContent = t("sharing.no");
  };
  const share = el("button", { type: "button", class: "button button--primary", text: t("sharing.yes", { provider }) });
  const decline = el("button", { type: "button", class: "button", text: t("sharing.no") });
  const buttons = [share, decline];
  share.addEventListener("click", () => answer(true, share));
  decline.addEventListener("click", () => answer(false, decline));
  return panel(
    `consent:${offer.providerAccountId}`,
    t("sharing.title", { source, provider }),
    el("p", { class: "panel__intro", text: t("sharing.intro", { source, provider }) }),
    el("p", { class: "sharing__fields", text: sharedLabels(offer.fields) }),
    el("p", { class: "field__hint", text: t("sharing.privacy", { source, provider }) }),
    summary,
    el("div", { class: "actions" }, share, decline),
  );
}

// --- wallet signatures -----------------------------------------------------------------------

function signingCheckPanel() {
  const screen = panel("signing:check", t("signing.checking"),
    el("div", { class: "panel__icon panel__icon--wait", "aria-hidden": "true" }));
  screen.after = async () => {
    const answer = await api("GET", "/signature");
    signing = answer.ok && answer.body ? answer.body : null;
    render();
  };
  return screen;
}

function hexOf(text) {
  return "0x" + Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, "0")).join("");
}

function signingPanel(request) {
  const kind = request.purpose === "LINK_ADDRESS" ? "link" : "redeem";
  const problem = el("div", { class: "summary", role: "alert", hidden: true });
  const message = el("pre", { class: "signing__message", id: "signing-message", text: request.message });
  const pasted = el("textarea", { class: "textarea", id: "signing-paste", rows: 3, spellcheck: "false", autocomplete: "off" });
  const show = (text) => {
    problem.textContent = text;
    problem.hidden = !text;
  };
  const send = async (signature) => {
    show("");
    const answer = await api("POST", "/signature", { purpose: request.purpose, message: request.message, signature });
    if (answer.ok) {
      announce(t(`signing.${answer.body.outcome === "STORED" ? "stored" : "linked"}`));
      signing = answer.body.outcome === "STORED" ? null : undefined;
      render();
    } else {
      show(answer.body && answer.body.message ? t("signing.refused", { reason: answer.body.message }) : t("page.tryAgain"));
    }
  };
  const signButton = el("button", { type: "button", class: "button button--primary", text: t("signing.sign") });
  signButton.addEventListener("click", async () => {
    if (!window.ethereum) return show(t("signing.noWallet"));
    try {
      const accounts = await window.ethereum.request({ method: "eth_requestAccounts" });
      // The wallet must be the one the provider knows: checked before anything is signed.
      if (!accounts.some((account) => account.toLowerCase() === request.address.toLowerCase())) {
        return show(t("signing.wrongAccount", { address: request.address }));
      }
      const signature = await window.ethereum.request({ method: "personal_sign", params: [hexOf(request.message), request.address] });
      await send(signature);
    } catch (error) {
      show(error && error.code === 4001 ? t("signing.declined") : t("page.tryAgain"));
    }
  });
  const pasteButton = el("button", { type: "button", class: "button", text: t("signing.submitPasted") });
  pasteButton.addEventListener("click", () => {
    const value = pasted.value.trim();
    if (!/^0x([0-9a-fA-F]{2})*$/.test(value)) return show(t("signing.notHex"));
    return send(value);
  });
  return panel(
    `signing:${request.purpose}`,
    t(`signing.${kind}Title`),
    el("p", { class: "panel__intro", text: t(`signing.${kind}Intro`, { provider: view.provider.name, address: request.address }) }),
    el("label", { for: "signing-message", text: t("signing.messageLabel") }),
    message,
    problem,
    el("div", { class: "actions" }, signButton),
    el("details", { class: "signing__paste" },
      el("summary", { text: t("signing.pasteSummary") }),
      el("label", { for: "signing-paste", text: t("signing.pasteLabel") }),
      pasted,
      el("div", { class: "actions" }, pasteButton)),
  );
}

function reviewPanel(step) {
  return panel(
    `review:${step.code}`,
    t("review.title"),
    el("div", { class: "panel__icon panel__icon--wait", "aria-hidden": "true" }),
    el("p", { text: t(`requirements.${step.code}.title`) }),
    el("p", { class: "panel__intro", text: t("review.message") }),
  );
}

function failedPanel() {
  const rejected = view.steps.find((step) => step.status === "REJECTED");
  const reason = rejected ? rejected.reason : view.failureReason;
  const message = view.status === "FAILED" ? t("failed.message") : t(`failed.${view.status}`);
  const back = !embedded ? redirectUrl(view.status) : null;
  return panel(
    `failed:${view.status}`,
    t("failed.title"),
    el("div", { class: "panel__icon panel__icon--error", "aria-hidden": "true" }),
    el("p", { text: message }),
    reason ? el("p", { class: "panel__intro", text: t("failed.reason", { reason }) }) : null,
    back ? el("div", { class: "actions" }, el("a", { class: "button button--primary", href: back, text: t("completed.continue") })) : null,
  );
}

function dismissedPanel() {
  return panel(
    "dismissed",
    t("dismissed.title"),
    el("p", { text: t("dismissed.message") }),
    el(
      "div",
      { class: "actions" },
      el("button", {
        type: "button",
        class: "button button--primary",
        text: t("dismissed.resume"),
        onclick: () => { dismissed = false; screenKey = null; render(); },
      }),
    ),
  );
}

function closedPanel() {
  if (FAILED_STATUSES.includes(view.status)) {
    const message = view.status === "FAILED" ? t("failed.message") : t(`failed.${view.status}`);
    return panel(
      `closed:${view.status}`,
      t("closed.title"),
      el("div", { class: "panel__icon panel__icon--error", "aria-hidden": "true" }),
      el("p", { text: message }),
      el("p", { class: "panel__intro", text: t("closed.message") }),
    );
  }
  const transaction = view.transaction;
  const deposit = transaction && transaction.depositInstructions.length > 0;
  return panel(
    "closed:complete",
    t("closed.completeTitle"),
    el("div", { class: "panel__icon panel__icon--ok", "aria-hidden": "true" }),
    el("p", { text: t("closed.completeMessage") }),
    // The deposit details stay within reach: the customer still has to send the money.
    deposit
      ? el(
        "div",
        { class: "actions" },
        el("button", {
          type: "button",
          class: "button button--primary",
          text: t("closed.showDeposit"),
          onclick: () => { dismissed = false; screenKey = null; render(); },
        }),
      )
      : null,
  );
}

function completedPanel() {
  const transaction = view.transaction;
  const instructions = transaction ? transaction.depositInstructions : [];
  const next = !embedded ? redirectUrl(view.status) : null;
  const children = [el("div", { class: "panel__icon panel__icon--ok", "aria-hidden": "true" })];
  if (instructions.length > 0) {
    children.push(el("h2", { text: t("completed.depositTitle") }), el("p", { class: "panel__intro", text: t("completed.depositIntro") }));
    for (const instruction of instructions) children.push(depositDetails(instruction));
    if (next) children.push(el("div", { class: "actions" }, el("a", { class: "button button--primary", href: next, text: t("completed.continue") })));
  } else {
    children.push(el("p", { text: t("completed.returnToApp") }));
    if (!embedded && !next) children.push(el("p", { class: "panel__intro", text: t("completed.closeWindow") }));
  }
  const screen = panel(`completed:${transaction ? "deposit" : "return"}`, t("completed.title"), ...children);
  // Outside an iframe with nothing left to show: back to the app at once.
  if (next && instructions.length === 0) screen.after = () => window.location.assign(next);
  return screen;
}

function copyControl(value, what) {
  return el("button", {
    type: "button",
    class: "button button--small",
    "aria-label": t("deposit.copyLabel", { what }),
    text: t("deposit.copy"),
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(value);
      } catch {
        // Clipboard access may be denied inside an iframe: fall back to a selection.
        const area = el("textarea", { class: "visually-hidden", readonly: true });
        area.value = value;
        document.body.append(area);
        area.select();
        document.execCommand("copy");
        area.remove();
      }
      announce(t("deposit.copied", { what }));
    },
  });
}

function row(label, value, { copy = false, key = false, hint = null } = {}) {
  return el(
    "div",
    { class: `details__row${key ? " details__row--key" : ""}` },
    el("dt", { text: label }),
    el("dd", {}, el("span", { class: "details__value", text: value }), copy ? copyControl(value, label) : null),
    hint ? el("p", { class: "field__hint", text: hint }) : null,
  );
}

function depositDetails(instruction) {
  const data = instruction.instructions;
  if (instruction.type === "BANK") {
    const identifiers = Object.entries(data.accountIdentifier || {}).map(([name, value]) =>
      row(t(`deposit.identifiers.${name}`), value, { copy: true }));
    return el(
      "dl",
      { class: "details" },
      row(t("deposit.amount"), `${data.amount} ${data.currencyCode}`, { copy: true }),
      row(t("deposit.reference"), data.reference, { copy: true, key: true, hint: t("deposit.referenceHint") }),
      row(t("deposit.beneficiaryName"), data.beneficiaryName),
      row(t("deposit.bankName"), data.bankName),
      ...identifiers,
      row(t("deposit.rail"), data.rail),
    );
  }
  return el(
    "div",
    {},
    instruction.qrCode ? el("img", { class: "qr", src: instruction.qrCode, alt: t("deposit.qrAlt"), width: "192", height: "192" }) : null,
    el(
      "dl",
      { class: "details" },
      row(t("deposit.address"), data.address, { copy: true, key: true }),
      row(t("deposit.amount"), `${data.amount} ${data.currencyCode}`, { copy: true }),
      row(t("deposit.chain"), data.chainId ? `${data.chain} (${data.chainId})` : data.chain),
      data.tokenContract ? row(t("deposit.tokenContract"), data.tokenContract, { copy: true }) : null,
    ),
  );
}

// --- forms ------------------------------------------------------------------------------------

function labelFor(field) {
  return fieldText(field.name, "label") || field.name;
}

function control(field) {
  const id = fieldId(field.name);
  const common = { id, name: field.name, required: field.required, "aria-describedby": `${id}-hint ${id}-error` };
  if (field.kind === "textarea") return el("textarea", { ...common, class: "textarea", maxlength: field.maxLength });
  if (field.kind === "select" || field.kind === "country") {
    let options = field.options.map((value) => ({ value, label: t(`options.${value}`) }));
    if (field.kind === "country") {
      const names = countryNames();
      options = field.options
        .map((value) => ({ value, label: names ? names.of(value) || value : value }))
        .sort((a, b) => a.label.localeCompare(b.label));
    }
    return el(
      "select",
      { ...common, class: "select", autocomplete: field.autocomplete },
      el("option", { value: "", text: t("page.select") }),
      options.map((option) => el("option", { value: option.value, text: option.label })),
    );
  }
  if (field.kind === "file") {
    return el("input", { ...common, class: "input", type: "file", accept: field.accept.join(",") });
  }
  const type = field.kind === "date" ? "date" : field.kind === "tel" ? "tel" : "text";
  return el("input", { ...common, class: "input", type, maxlength: field.maxLength, autocomplete: field.autocomplete, spellcheck: "false", inputmode: field.kind === "tel" ? "tel" : undefined });
}

function fileHint(field) {
  const types = field.accept.map((type) => t(`files.types.${type}`)).join(", ");
  return t("files.hint", { types, size: formatBytes(field.maxBytes) });
}

function fieldBlock(field) {
  const id = fieldId(field.name);
  if (field.kind === "checkbox") {
    return el(
      "div",
      { class: "field" },
      el(
        "label",
        { class: "checkbox", for: id },
        el("input", { id, name: field.name, type: "checkbox", required: field.required, "aria-describedby": `${id}-error` }),
        el("span", { text: labelFor(field) }),
      ),
      el("p", { class: "field__error", id: `${id}-error` }),
    );
  }
  const hint = field.kind === "file" ? fileHint(field) : fieldText(field.name, "hint");
  return el(
    "div",
    { class: "field" },
    el(
      "label",
      { class: "field__label", for: id },
      labelFor(field),
      field.required ? null : el("span", { class: "field__optional", text: ` (${t("page.optional")})` }),
    ),
    el("p", { class: "field__hint", id: `${id}-hint`, text: hint || "" }),
    control(field),
    el("p", { class: "field__error", id: `${id}-error` }),
  );
}

// A step the provider collects on its own page (Bridge's KYC and terms links): a link
// that opens it in a new tab, and the page keeps polling the step's status.
function handoffPanel(step) {
  const provider = view.provider.name;
  const body = [el("p", { class: "panel__intro", text: t("handoff.intro", { provider }) })];
  if (step.handoff.mode === "LINK" && step.handoff.url) {
    body.push(
      el(
        "div",
        { class: "actions" },
        el("a", {
          class: "button button--primary",
          href: step.handoff.url,
          target: "_blank",
          rel: "noopener noreferrer",
          text: `${t("handoff.open", { provider })} ${t("handoff.newTab")}`,
        }),
      ),
    );
  } else {
    body[0] = el("p", { class: "panel__intro", text: t("handoff.wait", { provider }) });
  }
  return panel(`handoff:${step.code}`, t(`requirements.${step.code}.title`), ...body);
}

// The fields the customer types: those consented data fills are not asked again, nor
// the optional rest of a group it fills (an address shared whole, without a line 2).
function askedFields(step) {
  const fields = step.fields || [];
  const group = (field) => (field.name.includes(".") ? field.name.slice(0, field.name.indexOf(".")) : null);
  const shared = new Set(fields.filter((field) => field.prefilledFrom).map(group).filter(Boolean));
  return fields.filter((field) => !field.prefilledFrom && (field.required || !shared.has(group(field))));
}

function stepPanel(step) {
  if (step.handoff) return handoffPanel(step);
  const fields = askedFields(step);
  const form = el("form", { class: "form", novalidate: true });
  const filled = (step.fields || []).filter((field) => field.prefilledFrom);
  if (filled.length) {
    const sources = [...new Set(filled.map((field) => field.prefilledFrom))].join(", ");
    form.append(
      el("p", { class: "sharing__note", text: t("sharing.filled", { source: sources, fields: sharedLabels(filled.map((field) => `${step.code}.${field.name}`)) }) }),
    );
  }
  if (step.terms) {
    form.append(
      el(
        "div",
        { class: "terms", tabindex: "0", role: "region", "aria-label": step.terms.title },
        el("h2", { text: step.terms.title }),
        step.terms.paragraphs.map((text) => el("p", { text })),
      ),
    );
  }
  // Dotted names (address.city) are grouped in a fieldset per prefix, in order.
  const groups = new Map();
  for (const field of fields) {
    const dot = field.name.indexOf(".");
    if (dot < 0) {
      form.append(fieldBlock(field));
      continue;
    }
    const prefix = field.name.slice(0, dot);
    if (!groups.has(prefix)) {
      const fieldset = el("fieldset", { class: "fieldset" }, el("legend", { text: t(`groups.${prefix}`) }));
      groups.set(prefix, fieldset);
      form.append(fieldset);
    }
    groups.get(prefix).append(fieldBlock(field));
  }
  const summary = el("div", { class: "summary", id: "form-summary", role: "alert" });
  // A field's error goes as soon as the customer changes that field; the summary stays
  // until the next submit says what is still wrong.
  const clearFieldError = (event) => {
    const input = event.target;
    if (!input.id || input.getAttribute("aria-invalid") !== "true") return;
    input.removeAttribute("aria-invalid");
    const error = form.querySelector(`#${input.id}-error`);
    if (error) error.textContent = "";
  };
  form.addEventListener("input", clearFieldError);
  form.addEventListener("change", clearFieldError);
  const submit = el("button", { type: "submit", class: "button button--primary", text: t("page.submit") });
  form.append(summary, el("div", { class: "actions" }, submit));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    submitStep(step, form, submit, summary);
  });
  return panel(
    `step:${step.code}`,
    t(`requirements.${step.code}.title`),
    el("p", { class: "panel__intro", text: t(`requirements.${step.code}.intro`) }),
    form,
  );
}

function setPath(target, dotted, value) {
  const parts = dotted.split(".");
  let node = target;
  for (const part of parts.slice(0, -1)) node = node[part] ??= {};
  node[parts[parts.length - 1]] = value;
}

function readFile(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(",", 2)[1] || "");
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

function guessType(file) {
  if (file.type) return file.type;
  const name = file.name.toLowerCase();
  if (name.endsWith(".png")) return "image/png";
  if (name.endsWith(".jpg") || name.endsWith(".jpeg")) return "image/jpeg";
  if (name.endsWith(".pdf")) return "application/pdf";
  return "";
}

function showErrors(form, summary, errors) {
  for (const node of form.querySelectorAll(".field__error")) node.textContent = "";
  for (const node of form.querySelectorAll("[aria-invalid]")) node.removeAttribute("aria-invalid");
  let first = null;
  for (const [name, reason] of errors) {
    const input = form.querySelector(`#${fieldId(name)}`);
    const target = form.querySelector(`#${fieldId(name)}-error`);
    if (input && target) {
      target.textContent = reason;
      input.setAttribute("aria-invalid", "true");
      first = first || input;
    }
  }
  summary.textContent = errors.length ? t("page.errorSummary") : "";
  if (first) first.focus();
  else if (errors.length) summary.textContent = errors.map(([, reason]) => reason).join(" ");
}

async function collect(step, form) {
  const body = {};
  const errors = [];
  for (const field of askedFields(step)) {
    const input = form.querySelector(`#${fieldId(field.name)}`);
    if (field.kind === "checkbox") {
      if (field.required && !input.checked) errors.push([field.name, t("page.required")]);
      setPath(body, field.name, input.checked);
      continue;
    }
    if (field.kind === "file") {
      const file = input.files && input.files[0];
      if (!file) {
        if (field.required) errors.push([field.name, t("page.required")]);
        continue;
      }
      const type = guessType(file);
      const types = field.accept.map((accepted) => t(`files.types.${accepted}`)).join(", ");
      if (!field.accept.includes(type)) {
        errors.push([field.name, t("files.wrongType", { types })]);
        continue;
      }
      if (file.size > field.maxBytes) {
        errors.push([field.name, t("files.tooLarge", { size: formatBytes(field.maxBytes) })]);
        continue;
      }
      try {
        setPath(body, field.name, { filename: file.name, contentType: type, data: await readFile(file) });
      } catch {
        errors.push([field.name, t("files.unreadable")]);
      }
      continue;
    }
    const value = input.value.trim();
    if (!value) {
      if (field.required) errors.push([field.name, t("page.required")]);
      continue;
    }
    setPath(body, field.name, value);
  }
  if (step.terms) body.termsVersion = step.terms.version;
  return { body, errors };
}

async function submitStep(step, form, submit, summary) {
  submit.disabled = true;
  submit.textContent = t("page.submitting");
  form.setAttribute("aria-busy", "true");
  try {
    const { body, errors } = await collect(step, form);
    if (errors.length) {
      showErrors(form, summary, errors);
      return;
    }
    const result = await api("POST", `/steps/${encodeURIComponent(step.code)}`, body);
    if (result.ok) {
      accept(result.body);
      return;
    }
    const error = result.body || {};
    if (result.status === 400 && error.details && Array.isArray(error.details.fields)) {
      // Pointers such as /address/postalCode name the field address.postalCode.
      showErrors(form, summary, error.details.fields.map((item) => [item.pointer.slice(1).replaceAll("/", "."), item.reason]));
      return;
    }
    if (result.status === 409) {
      const fresh = await api("GET");
      if (fresh.ok) {
        accept(fresh.body);
        announce(t("page.stepChanged"));
        return;
      }
    }
    if (result.status === 401) {
      showProblem(error.code === "TOKEN_EXPIRED" ? "expired" : "invalid");
      return;
    }
    summary.textContent = error.message || t("page.tryAgain");
  } catch {
    summary.textContent = t("page.tryAgain");
  } finally {
    submit.disabled = false;
    submit.textContent = t("page.submit");
    form.removeAttribute("aria-busy");
  }
}

// --- errors and start -----------------------------------------------------------------------------

function showProblem(kind) {
  closeButton.hidden = true;
  const title = el("h1", { class: "panel__title", id: "panel-title", tabindex: "-1", text: t(`errors.${kind}.title`) });
  app.replaceChildren(
    el(
      "section",
      { class: "panel panel--error", "aria-labelledby": "panel-title" },
      el("div", { class: "panel__icon panel__icon--error", "aria-hidden": "true" }),
      title,
      el("p", { text: t(`errors.${kind}.message`) }),
    ),
  );
  app.setAttribute("aria-busy", "false");
  document.title = t(`errors.${kind}.title`);
  title.focus();
}

closeButton.addEventListener("click", async () => {
  if (!view) return;
  // The intent may have ended since the last read, and what Close shows depends on it.
  const fresh = await api("GET").catch(() => null);
  if (fresh && fresh.ok && changed(fresh.body)) accept(fresh.body);
  post("INTENT_DISMISSED", { intentId: view.intentId });
  const back = !embedded ? redirectUrl(view.status) : null;
  if (back) {
    window.location.assign(back);
    return;
  }
  dismissed = true;
  render();
});

async function start() {
  const loaded = await fetch(new URL("./messages.en.json", import.meta.url), { cache: "no-cache" });
  messages = await loaded.json();
  document.documentElement.lang = messages.lang || "en";
  document.getElementById("loading").textContent = t("page.loading");
  let result;
  try {
    result = await api("GET");
  } catch {
    showProblem("unavailable");
    return;
  }
  const problem = linkProblem(result);
  if (problem) showProblem(problem);
  else if (!result.ok) showProblem("unavailable");
  else accept(result.body, { initial: true });
}

start();
