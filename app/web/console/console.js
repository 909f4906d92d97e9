// The agentmem web console: plain DOM, no build step, no packages. It talks only GraphQL to
// /graphql (HTTP POST with the key as a Bearer token) and to subscriptions over a WebSocket at
// /graphql (graphql-transport-ws, the key in connection_init's payload). The key is kept in
// sessionStorage, in this tab only; nothing is stored by the server for the console.

const KEY_SLOT = "agentmem.console.apiKey";
const SVG_NS = "http://www.w3.org/2000/svg";

// ---------------------------------------------------------------- GraphQL over HTTP

class GraphQLError extends Error {
  constructor(errors) {
    super(errors.map((e) => e.message).join("; "));
    this.errors = errors;
  }
}

function apiKey() {
  return sessionStorage.getItem(KEY_SLOT);
}

async function gql(query, variables = {}) {
  const response = await fetch("/graphql", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${apiKey()}` },
    body: JSON.stringify({ query, variables }),
  });
  let body;
  try {
    body = await response.json();
  } catch {
    throw new GraphQLError([{ message: `HTTP ${response.status}`, extensions: { code: "HTTP" } }]);
  }
  if (body.errors && body.errors.length) throw new GraphQLError(body.errors);
  if (!response.ok) {
    throw new GraphQLError([{ message: `HTTP ${response.status}`, extensions: { code: "HTTP" } }]);
  }
  return body.data;
}

// "CODE: message" per error, one a line.
function describe(error) {
  if (error instanceof GraphQLError) {
    return error.errors
      .map((e) => `${(e.extensions && e.extensions.code) || "ERROR"}: ${e.message}`)
      .join("\n");
  }
  return `ERROR: ${error && error.message ? error.message : error}`;
}

function showError(node, error) {
  node.textContent = error ? describe(error) : "";
}

// ---------------------------------------------------------------- DOM helpers

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) node.setAttribute(name, String(value));
  }
  node.append(...children);
  return node;
}

function short(text, max) {
  const value = text === null || text === undefined ? "" : String(text);
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}

function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

// The parts given (falsy ones left out), joined by " · ".
function joined(...parts) {
  return parts.filter(Boolean).join(" · ");
}

function plainValue(value) {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value) && value.every((v) => typeof v !== "object")) return value.join(", ");
  if (typeof value === "object") return JSON.stringify(value, null, 2);
  return String(value);
}

// ---------------------------------------------------------------- the key and the viewer

const VIEWER = "query ConsoleViewer { viewer { clientId role agentName } }";

async function useKey(key) {
  sessionStorage.setItem(KEY_SLOT, key);
  showError($("key-error"), null);
  try {
    const { viewer } = await gql(VIEWER);
    const line = `viewer: client ${viewer.clientId} · role ${viewer.role} · agent ${
      viewer.agentName || "—"
    }`;
    $("viewer").textContent = line;
    $("viewer").hidden = false;
    $("key-form").hidden = true;
    $("key-clear").hidden = false;
    $("tabs").hidden = false;
    $("main").hidden = false;
    document.body.dataset.ready = "true";
    loadVariants();
    loadThreads();
  } catch (error) {
    sessionStorage.removeItem(KEY_SLOT);
    showError($("key-error"), error);
  }
}

function forgetKey() {
  sessionStorage.removeItem(KEY_SLOT);
  location.reload();
}

// ---------------------------------------------------------------- tabs

function showTab(name) {
  for (const button of $("tabs").querySelectorAll("button")) {
    button.setAttribute("aria-selected", String(button.dataset.tab === name));
  }
  for (const section of document.querySelectorAll("main > section.tab")) {
    section.hidden = section.id !== name;
  }
}

// ---------------------------------------------------------------- why was this published?

const VARIANTS = `query ConsoleVariants {
  assetVariants(first: 50, orderBy: CREATED_AT_DESC) {
    nodes { id status format platform createdAt captionText asset { title } } } }`;

const TRACE = `query ConsoleTrace($id: ID!) { trace(variantId: $id) {
  plan { __typename id name status summary createdBy targetPlatforms constraintsRef createdAt }
  ancestors { __typename id planId nodeType title status summary createdAt }
  blueprint { __typename id planId nodeType title status summary qualityScore createdAt }
  snapshot { __typename id brandkitVersionId kbVersionId policiesVersionId
    providerConfigVersionId blueprintSetVersionId notes createdAt }
  asset { __typename id title assetType status summary createdBy sourceBlueprintInstanceId
    primaryArtifactUri createdAt }
  variant { __typename id assetId platform format status captionText dimensions
    durationSeconds checksum artifactUri createdAt updatedAt }
  constraints { __typename id documentId kind version title author reason createdAt }
  prompts { __typename id taskClass provider model params promptSha256 promptSize createdAt }
  approvals { __typename id assetId variantId requiredByPolicy status reviewerUserId notes
    evidenceUri createdAt updatedAt }
  packages { __typename id planId targetPlatforms variantIds scheduledAt status createdAt }
  runs {
    run { __typename id packageId platform status externalRef error finishedAt createdAt }
    evidence { __typename id runId kind contentType size sha256 uri createdAt downloadUrl } } } }`;

const PROMPT_TEXT = "query ConsolePrompt($id: ID!) { promptArtifact(id: $id) { promptText } }";

let variants = [];

async function loadVariants() {
  showError($("variants-error"), null);
  try {
    variants = (await gql(VARIANTS)).assetVariants.nodes;
    renderVariants();
  } catch (error) {
    showError($("variants-error"), error);
  }
}

function variantText(v) {
  const title = v.asset ? v.asset.title : "";
  return `${title} ${v.platform} ${v.format} ${v.status} ${v.captionText || ""} ${v.id}`;
}

function renderVariants() {
  const filter = $("variant-filter").value.trim().toLowerCase();
  const shown = variants.filter((v) => variantText(v).toLowerCase().includes(filter));
  $("variants").replaceChildren(
    ...shown.map((v) =>
      el(
        "li",
        {},
        el(
          "button",
          { type: "button", class: "choice", "data-id": v.id, onclick: () => openTrace(v.id) },
          el("strong", {}, v.asset ? v.asset.title : "(no asset)"),
          el("span", {}, `${v.platform} ${v.format} · ${v.status}`),
          el("small", {}, `${when(v.createdAt)} · ${v.id}`),
        ),
      ),
    ),
  );
  if (!shown.length) $("variants").append(el("li", { class: "hint" }, "No variants."));
}

function isImage(evidence) {
  return evidence.kind === "SCREENSHOT" || /^image\//.test(evidence.contentType || "");
}

// The records of a trace as boxes in columns, left to right (plan and plan nodes, asset,
// variant, prompts/approvals/constraints, packages, runs, evidence), and the links between them.
const COLUMNS = 7;

function traceGraph(trace) {
  const boxes = new Map();
  const links = [];
  const add = (record, column, label) => {
    if (record && !boxes.has(record.id)) boxes.set(record.id, { record, column, label });
    return record;
  };
  const link = (from, to) => from && to && links.push([from.id, to.id]);
  const { plan, blueprint, asset, variant, snapshot } = trace;
  add(plan, 0, plan && plan.name);
  for (const node of trace.ancestors) add(node, 0, `${node.nodeType} · ${node.title}`);
  add(blueprint, 0, blueprint && `${blueprint.nodeType} · ${blueprint.title}`);
  add(snapshot, 0, snapshot && (snapshot.notes || "frozen constraints"));
  add(asset, 1, asset.title);
  add(variant, 2, `${variant.platform} ${variant.format} · ${variant.status}`);
  for (const p of trace.prompts) add(p, 3, `${p.provider} / ${p.model}`);
  for (const a of trace.approvals) {
    add(a, 3, `${a.status}${a.reviewerUserId ? ` · ${a.reviewerUserId}` : ""}`);
  }
  for (const c of trace.constraints) add(c, 3, `${c.kind} v${c.version}`);
  for (const p of trace.packages) add(p, 4, joined(p.status, (p.targetPlatforms || []).join(",")));
  for (const { run, evidence } of trace.runs) {
    add(run, 5, `${run.platform} · ${run.status}`);
    for (const e of evidence) add(e, 6, `${e.kind} · ${e.contentType}`);
  }
  for (const node of trace.ancestors) link(node, blueprint);
  link(plan, blueprint);
  link(plan, snapshot);
  link(blueprint, asset);
  link(asset, variant);
  for (const p of trace.prompts) link(variant, p);
  for (const a of trace.approvals) link(a.variantId === variant.id ? variant : asset, a);
  for (const c of trace.constraints) link(snapshot, c);
  for (const p of trace.packages) link(variant, p);
  for (const { run, evidence } of trace.runs) {
    link(trace.packages.find((p) => p.id === run.packageId), run);
    for (const e of evidence) link(run, e);
  }
  return { boxes, links };
}

// Sizes in px; `bracket`: room left of the first column for the links within it.
const BOX = {
  width: 164,
  height: 48,
  imageHeight: 84,
  gapX: 40,
  gapY: 16,
  margin: 20,
  bracket: 28,
};

// The column between the variant and its packages keeps its middle row free, so the line from
// the variant (centred) to a package passes no box it does not link.
const LANE_COLUMN = 3;

function stack(column, top) {
  let y = top;
  for (const box of column) {
    box.y = y;
    y += box.height + BOX.gapY;
  }
}

function extent(column) {
  return column.reduce((sum, box) => sum + box.height + BOX.gapY, -BOX.gapY);
}

// Columns left to right, each centred on one middle line; returns the picture's size.
function layout(boxes) {
  const columns = Array.from({ length: COLUMNS }, () => []);
  for (const box of boxes.values()) {
    const image = box.record.__typename === "EvidenceArtifact" && isImage(box.record);
    box.height = image ? BOX.height + BOX.imageHeight : BOX.height;
    columns[box.column].push(box);
  }
  const used = columns.map((column, number) => ({ column, number })).filter((c) => c.column.length);
  used.forEach(({ column, number }, index) => {
    for (const box of column) box.x = BOX.margin + BOX.bracket + index * (BOX.width + BOX.gapX);
    if (number === LANE_COLUMN && column.length > 1) {
      const upper = column.slice(0, Math.floor(column.length / 2));
      const lower = column.slice(upper.length);
      const lane = BOX.height / 2 + BOX.gapY;
      stack(upper, -lane - extent(upper));
      stack(lower, lane);
    } else {
      stack(column, -extent(column) / 2);
    }
  });
  const all = [...boxes.values()];
  const top = Math.min(...all.map((b) => b.y));
  const bottom = Math.max(...all.map((b) => b.y + b.height));
  for (const box of all) box.y += BOX.margin - top;
  return {
    width: BOX.margin * 2 + BOX.bracket + used.length * BOX.width + (used.length - 1) * BOX.gapX,
    height: BOX.margin * 2 + bottom - top,
  };
}

function linkPath(from, to) {
  if (from.x === to.x) {
    // Same column (the plan and its nodes): a bracket on the left, deeper the longer it is.
    const x = from.x;
    const y1 = from.y + from.height / 2;
    const y2 = to.y + to.height / 2;
    const depth = Math.min(14 + Math.abs(y2 - y1) * 0.1, BOX.margin + BOX.bracket - 4);
    return `M${x},${y1} C${x - depth},${y1} ${x - depth},${y2} ${x},${y2}`;
  }
  const x1 = from.x + BOX.width;
  const y1 = from.y + Math.min(from.height, BOX.height) / 2;
  const x2 = to.x;
  const y2 = to.y + Math.min(to.height, BOX.height) / 2;
  const bend = (x2 - x1) / 2;
  return `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`;
}

function boxNode(box) {
  const { record } = box;
  const group = svg(
    "g",
    {
      class: "box",
      "data-type": record.__typename,
      "data-id": record.id,
      transform: `translate(${box.x},${box.y})`,
      tabindex: 0,
      role: "button",
      "aria-label": `${record.__typename} ${box.label || ""}`,
    },
    svg("title", {}, `${record.__typename} ${record.id}\n${box.label || ""}`),
    svg("rect", { width: BOX.width, height: box.height, rx: 8 }),
    svg("text", { x: 10, y: 19, class: "type" }, record.__typename),
    svg("text", { x: 10, y: 37, class: "label" }, short(box.label, 23)),
  );
  if (box.height > BOX.height) {
    group.append(
      svg("image", {
        href: record.downloadUrl,
        x: 8,
        y: BOX.height - 4,
        width: BOX.width - 16,
        height: BOX.imageHeight - 4,
        preserveAspectRatio: "xMidYMid meet",
      }),
    );
  }
  const select = () => showDetails(record, group);
  group.addEventListener("click", select);
  group.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      select();
    }
  });
  return group;
}

function drawTrace(trace) {
  const { boxes, links } = traceGraph(trace);
  const size = layout(boxes);
  const arrow = svg(
    "marker",
    { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7,
      orient: "auto-start-reverse" },
    svg("path", { d: "M0,0 L10,5 L0,10 z", class: "arrow" }),
  );
  const lines = links.map(([from, to]) =>
    svg("path", {
      class: "link",
      d: linkPath(boxes.get(from), boxes.get(to)),
      "data-from": from,
      "data-to": to,
      "marker-end": "url(#arrow)",
    }),
  );
  const picture = svg(
    "svg",
    {
      id: "trace-svg",
      viewBox: `0 0 ${size.width} ${size.height}`,
      // As wide as the view allows, never wider than its natural size nor below 70% of it.
      style: `max-width: ${size.width}px; min-width: ${Math.round(size.width * 0.7)}px`,
      role: "img",
      "aria-label": `Trace of variant ${trace.variant.id}`,
    },
    svg("defs", {}, arrow),
    svg("g", { class: "links" }, ...lines),
    svg("g", { class: "boxes" }, ...[...boxes.values()].map(boxNode)),
  );
  $("trace-picture").replaceChildren(picture);
}

function evidenceImage(evidence) {
  return el("img", {
    class: "evidence",
    src: evidence.downloadUrl,
    alt: `${evidence.kind} evidence ${evidence.id}`,
    "data-id": evidence.id,
    loading: "eager",
  });
}

function drawEvidence(trace) {
  const figures = [];
  for (const { run, evidence } of trace.runs) {
    for (const item of evidence.filter(isImage)) {
      const caption = joined(`${run.platform} run ${run.status}`, item.kind, when(item.createdAt));
      figures.push(el("figure", {}, evidenceImage(item), el("figcaption", {}, caption)));
    }
  }
  if (!figures.length) figures.push(el("p", { class: "hint" }, "No screenshots."));
  $("evidence-strip").replaceChildren(...figures);
}

async function openTrace(variantId) {
  for (const button of $("variants").querySelectorAll("button.choice")) {
    button.classList.toggle("selected", button.dataset.id === variantId);
  }
  showError($("trace-error"), null);
  $("trace-title").textContent = `Variant ${variantId}`;
  $("trace-picture").replaceChildren(el("p", { class: "hint" }, "Loading…"));
  $("evidence-strip").replaceChildren();
  $("details-body").replaceChildren(el("p", { class: "hint" }, "Click a box to see its fields."));
  try {
    const { trace } = await gql(TRACE, { id: variantId });
    $("trace-title").textContent = `Why ${trace.asset.title} (${trace.variant.platform} ${
      trace.variant.format}) was published`;
    drawTrace(trace);
    drawEvidence(trace);
  } catch (error) {
    $("trace-picture").replaceChildren();
    showError($("trace-error"), error);
  }
}

function showDetails(record, group) {
  for (const node of document.querySelectorAll("#trace-svg g.box.selected")) {
    node.classList.remove("selected");
  }
  group.classList.add("selected");
  const fields = Object.entries(record).filter(
    ([name]) => name !== "__typename" && name !== "downloadUrl",
  );
  const list = el(
    "dl",
    { class: "fields" },
    ...fields.flatMap(([name, value]) => [
      el("dt", {}, name),
      el("dd", { "data-field": name }, plainValue(value)),
    ]),
  );
  const body = [el("h3", { "data-type": record.__typename }, record.__typename), list];
  if (record.__typename === "EvidenceArtifact") {
    if (isImage(record)) body.push(evidenceImage(record));
    body.push(el("a", { href: record.downloadUrl, target: "_blank", rel: "noopener" }, "Download"));
  }
  if (record.__typename === "PromptArtifact") {
    const text = el("pre", { class: "prompt" }, "Loading the prompt text…");
    body.push(el("h4", {}, "Prompt text"), text);
    gql(PROMPT_TEXT, { id: record.id }).then(
      (data) => (text.textContent = data.promptArtifact.promptText),
      (error) => (text.textContent = describe(error)),
    );
  }
  $("details-body").replaceChildren(...body);
}

// ---------------------------------------------------------------- live thread

const THREADS = `query ConsoleThreads {
  conversationThreads(first: 50, orderBy: CREATED_AT_DESC) {
    nodes { id platform threadType externalThreadRef participantExternalRef status
      lastEventAt eventCount } } }`;

const THREAD = `query ConsoleThread($id: ID!) { conversationThread(id: $id) {
  id platform threadType externalThreadRef participantExternalRef status handoffState
  lastEventAt eventCount summaryShort openQuestions summaryVersion needsSummary
  needsSummaryReason
  summaries(first: 1, orderBy: CREATED_AT_DESC) {
    id version summaryShort author method eventsCovered createdAt }
  events(first: 100, orderBy: CREATED_AT_DESC) {
    id sequence direction eventType text textUri createdAt } } }`;

const CHANGES_HEAD = "query ConsoleChangesHead { changesHead }";

const ACTIVITY = `subscription ConsoleThreadActivity($id: ID!, $after: String) {
  threadActivity(threadId: $id, after: $after) {
    cursor action recordType recordId
    record {
      ... on ConversationEvent { id sequence direction eventType text textUri createdAt }
      ... on ThreadSummary { id version summaryShort author method eventsCovered createdAt }
    } } }`;

async function loadThreads() {
  showError($("threads-error"), null);
  try {
    const threads = (await gql(THREADS)).conversationThreads.nodes;
    $("threads").replaceChildren(
      ...threads.map((t) =>
        el(
          "li",
          {},
          el(
            "button",
            { type: "button", class: "choice", "data-id": t.id, onclick: () => openThread(t.id) },
            el("strong", {}, `${t.platform} ${t.threadType}`),
            el("span", {}, `${t.externalThreadRef} · ${t.status} · ${t.eventCount} events`),
            el("small", {}, `${when(t.lastEventAt)} · ${t.id}`),
          ),
        ),
      ),
    );
    if (!threads.length) $("threads").append(el("li", { class: "hint" }, "No threads."));
  } catch (error) {
    showError($("threads-error"), error);
  }
}

function socketUrl() {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/graphql`;
}

// One subscription to a thread's activity over graphql-transport-ws. It remembers the last
// cursor received; when the socket closes it reconnects (backing off) with `after` that cursor,
// so nothing written meanwhile is lost. A connection refused for the key (4403) stays closed.
class ThreadFollower {
  constructor(threadId, { onChange, onState, onError, onResync }) {
    this.threadId = threadId;
    this.cursor = null;
    this.handlers = { onChange, onState, onError, onResync };
    this.stopped = false;
    this.failures = 0;
  }

  start() {
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.socket) this.socket.close(1000, "closed by the console");
  }

  async connect() {
    if (this.cursor === null) {
      // The feed's position first, then the thread read, then the subscription after that
      // position: what is written once the position was read arrives, nothing falls between.
      try {
        this.cursor = (await gql(CHANGES_HEAD)).changesHead;
      } catch (error) {
        this.handlers.onError(error); // the subscription then starts from when it is made
      }
      this.handlers.onResync();
      if (this.stopped) return;
    }
    const socket = new WebSocket(socketUrl(), "graphql-transport-ws");
    this.socket = socket;
    this.handlers.onState(this.failures === 0 ? "connecting" : "reconnecting");
    socket.addEventListener("open", () => {
      this.send({ type: "connection_init", payload: { Authorization: `Bearer ${apiKey()}` } });
    });
    socket.addEventListener("message", (event) => this.received(JSON.parse(event.data)));
    socket.addEventListener("close", (event) => this.closed(socket, event));
  }

  send(message) {
    this.socket.send(JSON.stringify(message));
  }

  received(message) {
    if (this.stopped) return;
    if (message.type === "connection_ack") {
      const variables = { id: this.threadId, after: this.cursor };
      this.send({ id: "1", type: "subscribe", payload: { query: ACTIVITY, variables } });
      this.failures = 0;
      this.handlers.onState("live");
    } else if (message.type === "ping") {
      this.send({ type: "pong" });
    } else if (message.type === "next") {
      const { data, errors } = message.payload;
      if (errors && errors.length) this.handlers.onError(new GraphQLError(errors));
      if (data && data.threadActivity) {
        this.cursor = data.threadActivity.cursor;
        this.handlers.onChange(data.threadActivity);
      }
    } else if (message.type === "error") {
      const errors = message.payload;
      if (errors.some((e) => e.extensions && e.extensions.code === "CURSOR_EXPIRED")) {
        // Older than the feed keeps: start again from now, re-reading the thread.
        this.cursor = null;
        this.socket.close(1000, "cursor expired");
        return;
      }
      this.handlers.onState("failed");
      this.handlers.onError(new GraphQLError(errors));
    } else if (message.type === "complete") {
      this.handlers.onState("ended");
    }
  }

  closed(socket, event) {
    if (socket !== this.socket || this.stopped) return;
    if (event.code === 4403 || event.code === 4401) {
      this.handlers.onState("refused");
      this.handlers.onError(
        new GraphQLError([
          { message: event.reason || "key refused", extensions: { code: "UNAUTHENTICATED" } },
        ]),
      );
      return;
    }
    this.failures += 1;
    const delay = Math.min(15000, 500 * 2 ** Math.min(this.failures, 5));
    this.handlers.onState("reconnecting");
    this.timer = setTimeout(() => this.connect(), delay);
  }
}

