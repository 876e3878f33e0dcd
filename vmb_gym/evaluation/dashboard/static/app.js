/* vmb dashboard: filters, task table and the on-demand per-task drill-down.
 *
 * The data comes from data/index.js (window.VMB_DATA) and, per task, from tasks/tN.js
 * (which calls window.vmbTask). Every string from the data is inserted with textContent or
 * as an attribute value, never as HTML. No network access, no library: plain DOM.
 */
(function () {
  "use strict";
  var D = window.VMB_DATA;
  var PAGE = 250;
  var state = { type: "", module: "", label: "", run: "", outcome: "", text: "", limit: PAGE };
  var byId = {};
  var cache = {};
  var waiting = {};
  var openedAt = 0;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]);
    return parent;
  }
  function fmt(v) { return v === null || v === undefined ? "-" : Number(v).toFixed(3); }

  /* ---- filters ---------------------------------------------------------------------- */
  function option(select, value, text) { var o = el("option", null, text); o.value = value; select.appendChild(o); }

  function buildFilters() {
    var chips = document.getElementById("filter-type");
    [""].concat(D.types).forEach(function (t) {
      var b = el("button", "chip", t || "all types");
      b.type = "button";
      b.setAttribute("data-type", t);
      b.setAttribute("aria-pressed", t === state.type ? "true" : "false");
      b.addEventListener("click", function () { state.type = t; state.limit = PAGE; update(); });
      chips.appendChild(b);
    });
    D.modules.forEach(function (m) { option(document.getElementById("filter-module"), m, m); });
    D.labels.forEach(function (l) { option(document.getElementById("filter-label"), l, l); });
    D.runs.forEach(function (r, i) { option(document.getElementById("filter-run"), String(i), r.name); });
    [["filter-module", "module"], ["filter-label", "label"], ["filter-run", "run"], ["filter-outcome", "outcome"]]
      .forEach(function (p) {
        document.getElementById(p[0]).addEventListener("change", function (e) {
          state[p[1]] = e.target.value; state.limit = PAGE; update();
        });
      });
    document.getElementById("filter-text").addEventListener("input", function (e) {
      state.text = e.target.value.toLowerCase(); state.limit = PAGE; update();
    });
    document.getElementById("more").addEventListener("click", function () { state.limit += PAGE; update(); });
  }

  function matches(t) {
    if (state.type && t[1] !== state.type) return false;
    if (state.module && t[2].indexOf(state.module) < 0) return false;
    var runs = state.run === "" ? null : [Number(state.run)];
    if (state.label) {
      var hit = false;
      t[6].forEach(function (l, i) { if (l === state.label && (!runs || runs.indexOf(i) >= 0)) hit = true; });
      if (!hit) return false;
    }
    var esm = t[5].filter(function (v) { return v !== null; });
    if (state.outcome === "differ" && (esm.indexOf(1) < 0 || esm.indexOf(0) < 0)) return false;
    if (state.outcome === "allfail" && esm.indexOf(1) >= 0) return false;
    if (state.outcome === "allpass" && esm.indexOf(0) >= 0) return false;
    if (state.text && (t[0] + " " + t[3]).toLowerCase().indexOf(state.text) < 0) return false;
    return true;
  }

  /* ---- task table ------------------------------------------------------------------- */
  function buildHead() {
    var tr = el("tr");
    ["task", "type", "modules", "request"].forEach(function (h) { tr.appendChild(el("th", null, h)); });
    D.runs.forEach(function (r, i) {
      var th = el("th", "run-col", r.name);
      th.setAttribute("title", r.policy + " / " + r.memory + " / " + r.data);
      th.style.borderTopColor = D.palette[i % D.palette.length];
      tr.appendChild(th);
    });
    document.querySelector("#tasks thead").appendChild(tr);
  }

  function row(t) {
    var tr = el("tr");
    tr.setAttribute("data-task", t[0]);
    tr.tabIndex = 0;
    add(tr, el("td", "id", t[0]), el("td", null, t[1]), el("td", null, t[2].join(", ")),
        el("td", "request-cell", t[3]));
    t[5].forEach(function (v, i) {
      var td = el("td", v === null ? "cell missing" : v ? "cell pass" : "cell fail");
      add(td, el("span", "mark", v === null ? "·" : v ? "✓" : "✗"));
      if (t[6][i]) add(td, el("span", "label", t[6][i]));
      tr.appendChild(td);
    });
    tr.addEventListener("click", function () { openTask(t[0]); });
    tr.addEventListener("keydown", function (e) { if (e.key === "Enter") openTask(t[0]); });
    return tr;
  }

  function update() {
    document.querySelectorAll("#filter-type .chip").forEach(function (b) {
      b.setAttribute("aria-pressed", b.getAttribute("data-type") === state.type ? "true" : "false");
    });
    var shown = D.tasks.filter(matches);
    var body = document.querySelector("#tasks tbody");
    var frag = document.createDocumentFragment();
    shown.slice(0, state.limit).forEach(function (t) { frag.appendChild(row(t)); });
    body.replaceChildren(frag);
    document.getElementById("more").hidden = shown.length <= state.limit;
    summary(shown);
  }

  function summary(shown) {
    var p = document.getElementById("shown-summary");
    p.replaceChildren(el("strong", null, shown.length + " of " + D.tasks.length + " tasks"));
    if (!shown.length) return;
    p.appendChild(document.createTextNode(" · ESM on these: "));
    D.runs.forEach(function (r, i) {
      var vals = shown.map(function (t) { return t[5][i]; }).filter(function (v) { return v !== null; });
      var mean = vals.length ? vals.reduce(function (a, b) { return a + b; }, 0) / vals.length : null;
      var s = el("span", "esm-chip", r.name + " " + fmt(mean));
      s.style.borderColor = D.palette[i % D.palette.length];
      p.appendChild(s);
    });
  }

  /* ---- drill-down ------------------------------------------------------------------- */
  window.vmbTask = function (payload) {
    cache[payload.id] = payload;
    (waiting[payload.id] || []).forEach(function (f) { f(payload); });
    delete waiting[payload.id];
  };

  function load(id, done) {
    if (cache[id]) return done(cache[id]);
    if (waiting[id]) { waiting[id].push(done); return; }
    waiting[id] = [done];
    var s = document.createElement("script");
    s.src = "tasks/t" + byId[id][4] + ".js";
    s.onerror = function () { delete waiting[id]; showError(id); };
    document.body.appendChild(s);
  }

  function showError(id) {
    var box = document.getElementById("detail-runs");
    box.replaceChildren(el("p", "error", "could not load the detail file of task " + id +
      " (tasks/t" + byId[id][4] + ".js); rebuild the site with vmb dashboard"));
  }

  function openTask(id) {
    if (!byId[id]) return;
    if (location.hash !== "#task=" + encodeURIComponent(id)) history.replaceState(null, "", "#task=" + encodeURIComponent(id));
    openedAt = performance.now();
    var sec = document.getElementById("detail");
    sec.hidden = false;
    document.body.classList.add("detail-open");
    document.getElementById("detail-title").textContent = "Task " + id;
    document.getElementById("detail-request").textContent = byId[id][3];
    document.getElementById("detail-runs").replaceChildren(el("p", "loading", "loading…"));
    load(id, render);
  }

  function closeTask() {
    document.getElementById("detail").hidden = true;
    document.body.classList.remove("detail-open");
    document.body.removeAttribute("data-task-loaded");
    history.replaceState(null, "", "#task-list");
  }

  function list(title, items, make, empty) {
    var box = add(el("div", "block"), el("h4", null, title));
    if (!items.length) { box.appendChild(el("p", "none", empty)); return box; }
    var ul = el("ul");
    items.forEach(function (x) { ul.appendChild(make(x)); });
    return add(box, ul);
  }

  function lineItem(ln) {
    var li = el("li", ln.gold ? "line gold" : "line");
    add(li, el("span", "lid", "#" + ln.id), el("span", "when", ln.when),
        el("span", "speaker", ln.speaker ? ln.speaker + ":" : ""), el("span", "text", ln.text));
    if (ln.gold) li.appendChild(el("span", "badge", "gold evidence"));
    return li;
  }

  function callItem(c) {
    var li = el("li", c.success === false ? "call failed" : "call");
    add(li, el("code", "name", c.name), el("code", "args", c.arguments));
    if (c.message) li.appendChild(el("div", "result", "→ " + c.message));
    return li;
  }

  function runCard(cell, i) {
    var r = D.runs[i];
    var card = el("article", "run-card");
    card.style.borderTopColor = D.palette[i % D.palette.length];
    var head = add(el("header"), el("h3", null, r.name), el("p", "meta", r.policy + " · " + r.memory));
    card.appendChild(head);
    if (cell.missing) { card.appendChild(el("p", "none", "this run has no record of the task")); return card; }
    var score = el("p", "score " + (cell.exact_match ? "pass" : "fail"),
      (cell.exact_match ? "✓ exact match" : "✗ no exact match") + " · value F1 " + fmt(cell.f1_change) +
      " · tool F1 " + fmt(cell.tool_f1));
    add(card, score);
    if (cell.label) add(card, add(el("p", "failure"), el("span", "label", cell.label), el("span", "detail", cell.detail || "")));
    var mem = cell.retrieved;
    var found = mem.gold_count - mem.missed.length;
    var memTitle = "Retrieved lines (" + (mem.module || "no memory") + (mem.context ? ", in context" : "") + "): " +
      (mem.lines.length + mem.more) + " lines, gold evidence " + found + " of " + mem.gold_count;
    card.appendChild(list(memTitle, mem.lines, lineItem, "no line retrieved"));
    if (mem.more) card.appendChild(el("p", "none", "… and " + mem.more + " more lines"));
    if (mem.missed.length) card.appendChild(list("Gold evidence not retrieved", mem.missed, lineItem, ""));
    card.appendChild(list("Calls and results", cell.calls, callItem, "no call"));
    card.appendChild(list("State differences against the gold", cell.differences,
      function (d) { return el("li", "diff", d); }, "none: the final state matches the gold"));
    if (cell.error) card.appendChild(el("p", "error", cell.error));
    return card;
  }

  function render(p) {
    var gold = document.getElementById("detail-gold");
    gold.replaceChildren(el("p", "meta", p.reasoning_type + " · modules: " + (p.modules.join(", ") || "none")),
      list("Gold calls", p.gold_calls, function (c) {
        return add(el("li", "call"), el("code", "name", c.name), el("code", "args", c.arguments));
      }, "none"));
    document.getElementById("detail-request").textContent = p.request;
    var grid = document.getElementById("detail-runs");
    grid.replaceChildren.apply(grid, p.runs.map(runCard));
    window.VMB_TASK_MS = performance.now() - openedAt;  /* read by scripts/bench.py */
    document.body.setAttribute("data-task-loaded", p.id);
  }

  function fromHash() {
    var m = /^#task=(.+)$/.exec(location.hash);
    if (m) openTask(decodeURIComponent(m[1]));
  }

  /* ---- start ------------------------------------------------------------------------ */
  D.tasks.forEach(function (t) { byId[t[0]] = t; });
  buildFilters();
  buildHead();
  update();
  document.getElementById("detail-close").addEventListener("click", closeTask);
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && !document.getElementById("detail").hidden) closeTask();
  });
  window.addEventListener("hashchange", fromHash);
  fromHash();
  window.VMB_READY_MS = performance.now();  /* since navigation start; read by scripts/bench.py */
  document.body.setAttribute("data-ready", "true");
})();
