// The chat page: a hand-written reader of the AI SDK's UI message stream
// (no build step, no network beyond this server). It folds chunks into UI
// messages the way the ai package's processUIMessageStream does, posts
// the conversation as DefaultChatTransport does, resumes a run after a
// reload as resumeStream does, and answers approvals with buttons.
"use strict";

const api = "/api/chat";
const state = { id: "", messages: [], busy: false, inputs: {}, error: "" };

function newId() {
  const b = new Uint8Array(12);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

function chatId() {
  let id = location.hash.slice(1);
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(id)) {
    id = newId();
    history.replaceState(null, "", "#" + id);
  }
  return id;
}

// ---- the stream ----

// readStream reads a response's events and folds each chunk in.
async function readStream(resp) {
  const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value.replace(/\r\n?/g, "\n");
    let end;
    while ((end = buf.indexOf("\n\n")) >= 0) {
      const event = buf.slice(0, end);
      buf = buf.slice(end + 2);
      const data = event.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(l.startsWith("data: ") ? 6 : 5)).join("\n");
      if (data === "" || data === "[DONE]") continue;
      fold(JSON.parse(data));
      render();
    }
  }
}

function last() { return state.messages[state.messages.length - 1]; }

function toolPart(m, id) { return m.parts.find((p) => p.type.startsWith("tool-") && p.toolCallId === id); }

// fold applies one chunk, as processUIMessageStream does.
function fold(c) {
  if (c.type === "start") {
    if (!last() || last().role !== "assistant") state.messages.push({ id: c.messageId, role: "assistant", parts: [] });
    state.active = {};
    return;
  }
  const m = last();
  if (!m) return;
  let p;
  switch (c.type) {
    case "start-step": m.parts.push({ type: "step-start" }); break;
    case "text-start": case "reasoning-start":
      state.active[c.id] = m.parts.length;
      m.parts.push({ type: c.type === "text-start" ? "text" : "reasoning", text: "", state: "streaming" });
      break;
    case "text-delta": case "reasoning-delta": m.parts[state.active[c.id]].text += c.delta; break;
    case "text-end": case "reasoning-end": m.parts[state.active[c.id]].state = "done"; delete state.active[c.id]; break;
    case "tool-input-start":
      state.inputs[c.toolCallId] = "";
      m.parts.push({ type: "tool-" + c.toolName, toolCallId: c.toolCallId, state: "input-streaming" });
      break;
    case "tool-input-delta": state.inputs[c.toolCallId] += c.inputTextDelta; break;
    case "tool-input-available": case "tool-input-error":
      p = toolPart(m, c.toolCallId);
      if (!p) { p = { type: "tool-" + c.toolName, toolCallId: c.toolCallId }; m.parts.push(p); }
      p.input = c.input;
      p.state = c.type === "tool-input-available" ? "input-available" : "output-error";
      if (c.errorText) p.errorText = c.errorText;
      break;
    case "tool-approval-request": p = toolPart(m, c.toolCallId); p.state = "approval-requested"; p.approval = { id: c.approvalId }; break;
    case "tool-output-available": p = toolPart(m, c.toolCallId); p.state = "output-available"; p.output = c.output; break;
    case "tool-output-error": p = toolPart(m, c.toolCallId); p.state = "output-error"; p.errorText = c.errorText; break;
    case "tool-output-denied": p = toolPart(m, c.toolCallId); p.state = "output-denied"; break;
    case "error": state.error = c.errorText; break;
  }
}

// ---- requests ----

async function run(request) {
  state.busy = true; state.error = ""; render();
  try {
    const resp = await request();
    if (resp.status === 204) return;
    if (!resp.ok) { state.error = (await resp.text()) || resp.statusText; return; }
    await readStream(resp);
  } catch (e) {
    state.error = String(e);
  } finally {
    state.busy = false; render();
  }
  maybeAnswerApprovals();
}

function post() {
  return run(() => fetch(api, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id: state.id, messages: state.messages, trigger: "submit-message" }),
  }));
}

// An answered set of approvals goes back at once, as
// lastAssistantMessageIsCompleteWithApprovalResponses would have it.
function maybeAnswerApprovals() {
  const m = last();
  if (state.busy || !m || m.role !== "assistant") return;
  const tools = m.parts.filter((p) => p.type.startsWith("tool-"));
  if (tools.some((p) => p.state === "approval-responded") && !tools.some((p) => p.state === "approval-requested")) post();
}