let follower = null;
let threadEvents = new Map(); // event id -> event, for the thread shown

function eventRow(event) {
  const text = event.text !== null && event.text !== undefined
    ? event.text
    : event.textUri ? "(long text kept in storage)" : "(no text)";
  return el(
    "li",
    {
      class: `event ${String(event.direction).toLowerCase()}`,
      "data-id": event.id,
      "data-sequence": event.sequence,
    },
    el("span", { class: "direction" }, event.direction),
    el("span", { class: "kind" }, event.eventType || ""),
    el("time", { datetime: event.createdAt }, when(event.createdAt)),
    el("p", { class: "text" }, text),
  );
}

function renderEvents() {
  const ordered = [...threadEvents.values()].sort((a, b) => a.sequence - b.sequence);
  $("events").replaceChildren(...ordered.map(eventRow));
}

// The thread's latest summary (`summary`: its newest ThreadSummary, if any) and state.
function renderSummary(thread, summary) {
  const text = (summary && summary.summaryShort) || thread.summaryShort;
  const version = summary ? summary.version : thread.summaryVersion;
  const questions = Array.isArray(thread.openQuestions) ? thread.openQuestions : [];
  const meta = joined(
    `summary v${version}`,
    summary && `by ${summary.author} (${summary.method}), covers ${summary.eventsCovered} events`,
    `status ${thread.status}`,
    `handoff ${thread.handoffState}`,
    thread.needsSummary && `needs a summary (${thread.needsSummaryReason || "due"})`,
  );
  const parts = [
    el("p", { class: "summary-text", "data-version": version }, text || "No summary yet."),
    el("p", { class: "meta" }, meta),
  ];
  if (questions.length) {
    const items = questions.map((q) => el("li", {}, plainValue(q)));
    parts.push(el("h4", {}, "Open questions"), el("ul", {}, ...items));
  }
  $("thread-summary").replaceChildren(...parts);
}

