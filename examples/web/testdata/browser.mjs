// Drives the chat page in headless Chromium (@sparticuz/chromium's binary,
// puppeteer-core): a run approved, a run denied, a run reloaded mid-stream
// and resumed. Prints one JSON report; exits 0 whatever it found.
import chromium from "@sparticuz/chromium";
import puppeteer from "puppeteer-core";

const [url, shotDir] = process.argv.slice(2);
const report = { steps: [], failures: [], browser: "", screenshots: [], lastSamples: [] };
const step = (s) => report.steps.push(s);
const fail = (s) => report.failures.push(s);

// watch records, at each change of the messages, the status line and the
// tool cards shown (a mutation observer, not a timer, so a loaded machine
// loses no state).
const watch = () => {
  window.__samples = [];
  const sample = () => {
    const tools = [...document.querySelectorAll("[data-testid=tool]")].map((t) => t.dataset.tool + ":" + t.dataset.state);
    const text = [...document.querySelectorAll("[data-testid=text]")].map((t) => t.textContent).join("");
    window.__samples.push({ status: document.getElementById("status")?.textContent, tools, textLen: text.length });
  };
  document.addEventListener("DOMContentLoaded", () => {
    new MutationObserver(sample).observe(document.body, { childList: true, subtree: true, characterData: true });
  });
};

const browser = await puppeteer.launch({ executablePath: await chromium.executablePath(), args: chromium.args, headless: true });
try {
  report.browser = await browser.version();
  const page = await browser.newPage();
  await page.setViewport({ width: 1100, height: 1400 });
  await page.evaluateOnNewDocument(watch);
  page.setDefaultTimeout(90000);
  const samples = () => page.evaluate(() => window.__samples);
  const ask = async (text) => {
    await page.type("#prompt", text);
    await click("#send");
  };
  // The page redraws its messages on every chunk, so elements are found
  // and clicked in one step, in the page, by polling from here (which also
  // holds across a reload).
  const until = async (what, fn, arg) => {
    const deadline = Date.now() + 90000;
    let last = "";
    for (;;) {
      try { if (await page.evaluate(fn, arg)) return; } catch (e) { last = String(e); /* navigating */ }
      if (Date.now() > deadline) {
        const dom = await page.evaluate(() => document.querySelector("[data-tool=write_file]")?.outerHTML.slice(0, 300) + " url " + location.href).catch(String);
        throw new Error("timed out waiting for " + what + (last && ": " + last) + "; the page: " + dom);
      }
      await new Promise((r) => setTimeout(r, 40));
    }
  };
  const idle = () => until("the page to be ready", () => document.getElementById("status").textContent === "ready" && !document.getElementById("send").disabled);
  const waitFor = (sel) => until(sel, (sel) => document.querySelector(sel) !== null, sel);
  const click = (sel) => until(sel, (sel) => { const e = document.querySelector(sel); if (e) e.click(); return e !== null; }, sel);


  // 1. Streamed text, a tool call's input and output, a write approved.
  await page.goto(url + "/#chat-approve");
  await idle();
  await ask("What is this project?");
  await waitFor("[data-tool=list_files][data-state=output-available] [data-testid=tool-output]");
  step("list_files output shown");
  await waitFor("[data-tool=write_file][data-state=approval-requested] [data-testid=approve]");
  const input = await page.$eval("[data-tool=write_file] [data-testid=tool-input]", (e) => e.textContent);
  if (!input.includes("AIRLOCK-NOTES.md")) fail("the write's input does not show its path: " + input);
  let s = await samples();
  const lens = new Set(s.filter((x) => x.status === "streaming…").map((x) => x.textLen));
  if (lens.size < 3) fail(`the text did not stream: ${lens.size} lengths seen while streaming`);
  if (!s.some((x) => x.tools.some((t) => t.endsWith(":input-streaming")))) fail("no tool input was seen forming (input-streaming)");
  step("text streamed, input formed");
  await click("[data-testid=approve]");
  await waitFor("[data-tool=write_file][data-state=output-available]");
  await idle();
  const answer = await page.$$eval("[data-testid=text]", (es) => es.map((e) => e.textContent).join("\n"));
  if (!answer.includes("AIRLOCK-NOTES.md")) fail("the final answer does not tell of the write: " + answer.slice(-300));
  step("write approved and run");
  report.screenshots.push(shotDir + "/approved.png");
  await page.screenshot({ path: shotDir + "/approved.png", fullPage: true });

  // 2. A write denied.
  await click("#new-chat");
  await until("an empty chat", () => document.querySelectorAll("[data-testid=assistant]").length === 0);
  await idle();
  await ask("What is this project?");
  await waitFor("[data-tool=write_file][data-state=approval-requested] [data-testid=deny]");
  await click("[data-testid=deny]");
  await waitFor("[data-tool=write_file][data-state=output-denied]");
  await idle();
  step("write denied");

  // 3. Reloaded mid-stream: the run goes on in the page.
  await click("#new-chat");
  await until("an empty chat", () => document.querySelectorAll("[data-testid=assistant]").length === 0);
  await idle();
  await ask("What is this project?");
  await waitFor("[data-tool=list_files]");
  await page.reload({ waitUntil: "domcontentloaded" });
  await waitFor("[data-tool=write_file][data-state=approval-requested] [data-testid=approve]");
  s = await samples();
  // The saved chat holds only the question while the run goes on, so
  // tool cards shown while streaming came from the resumed stream.
  if (!s.some((x) => x.status === "streaming…" && x.tools.length > 0)) fail("after the reload, nothing streamed: the run was not resumed");
  step("reloaded mid-stream and resumed");
  await click("[data-testid=approve]");
  await waitFor("[data-tool=write_file][data-state=output-available]");
  await idle();
  step("resumed run finished");
  report.screenshots.push(shotDir + "/resumed.png");
  await page.screenshot({ path: shotDir + "/resumed.png", fullPage: true });
} catch (e) {
  fail(String((e && e.stack) || e));
  try {
    const page = (await browser.pages()).at(-1);
    await page.screenshot({ path: shotDir + "/failure.png" });
    report.screenshots.push(shotDir + "/failure.png");
    report.lastSamples = (await page.evaluate(() => window.__samples)).slice(-3);
  } catch { /* the page is gone */ }
} finally {
  await browser.close();
}
console.log(JSON.stringify(report));
