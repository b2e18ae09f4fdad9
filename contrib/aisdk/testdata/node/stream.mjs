// Reads contrib/aisdk's UI message stream with the ai package's own
// client code: DefaultChatTransport posts and reconnects, every chunk is
// checked against uiMessageChunkSchema, readUIMessageStream assembles the
// message. Approvals are answered as Chat.addToolApprovalResponse does.
// Each assembled conversation is compared with the server's own view
// (GET {api}/{id}); the first stream of a chat is also cut after every
// chunk and resumed. Prints one JSON report; exits 0 whatever it found.
import { DefaultChatTransport, readUIMessageStream, uiMessageChunkSchema } from "ai";

const base = process.argv[2];
const api = base + "/api/chat";
const schema = uiMessageChunkSchema();
const transport = new DefaultChatTransport({ api });
const report = { chunks: 0, invalid: [], failures: [], types: {}, cuts: 0, beyond: 0, chats: 0 };

// read assembles a stream of chunks into a message, validating each; with
// cutAfter, it aborts the request after that many chunks.
async function read(id, stream, message, cutAfter, abort) {
  const [forMessage, forCheck] = stream.tee();
  let seen = 0, beyond = false;
  const check = (async () => {
    const r = forCheck.getReader();
    try {
      for (;;) {
        const { value, done } = await r.read();
        if (done) return;
        seen++;
        report.chunks++;
        report.types[value.type] = (report.types[value.type] || 0) + 1;
        const v = await schema.validate(value);
        if (!v.success) report.invalid.push(value);
        if (cutAfter !== undefined && seen >= cutAfter) { abort.abort(); return; }
        // A stream shorter than the cut (the model's chunking varies by
        // request) is let end.
        if (cutAfter !== undefined && value.type === "finish") { beyond = true; await release(id); }
      }
    } catch { /* the cut */ }
  })();
  let last = message;
  try {
    for await (const m of readUIMessageStream({ message, stream: forMessage, terminateOnError: false })) last = m;
  } catch (e) {
    if (cutAfter === undefined) throw e;
  }
  await check;
  return { message: last, seen, beyond };
}

function release(id) {
  return fetch(base + "/release?chat=" + id, { method: "POST" });
}

function post(id, messages, abort) {
  return transport.sendMessages({ chatId: id, messages, trigger: "submit-message", messageId: undefined, abortSignal: abort?.signal });
}

// keep is what both sides mean by a message: the fields this server sends.
function keep(msgs) {
  return JSON.parse(JSON.stringify(msgs.map((m) => ({
    id: m.id, role: m.role,
    parts: m.parts.map((p) => {
      const out = {};
      for (const k of ["type", "text", "state", "toolCallId", "input", "output", "errorText"]) if (p[k] !== undefined && p[k] !== "") out[k] = p[k];
      if (p.approval) { out.approval = { id: p.approval.id }; if (p.approval.approved !== undefined) out.approval.approved = p.approval.approved; if (p.approval.reason) out.approval.reason = p.approval.reason; }
      return out;
    }),
  }))));
}

async function serverView(id) {
  const r = await fetch(api + "/" + id);
  return (await r.json()).messages;
}

function same(what, got, want) {
  const a = JSON.stringify(keep(got)), b = JSON.stringify(keep(want));
  if (a !== b) report.failures.push({ what, got: keep(got), want: keep(want) });
}

// answer answers the approval requests of msg: approved, then denied.
let nextVerdict = true;
function answer(msg) {
  let n = 0;
  for (const p of msg.parts) {
    if (p.state !== "approval-requested") continue;
    p.state = "approval-responded";
    p.approval = { ...p.approval, approved: nextVerdict, ...(nextVerdict ? {} : { reason: "not that file" }) };
    nextVerdict = !nextVerdict;
    n++;
  }
  return n;
}

// chat runs one chat to its end; cut(k, i) says after how many chunks of
// its i-th stream to cut (undefined: none).
async function chat(id, cut) {
  report.chats++;
  nextVerdict = true;
  const msgs = [{ id: "u1", role: "user", parts: [{ type: "text", text: "Summarise a.txt" }] }];
  for (let i = 0; ; i++) {
    const prev = msgs[msgs.length - 1].role === "assistant" ? structuredClone(msgs[msgs.length - 1]) : undefined;
    const abort = new AbortController();
    const k = cut(i);
    const stream = await post(id, structuredClone(msgs), abort);
    if (k === undefined) await release(id);
    let got = await read(id, stream, prev && structuredClone(prev), k, abort);
    if (got.beyond) {
      report.beyond++;
    } else if (k !== undefined) {
      report.cuts++;
      const again = await transport.reconnectToStream({ chatId: id });
      if (again === null) { report.failures.push({ what: `${id}: nothing to resume after ${k} chunks (${got.seen} read)` }); return; }
      await release(id);
      got = await read(id, again, prev && structuredClone(prev));
      if (got.seen < k) report.failures.push({ what: `${id}: resumed ${got.seen} chunks, fewer than the ${k} before the cut` });
    }
    if (prev) msgs[msgs.length - 1] = got.message; else msgs.push(got.message);
    same(`${id} after stream ${i}`, msgs, await serverView(id));
    if (answer(msgs[msgs.length - 1]) === 0) return;
  }
}

// argv[3] and argv[4]: how many chunks the first and second streams of a
// chat have (about: the model's chunking varies by request), to cut each
// after every one of them.
try {
  await chat("whole", () => undefined);
  for (let k = 1; k <= Number(process.argv[3] || 0); k++) await chat("cut-a" + k, (i) => (i === 0 ? k : undefined));
  for (let k = 1; k <= Number(process.argv[4] || 0); k++) await chat("cut-b" + k, (i) => (i === 1 ? k : undefined));
} catch (e) {
  report.failures.push({ what: "exception", error: String((e && e.stack) || e) });
}
console.log(JSON.stringify(report));