let shownThread = null;

async function loadThread(threadId) {
  try {
    const { conversationThread: thread } = await gql(THREAD, { id: threadId });
    if (!follower || follower.threadId !== threadId) return; // another thread was picked
    shownThread = thread;
    const title = `${thread.platform} ${thread.threadType} ${thread.externalThreadRef}`;
    $("thread-title").textContent = title;
    renderSummary(thread, thread.summaries[0]);
    for (const event of thread.events) threadEvents.set(event.id, event);
    renderEvents();
  } catch (error) {
    if (follower && follower.threadId === threadId) showError($("thread-error"), error);
  }
}

function applyChange(change) {
  if (change.recordType === "CONVERSATION_EVENT") {
    if (change.action === "DELETED") threadEvents.delete(change.recordId);
    else if (change.record) threadEvents.set(change.record.id, change.record);
    renderEvents();
  } else if (change.recordType === "THREAD_SUMMARY" && change.record && shownThread) {
    renderSummary(shownThread, change.record);
  }
}

function setThreadState(state) {
  const labels = {
    connecting: "Connecting…",
    live: "Live: new events appear as they are written.",
    reconnecting: "Connection lost: reconnecting from the last change seen…",
    refused: "The subscription was refused.",
    failed: "The subscription ended with an error.",
    ended: "The subscription ended.",
  };
  $("thread-state").dataset.state = state;
  $("thread-state").textContent = labels[state] || "";
}

