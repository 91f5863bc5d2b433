// The modules a check's script sees in place of `@playwright/test` and `playwright`: the
// runtime's own, plus an observer on every browser context that records the console, the
// network, page errors and web vitals, and hands them to the reporter as a test attachment.
// They are written into each job's folder as CommonJS source, so they run inside Playwright's
// test runner exactly like the user's own files.

/** In each page, before any of its scripts: collect the web vitals as the browser reports them. */
const VITALS = `(() => {
  const v = { LCP: null, CLS: 0, TBT: 0, FCP: null, TTFB: null };
  window.__outpostVitals = v;
  const watch = (type, fn) => { try { new PerformanceObserver((l) => l.getEntries().forEach(fn)).observe({ type, buffered: true }); } catch {} };
  watch('largest-contentful-paint', (e) => { v.LCP = e.startTime; });
  watch('layout-shift', (e) => { if (!e.hadRecentInput) v.CLS += e.value; });
  watch('paint', (e) => { if (e.name === 'first-contentful-paint') v.FCP = e.startTime; });
  watch('longtask', (e) => { if (v.FCP !== null && e.startTime >= v.FCP) v.TBT += Math.max(0, e.duration - 50); });
  watch('navigation', (e) => { v.TTFB = e.responseStart; });
})();`;

const OBSERVER = `
const VITALS = ${JSON.stringify(VITALS)};
const MAX_ENTRIES = 1000;
function observe(context) {
  const record = { console: [], network: [], pageErrors: [], pages: [] };
  const push = (list, item) => { if (list.length < MAX_ENTRIES) list.push(item); };
  const watchPage = (page) => {
    const entry = { url: page.url(), webVitals: null };
    record.pages.push(entry);
    page.__outpostEntry = entry;
    page.on('framenavigated', (f) => { if (f === page.mainFrame()) entry.url = f.url(); });
    page.on('console', (m) => push(record.console, { level: m.type(), text: m.text().slice(0, 2000), url: m.location().url, time: Date.now() }));
    page.on('pageerror', (e) => push(record.pageErrors, { message: String(e && e.message || e).slice(0, 2000), time: Date.now() }));
    page.on('requestfinished', async (r) => {
      const res = await r.response().catch(() => null);
      const t = r.timing();
      push(record.network, { url: r.url().slice(0, 2000), method: r.method(), resourceType: r.resourceType(), status: res ? res.status() : null, failed: false, duration: t.responseEnd > 0 ? Math.round(t.responseEnd) : null });
    });
    page.on('requestfailed', (r) => push(record.network, { url: r.url().slice(0, 2000), method: r.method(), resourceType: r.resourceType(), status: null, failed: true, error: r.failure() && r.failure().errorText }));
  };
  context.addInitScript(VITALS).catch(() => {});
  context.pages().forEach(watchPage);
  context.on('page', watchPage);
  record.collect = async () => {
    for (const page of context.pages()) {
      // A page stuck loading never answers: give up on its vitals rather than hang teardown.
      const vitals = await Promise.race([
        page.evaluate(() => window.__outpostVitals || null).catch(() => null),
        new Promise((r) => setTimeout(() => r(null), 1000)),
      ]);
      if (page.__outpostEntry && vitals) page.__outpostEntry.webVitals = vitals;
    }
    const { collect, ...plain } = record;
    return plain;
  };
  return record;
}
`;

/** `@playwright/test`: the runtime's, with a context fixture that observes. */
export function testShim(realPath: string): string {
  return `${OBSERVER}
const real = require(${JSON.stringify(realPath)});
const test = real.test.extend({
  context: async ({ context }, use, testInfo) => {
    const record = observe(context);
    await use(context);
    const data = await record.collect();
    await testInfo.attach('outpost-observations', { body: JSON.stringify(data), contentType: 'application/json' });
  },
});
module.exports = { ...real, test, default: test };
`;
}

/**
 * `playwright` for plain scripts: launch() hands out the agent's shared browser instead of
 * starting a new one (or, sandboxed, the job's own), and every context it makes is observed.
 */
export function playwrightShim(
  realPath: string,
  browser: { wsEndpoint: string } | { executablePath: string; args: string[] },
  reportFile: string,
  proxy: { server: string; bypass: string } | null = null,
): string {
  return `${OBSERVER}
const real = require(${JSON.stringify(realPath)});
const fs = require('fs');
const records = [];
/** Called when the script ends, however it ends: collects what is still open, writes it down. */
async function __outpostFlush() {
  for (const r of records) if (!r.result) r.result = await r.collect().catch(() => null);
  fs.writeFileSync(${JSON.stringify(reportFile)}, JSON.stringify(records.map((r) => r.result).filter(Boolean)));
}
async function connect() {
  const browser = ${
    'wsEndpoint' in browser
      ? `await real.chromium.connect(${JSON.stringify(browser.wsEndpoint)})`
      : `await real.chromium.launch(${JSON.stringify({ executablePath: browser.executablePath, args: browser.args })})`
  };
  const newContext = browser.newContext.bind(browser);
  // The private-target guard's proxy, if any, overrides whatever the script asks for.
  browser.newContext = async (options) => {
    const context = await newContext({ ...options, ...${JSON.stringify(proxy ? { proxy } : {})} });
    const record = observe(context);
    records.push(record);
    const close = context.close.bind(context);
    context.close = async (o) => { record.result = await record.collect(); return close(o); };
    return context;
  };
  browser.newPage = async (options) => {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    page.on('close', () => context.close().catch(() => {}));
    return page;
  };
  const close = browser.close.bind(browser);
  browser.close = async () => {
    for (const c of browser.contexts()) await c.close().catch(() => {});
    return close();
  };
  return browser;
}
const chromium = new Proxy(real.chromium, { get: (t, k) => (k === 'launch' ? connect : t[k]) });
module.exports = { ...real, chromium, default: { ...real, chromium }, __outpostFlush };
`;
}