function answer(part, approved) {
  part.state = "approval-responded";
  part.approval = { id: part.approval.id, approved };
  if (!approved) part.approval.reason = "the user said no";
  render();
  maybeAnswerApprovals();
}

async function load() {
  state.id = chatId();
  state.messages = []; state.inputs = {}; state.error = "";
  const resp = await fetch(api + "/" + state.id);
  if (resp.ok) state.messages = (await resp.json()).messages;
  render();
  await run(() => fetch(api + "/" + state.id + "/stream"));
  // A run that ended between the two requests: take its saved result.
  if (!state.messages.length || last().role === "user") {
    const again = await fetch(api + "/" + state.id);
    if (again.ok) { state.messages = (await again.json()).messages; render(); }
  }
}

// ---- the page ----

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

function pretty(v) { return typeof v === "string" ? v : JSON.stringify(v, null, 2); }

function renderTool(p) {
  const name = p.type.slice(5);
  const card = el("div", { class: "tool", "data-testid": "tool", "data-tool": name, "data-state": p.state },
    el("div", { class: "head" }, el("span", { class: "name" }, name), el("span", { class: "badge " + p.state }, p.state)));
  const input = p.input !== undefined ? pretty(p.input) : state.inputs[p.toolCallId];
  if (input) card.append(el("pre", { "data-testid": "tool-input" }, input));
  if (p.state === "output-available") card.append(el("pre", { "data-testid": "tool-output" }, pretty(p.output)));
  if (p.state === "output-error") card.append(el("pre", { class: "error", "data-testid": "tool-error" }, p.errorText));
  if (p.state === "output-denied") card.append(el("div", { class: "error" }, "denied" + (p.approval && p.approval.reason ? ": " + p.approval.reason : "")));
  if (p.state === "approval-requested") {
    card.append(el("div", { class: "approval" }, "Run this call?",
      el("button", { class: "approve", "data-testid": "approve", onclick: () => answer(p, true) }, "Approve"),
      el("button", { class: "deny", "data-testid": "deny", onclick: () => answer(p, false) }, "Deny")));
  }
  return card;
}

function renderMessage(m) {
  if (m.role === "user") return el("div", { class: "msg user", "data-testid": "user" }, m.parts.map((p) => p.text || "").join(""));
  const box = el("div", { class: "msg assistant", "data-testid": "assistant" });
  let step = el("div", { class: "step" });
  for (const p of m.parts) {
    if (p.type === "step-start") { if (step.childNodes.length) box.append(step); step = el("div", { class: "step" }); }
    else if (p.type === "text") step.append(el("div", { class: "text", "data-testid": "text" }, p.text));
    else if (p.type === "reasoning") step.append(el("details", { class: "reasoning" }, el("summary", {}, "reasoning"), el("pre", {}, p.text)));
    else if (p.type.startsWith("tool-")) step.append(renderTool(p));
  }
  box.append(step);
  return box;
}

// render redraws at most every 30 ms; a timer, not requestAnimationFrame,
// so a page in a background tab keeps up too.
let scheduled = false;
function render() {
  if (scheduled) return;
  scheduled = true;
  setTimeout(() => {
    scheduled = false;
    const list = document.getElementById("messages");
    const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 40;
    list.replaceChildren(...state.messages.map(renderMessage));
    if (state.error) list.append(el("div", { class: "error", "data-testid": "error" }, state.error));
    if (atBottom) list.scrollTop = list.scrollHeight;
    document.getElementById("status").textContent = state.busy ? "streaming…" : "ready";
    document.getElementById("send").disabled = state.busy;
  }, 30);
}

document.getElementById("composer").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const input = document.getElementById("prompt");
  const text = input.value.trim();
  if (!text || state.busy) return;
  input.value = "";
  state.messages.push({ id: newId(), role: "user", parts: [{ type: "text", text }] });
  post();
});
document.getElementById("new-chat").addEventListener("click", () => { location.hash = newId(); });
window.addEventListener("hashchange", load);
fetch("/mode").then((r) => r.text()).then((t) => { document.getElementById("mode").textContent = t; });
load();