function openThread(threadId) {
  for (const button of $("threads").querySelectorAll("button.choice")) {
    button.classList.toggle("selected", button.dataset.id === threadId);
  }
  if (follower) follower.stop();
  showError($("thread-error"), null);
  shownThread = null;
  threadEvents = new Map();
  $("events").replaceChildren();
  $("thread-summary").replaceChildren(el("p", { class: "hint" }, "Loading…"));
  // The feed's position read, then the thread (onResync), then the subscription after that
  // position (ThreadFollower.connect): what is written after the position arrives on the
  // subscription. Rows are keyed by event id, so an event both read and received shows once.
  follower = new ThreadFollower(threadId, {
    onChange: applyChange,
    onState: setThreadState,
    onError: (error) => showError($("thread-error"), error),
    onResync: () => loadThread(threadId),
  });
  follower.start();
}

// ---------------------------------------------------------------- what a persona knows

const PERSONA_CONTEXT = `query ConsolePersonaContext($subject: String!, $persona: String!) {
  personaContext(subject: $subject, persona: $persona) {
    persona { id name } version { version } subject displayName
    relationship { type sessions lastContact }
    tokenBudget tokensUsed omitted
    sections { section title tokens lines { text recordId } } } }`;

const MEMORIES = `query ConsoleMemories($subject: String!) {
  memories(where: { subject: $subject }, first: 100) {
    totalCount
    nodes { id namespace key kind memoryType text content priority agent tags createdAt } } }`;

const FORGET = "mutation ConsoleForget($id: ID!) { forgetMemory(id: $id) { id hard } }";

async function showPersona(event) {
  event.preventDefault();
  const persona = $("persona-name").value.trim();
  const subject = $("persona-subject").value.trim();
  showError($("persona-error"), null);
  await Promise.all([loadPersonaContext(persona, subject), loadMemories(subject)]);
}

async function loadPersonaContext(persona, subject) {
  $("persona-context").replaceChildren(el("p", { class: "hint" }, "Loading…"));
  try {
    const { personaContext: context } = await gql(PERSONA_CONTEXT, { subject, persona });
    const { relationship } = context;
    const about = context.displayName || context.subject;
    const head = el(
      "p",
      { class: "meta" },
      joined(
        `${context.persona.name} v${context.version.version} about ${about}`,
        relationship && `${relationship.type}, ${relationship.sessions} sessions`,
        `${context.tokensUsed}/${context.tokenBudget} tokens`,
        context.omitted && `${context.omitted} omitted`,
      ),
    );
    const sections = context.sections.map((section) =>
      el(
        "section",
        { class: "persona-section", "data-section": section.section },
        el("h3", {}, `${section.title} (${section.tokens} tokens)`),
        el(
          "ul",
          {},
          ...section.lines.map((line) =>
            el("li", { "data-record-id": line.recordId || undefined }, line.text),
          ),
        ),
      ),
    );
    $("persona-context").replaceChildren(head, ...sections);
  } catch (error) {
    $("persona-context").replaceChildren();
    showError($("persona-error"), error);
  }
}

function memoryText(memory) {
  if (memory.text) return memory.text;
  const { content } = memory;
  if (content !== null && content !== undefined) return JSON.stringify(content);
  return memory.key || "(no text)";
}

function memoryRow(memory) {
  const error = el("p", { class: "error", role: "alert" });
  const button = el("button", { type: "button", class: "forget" }, "Forget");
  const row = el(
    "li",
    { class: "memory", "data-id": memory.id },
    el("p", { class: "text" }, memoryText(memory)),
    el(
      "p",
      { class: "meta" },
      joined(
        memory.namespace,
        memory.key && `key ${memory.key}`,
        memory.kind,
        `priority ${memory.priority}`,
        when(memory.createdAt),
      ),
    ),
    button,
    error,
  );
  button.addEventListener("click", async () => {
    button.disabled = true;
    showError(error, null);
    try {
      await gql(FORGET, { id: memory.id });
      row.remove();
      const left = $("memories").querySelectorAll("li.memory").length;
      $("memory-count").textContent = `(${left})`;
      loadPersonaContext($("persona-name").value.trim(), $("persona-subject").value.trim());
    } catch (failure) {
      button.disabled = false;
      showError(error, failure);
    }
  });
  return row;
}

async function loadMemories(subject) {
  showError($("memories-error"), null);
  $("memories").replaceChildren();
  try {
    const { memories } = await gql(MEMORIES, { subject });
    $("memory-count").textContent = `(${memories.totalCount})`;
    $("memories").replaceChildren(...memories.nodes.map(memoryRow));
  } catch (error) {
    $("memory-count").textContent = "";
    showError($("memories-error"), error);
  }
}

// ---------------------------------------------------------------- start

function start() {
  $("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const key = $("api-key").value.trim();
    $("api-key").value = "";
    if (key) useKey(key);
  });
  $("key-clear").addEventListener("click", forgetKey);
  for (const button of $("tabs").querySelectorAll("button")) {
    button.addEventListener("click", () => showTab(button.dataset.tab));
  }
  $("variant-filter").addEventListener("input", renderVariants);
  $("threads-reload").addEventListener("click", loadThreads);
  $("persona-form").addEventListener("submit", showPersona);
  const key = apiKey();
  if (key) useKey(key);
}

start();
