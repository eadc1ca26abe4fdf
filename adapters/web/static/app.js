// studybot's web app: one small vanilla script, no framework, no CDN. The server (adapters/web)
// holds every rule and every sentence; this draws what it sends and sends back what is tapped.
"use strict";
(() => {
  const $ = (sel) => document.querySelector(sel);
  const main = $("#main");
  let L = {}; // the labels, from the catalogs in the chat's language
  let csrf = "";
  let tab = "mock";
  let timer = null;
  let deadline = 0;
  let sheet = null; // the answer sheet as last sent whole, kept up to date from each item's reply
  let admin = false; // the person owns a bank: the admin tab is shown (the server checks every request)

  function el(tag, attrs = {}, ...kids) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "on") node.addEventListener("click", v);
      else if (k === "class") node.className = v;
      else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v === true ? "" : v);
    }
    for (const kid of kids.flat(Infinity)) if (kid !== null && kid !== undefined) node.append(kid);
    return node;
  }
  const fill = (label, answer) => label.replace("{answer}", answer);
  const text = (t, cls = "text") => el("div", { class: cls }, t || "");

  async function api(method, path, body) {
    const headers = { "Content-Type": "application/json" };
    if (method === "POST") headers["X-CSRF-Token"] = csrf;
    let res;
    try {
      res = await fetch("/app/api/" + path, { method, headers, credentials: "same-origin",
        body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      return { kind: "error", text: L.error_network || "…" };
    }
    const data = await res.json().catch(() => ({}));
    if (res.status === 401) { signedOut(); return { kind: "signed_out" }; }
    if (res.status === 409 || (res.status === 404 && data.kind === "closed")) return { ...data, kind: "closed", status: res.status };
    if (!res.ok) return { kind: "error", text: data.message || L.error_network };
    return data;
  }

  function signedOut(failed) {
    stopTimer();
    $("#tabs").hidden = true;
    const say = (labels) => main.replaceChildren(text(failed ? labels.sign_in_failed : labels.sign_in_needed, "hint"));
    if (L.sign_in_needed) return say(L);
    fetch("/app/api/hello").then((r) => r.json()).then((r) => { L = { ...r.labels, ...L }; say(L); })
      .catch(() => main.replaceChildren(text("/web", "hint")));
  }

  // ---------------------------------------------------------------- sign-in and theme

  function theme(params) {
    const map = { bg_color: "--bg", text_color: "--text", hint_color: "--hint", link_color: "--link",
      button_color: "--button", button_text_color: "--button-text", secondary_bg_color: "--secondary-bg" };
    document.documentElement.classList.add("tg");
    for (const [k, v] of Object.entries(params || {}))
      if (map[k] && /^#[0-9a-fA-F]{3,8}$/.test(v)) document.documentElement.style.setProperty(map[k], v);
  }

  // Telegram's Mini App events without its script (which would come from a CDN): "ready" and
  // "expand" (the whole height for an exam), through whichever bridge the client has.
  function telegramEvent(type) {
    const data = JSON.stringify({});
    try {
      if (window.TelegramWebviewProxy) window.TelegramWebviewProxy.postEvent(type, data);
      else if (window.parent !== window) window.parent.postMessage(JSON.stringify({ eventType: type, eventData: {} }), "https://web.telegram.org");
    } catch (e) { /* not inside Telegram */ }
  }

  async function signIn() {
    const hash = location.hash.slice(1);
    let body = null;
    if (hash.includes("tgWebAppData=")) {
      const params = new URLSearchParams(hash);
      body = { init_data: params.get("tgWebAppData") };
      try { theme(JSON.parse(params.get("tgWebAppThemeParams") || "{}")); } catch (e) { /* no theme */ }
      telegramEvent("web_app_ready");
      telegramEvent("web_app_expand");
    } else if (location.pathname.endsWith("/login") && hash) {
      body = { link: hash };
    }
    // The token leaves the address bar (and the history) at once.
    if (hash) history.replaceState(null, "", "/app/" + location.search);
    if (body) {
      const res = await fetch("/app/api/session", { method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-Studybot": "1" }, body: JSON.stringify(body) });
      if (!res.ok) return signedOut(true);
    }
    const me = await api("GET", "me");
    if (me.kind === "signed_out" || me.kind === "error") return;
    L = me.labels; csrf = me.csrf; admin = !!me.admin;
    document.documentElement.lang = me.language;
    document.title = L.title;
    tabs();
    show(tab);
  }

  function tabs() {
    const names = ["mock", "drill", "mistakes", "favorites", "progress"].concat(admin ? ["admin"] : []);
    const nav = $("#tabs");
    nav.replaceChildren(...names.map((n) => el("button", { "data-tab": n, class: n === tab ? "on" : "",
      on: () => show(n) }, L["tab_" + n])));
    nav.hidden = false;
  }

  function show(name) {
    tab = name;
    stopTimer();
    for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("on", b.dataset.tab === name);
    main.replaceChildren(text("…", "hint"));
    if (name === "mock") return api("GET", "mock").then(drawMock);
    if (name === "drill") return drawDrillMenu();
    if (name === "mistakes" || name === "favorites") return drawList(name);
    if (name === "admin") return drawBanks();
    if (name === "progress") return page("progress").then(() => api("GET", "page/ready").then((r) => main.append(drawText(r))));
  }

  // ---------------------------------------------------------------- the mock exam

  function toast(message) {
    const node = el("div", { class: "toast", role: "alert" }, message);
    document.body.append(node);
    setTimeout(() => node.remove(), 4000);
    if (deadline && !timer) startTimer(Math.max(0, (deadline - performance.now()) / 1000));
  }

  function stopTimer() { if (timer) clearInterval(timer); timer = null; }

  function startTimer(remaining) {
    stopTimer();
    deadline = performance.now() + remaining * 1000; // the server's clock, re-read on every reply
    const tick = () => {
      const left = Math.max(0, Math.round((deadline - performance.now()) / 1000));
      const node = $("#timer");
      if (node) {
        node.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
        node.classList.toggle("low", left < 300);
      }
      if (left <= 0) { stopTimer(); setTimeout(() => api("GET", "mock").then(drawMock), 1500); }
    };
    tick();
    timer = setInterval(tick, 1000);
  }

  const act = (view, name, item, token) =>
    api("POST", "mock/act", { act: name, mock_id: view.mock_id, item, token }).then(drawMock);

  function drawMock(v) {
    if (tab !== "mock") return;
    stopTimer();
    if (v.kind === "closed") return api("GET", "mock").then(drawMock);
    if (v.kind === "signed_out") return;
    if (v.kind === "error" && document.querySelector("#stem, #sheet")) return toast(v.text); // keep the paper on screen
    if (v.kind === "none" || v.kind === "text" || v.kind === "error") {
      return main.replaceChildren(text(v.text, v.kind === "error" ? "error" : "text"),
        el("div", { class: "row" }, el("button", { id: "start-mock", on: () => api("POST", "mock/start").then(drawMock) }, L.start_mock)));
    }
    if (v.kind === "mock_question") return drawQuestion(v);
    if (v.kind === "mock_sheet") return drawSheetPage(v);
    if (v.kind === "mock_confirm") return drawConfirm(v);
    if (v.kind === "mock_report") return drawReport(v);
    if (v.kind === "mock_review") return drawReview(v);
  }

  function bar(v, title) {
    return el("div", { class: "bar" }, el("span", {}, title),
      el("span", {}, L.remaining + " ", el("span", { id: "timer", class: "timer" })));
  }

  // A question's pictures, under its stem, fetched from the bot with the session's cookie.
  function pictures(v) {
    return (v.pictures || []).map((src) => el("img", { class: "picture", src, alt: "" }));
  }

  function drawQuestion(v) {
    const nodes = [];
    if (v.intro) nodes.push(el("div", { class: "hint" }, v.intro.title + " · " + v.intro.sections.join(" · ")));
    nodes.push(bar(v, `${v.number} / ${v.count} · ${v.type}`));
    nodes.push(el("div", { class: "stem", id: "stem" }, v.stem), ...pictures(v));
    const chosen = new Set(v.chosen);
    if (v.input === "typed" || v.input === "self_graded") {
      const area = el("textarea", { id: "typed", placeholder: L.answer_placeholder, maxlength: "1000" });
      area.value = v.response || "";
      nodes.push(area, el("div", { class: "row" }, el("button", { on: () => act(v, "type", v.number, area.value) }, L.send)));
    } else {
      const texts = Object.fromEntries(v.options.map(([letter, t]) => [letter, t]));
      nodes.push(el("div", { class: "opts" }, v.buttons.map(([token, label]) =>
        el("button", { class: "opt" + (chosen.has(token) ? " on" : ""), "data-token": token,
          on: () => act(v, "pick", v.number, token) }, el("b", {}, label), el("span", {}, texts[label] || texts[token] || "")))));
    }
    nodes.push(el("div", { class: "row" },
      el("button", { class: "secondary", id: "prev", disabled: v.number <= 1, on: () => act(v, "back", v.number) }, L.prev),
      el("button", { class: "secondary flag" + (v.flagged ? " on" : ""), id: "flag",
        on: () => api("POST", "mock/flag", { item: v.number }).then(drawMock) }, v.flagged ? L.unflag : L.flag),
      el("button", { class: "secondary", id: "next", disabled: v.number >= v.count, on: () => act(v, "next", v.number) }, L.next)));
    if (v.sheet) sheet = v.sheet;
    if (sheet && sheet.mock_id === v.mock_id) {
      mark(v.number, v.response !== null && v.response !== undefined, v.flagged);
      if (v.saved) mark(v.saved, true, null);
      nodes.push(sheetGrid(sheet, v.number, v));
    }
    nodes.push(el("div", { class: "foot" }, el("div", { class: "row" },
      el("button", { id: "hand-in", on: () => handIn(v) }, L.hand_in))));
    main.replaceChildren(...nodes);
    startTimer(v.remaining);
  }

  function mark(number, answered, flagged) {
    for (const row of sheet.rows) for (const it of row.items) if (it.number === number) {
      it.answered = answered;
      if (flagged !== null) it.flagged = flagged;
    }
    sheet.answered = sheet.rows.reduce((n, row) => n + row.items.filter((it) => it.answered).length, 0);
  }

  function sheetGrid(s, here, v) {
    return el("section", { class: "sheet", id: "sheet" },
      el("div", { class: "legend" }, el("span", {}, el("i", { class: "a" }), L.answered),
        el("span", {}, el("i"), L.unanswered), el("span", {}, el("i", { class: "f" }), L.flagged),
        el("span", {}, `${s.answered} / ${s.count}`)),
      s.rows.map((row) => [el("h3", {}, row.type), el("div", { class: "grid" }, row.items.map((it) =>
        el("button", { class: "cell" + (it.answered ? " answered" : "") + (it.flagged ? " flagged" : "") + (it.number === here ? " here" : ""),
          "data-number": it.number, "aria-label": String(it.number),
          on: () => act(v || s, "go", it.number) }, String(it.number))))]));
  }

  function drawSheetPage(s) {
    sheet = s;
    main.replaceChildren(bar(s, L.sheet), sheetGrid(s, s.position, s),
      el("div", { class: "foot" }, el("div", { class: "row" },
        el("button", { class: "secondary", on: () => act(s, "go", s.position) }, L.back_to_paper),
        el("button", { id: "hand-in", on: () => handIn(s) }, L.hand_in))));
    startTimer(s.remaining);
  }

  function ask(message) {
    const dialog = $("#confirm");
    $("#confirm-text").textContent = message;
    $("#confirm-yes").textContent = L.confirm;
    $("#confirm-no").textContent = L.cancel;
    return new Promise((resolve) => {
      $("#confirm-yes").onclick = () => { dialog.close(); resolve(true); };
      $("#confirm-no").onclick = () => { dialog.close(); resolve(false); };
      dialog.showModal();
    });
  }

  async function handIn(v) {
    const s = sheet && sheet.mock_id === v.mock_id ? sheet : v;
    if (s.answered === undefined || s.answered < s.count) {
      return act(v, "submit", v.number || v.position); // the server lists what is blank and asks
    }
    if (await ask(L.confirm_all)) act(v, "submit", v.number || v.position);
  }

  async function drawConfirm(v) {
    if (await ask(v.text)) act(v, "confirm", v.position);
    else act(v, "go", v.unanswered[0] || v.position);
  }

  function drawReport(r) {
    const nodes = [el("h2", {}, L.report), el("div", { class: "score", id: "score" }, r.headline)];
    if (r.verdict) nodes.push(el("div", { class: r.passed ? "pass" : "fail" }, r.verdict));
    nodes.push(el("table", { id: "sections" }, r.sections.map((s) => el("tr", {}, el("td", {}, s.type), el("td", {}, `${s.score} / ${s.total}${s.mark || ""}`)))));
    if (r.pending.length) nodes.push(el("h3", {}, r.pending_text));
    for (const p of r.pending) {
      nodes.push(el("div", { class: "wrong pending" }, el("p", {}, el("b", {}, `${p.number}. `), p.stem),
        el("p", { class: "hint" }, fill(L.your_answer, p.response || L.blank)),
        el("p", {}, fill(L.right_answer, p.reference)),
        p.key_points.length ? el("p", { class: "hint" }, "• " + p.key_points.join("  • ")) : null,
        el("div", { class: "row" }, r.grades.map(([level, label]) => el("button", { class: "secondary",
          "data-grade": level, on: () => api("POST", "mock/grade", { item: p.number, level }).then(drawMock) }, label)))));
    }
    if (r.wrong.length) nodes.push(el("h3", {}, L.wrong_items));
    for (const w of r.wrong) {
      nodes.push(el("div", { class: "wrong" }, el("p", {}, el("b", {}, `${w.number}. `), w.stem),
        el("p", { class: "hint" }, fill(L.your_answer, w.given || L.blank) + " · " + fill(L.right_answer, w.right)),
        w.explanation ? el("p", {}, w.explanation) : null,
        el("button", { class: "secondary", on: () => api("GET", `mock/${r.mock_id}/review/${w.number}`).then(drawMock) }, L.review_item)));
    }
    nodes.push(el("div", { class: "row" }, el("button", { id: "start-mock", on: () => api("POST", "mock/start").then(drawMock) }, L.start_mock)));
    main.replaceChildren(...nodes);
  }

  function drawReview(v) {
    const right = new Set(v.right_tokens);
    main.replaceChildren(el("div", { class: "bar" }, el("span", {}, `${v.number} / ${v.count}`),
      v.question ? star(v.starred, { question: v.question }) : null),
      el("div", { class: "stem" }, v.stem), ...pictures(v),
      el("div", { class: "opts" }, v.options.map(([letter, t]) => el("div", { class: "opt" + (right.has(letter) ? " right" : "") }, el("b", {}, letter), el("span", {}, t)))),
      el("p", {}, fill(L.your_answer, v.given || L.blank)), el("p", {}, fill(L.right_answer, v.right)),
      v.explanation ? text(v.explanation) : null,
      el("div", { class: "row" }, el("button", { class: "secondary", on: () => api("GET", "mock/report").then(drawMock) }, L.back_to_report)));
  }

  // ---------------------------------------------------------------- the star (☆ / ★)

  // The person's star on a question: the server says which it is, a tap flips it there (the
  // chat's ☆ click on a practice round; by the question's id elsewhere) and then here.
  function star(starred, target, compact) {
    let on = !!starred;
    const b = el("button", { class: "secondary star" + (compact ? " icon" : "") });
    const draw = () => {
      b.classList.toggle("on", on);
      b.setAttribute("aria-pressed", String(on));
      if (compact) { b.textContent = on ? "★" : "☆"; b.setAttribute("aria-label", on ? L.starred : L.star); }
      else b.textContent = on ? L.starred : L.star;
    };
    b.addEventListener("click", async () => {
      b.disabled = true;
      const r = await api("POST", "favourite", { ...target, on: !on });
      b.disabled = false;
      if (r.kind === "star") { on = r.starred; draw(); }
      else if (r.kind !== "signed_out") notice(r.text || L.closed, false);
    });
    draw();
    return b;
  }

  // ---------------------------------------------------------------- drilling and the other pages

  function drawText(r) {
    return el("div", {}, text(r.text, r.kind === "error" ? "error" : "text"), (r.images || []).map((src) => el("img", { src, alt: "" })));
  }

  async function page(name) {
    const r = await api("GET", "page/" + name);
    if (tab === name) main.replaceChildren(drawText(r));
  }

  // The mistake notebook or the favourites: each question with its star, practise them, and the
  // notebook's table to download (the chat's /mistakes export).
  async function drawList(name) {
    const r = await api("GET", "page/" + name);
    if (tab !== name) return;
    if (r.kind !== "mistakes" && r.kind !== "favorites") return main.replaceChildren(drawText(r));
    const groups = r.kind === "mistakes" ? r.groups : [{ title: "", rows: r.rows }];
    const nodes = [el("p", { class: "head" }, r.header), r.causes ? el("p", { class: "hint" }, r.causes) : null];
    for (const g of groups) {
      if (g.title) nodes.push(el("h3", { class: "group" }, g.title));
      nodes.push(el("div", { class: "items" }, g.rows.map((row) => el("div", { class: "item", "data-number": row.number },
        el("span", {}, row.text), star(row.starred, { question: row.question }, true)))));
    }
    if (groups.some((g) => g.rows.length)) {
      const mistakes = name === "mistakes";
      nodes.push(el("div", { class: "row" },
        el("button", { id: "practise", on: () => drill(name) }, mistakes ? L.practise_mistakes : L.practise_favorites),
        mistakes ? el("a", { class: "button secondary", id: "export", href: "/app/api/mistakes/export", download: "" }, L.export_mistakes) : null));
    }
    if (r.how) nodes.push(el("p", { class: "hint" }, r.how));
    main.replaceChildren(...nodes.filter((n) => n));
  }

  function drawDrillMenu() {
    main.replaceChildren(el("div", { class: "row" },
      el("button", { id: "drill-random", on: () => drill("random") }, L.drill_random),
      el("button", { class: "secondary", on: () => drill("sequential") }, L.drill_sequential)),
      el("div", { class: "row" }, el("button", { class: "secondary", on: () => drill("review") }, L.review_due)));
  }

  async function drill(mode) {
    tab = "drill";
    for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("on", b.dataset.tab === "drill");
    drawDrill(await api("POST", "drill/start", { mode }), null);
  }

  function drawDrill(r, round) {
    if (r.kind !== "question") {
      const nodes = [drawText(r)];
      if (r.kind === "receipt" && r.next && round)
        nodes.push(el("div", { class: "row" }, el("button", { id: "drill-next", on: () => answer(round, "n") }, L.next_question)));
      if (r.kind === "receipt" && (r.self_grade || []).length && round)
        nodes.push(el("div", { class: "row" }, r.self_grade.map(([level, label]) =>
          el("button", { class: "secondary", on: () => answer(round, level) }, label))));
      return main.replaceChildren(...(round && r.kind === "receipt" ? [round.node, ...nodes] : nodes));
    }
    const node = el("div", {}, el("div", { class: "qhead" }, el("span", { class: "hint" }, r.header),
      r.question ? star(r.starred, { round_id: r.round_id }) : null), el("div", { class: "stem" }, r.stem), ...pictures(r));
    const option = (label, t) => [el("b", {}, label), el("span", {}, t)];
    const q = { id: r.round_id, node };
    if (r.input === "typed" || r.input === "self_graded") {
      const area = el("textarea", { placeholder: L.answer_placeholder, maxlength: "1000" });
      node.append(area, el("div", { class: "row" }, el("button", { on: () => answer(q, area.value) }, L.send)));
    } else if (r.input === "choose_many" || r.input === "order") {
      // toggles, or an order: options tapped in order (again: out), each numbered by its place
      const picked = [];
      const ordered = r.input === "order";
      const marks = [];
      const draw = () => marks.forEach(([token, b, n]) => {
        const at = picked.indexOf(token);
        b.classList.toggle("on", at >= 0);
        n.textContent = ordered && at >= 0 ? `${at + 1}· ` : "";
      });
      node.append(el("div", { class: "opts" }, r.options.map(([token, label, t]) => {
        const n = el("i", {});
        const b = el("button", { class: "opt", on: () => {
          const at = picked.indexOf(token);
          at >= 0 ? picked.splice(at, 1) : picked.push(token);
          draw();
        } }, n, ...option(label, t));
        marks.push([token, b, n]);
        return b;
      })), el("div", { class: "row" }, el("button", {
        on: () => answer(q, ordered ? picked.join(",") : [...picked].sort().join(",")) }, L.send)));
    } else {
      node.append(el("div", { class: "opts" }, r.options.map(([token, label, t]) =>
        el("button", { class: "opt", "data-token": token, on: () => answer(q, token) }, option(label, t)))));
    }
    // what became of the question before (skipped, with its answer; a replaced run's summary)
    main.replaceChildren(...(r.lead ? [text(r.lead, "text lead"), node] : [node]));
  }

  async function answer(round, value) {
    const r = await api("POST", "drill/answer", { round_id: round.id, text: value });
    if (r.kind === "receipt") {
      for (const b of round.node.querySelectorAll("button:not(.star)")) { // the star stays live
        b.disabled = true;
        if (b.dataset.token === value) b.classList.add("on"); // the option tapped stays marked
      }
    }
    drawDrill(r, r.kind === "question" ? null : round);
  }

  // ---------------------------------------------------------------- a bank's admin page (its owners)

  function notice(message, ok) {
    const node = el("div", { class: "toast" + (ok ? " ok" : ""), role: "status" }, message);
    document.body.append(node);
    setTimeout(() => node.remove(), 4000);
  }

  async function drawBanks() {
    const r = await api("GET", "admin/banks");
    if (tab !== "admin") return;
    if (r.kind === "error") return main.replaceChildren(text(r.text, "error"));
    const banks = r.banks || [];
    if (banks.length === 1) return drawBank(banks[0].id, false);
    main.replaceChildren(el("h2", {}, L.tab_admin), el("div", { class: "banks" }, banks.map((b) =>
      el("button", { class: "secondary bank", "data-bank": b.id, on: () => drawBank(b.id, true) }, b.title))));
  }

  async function drawBank(id, many) {
    const v = await api("GET", "admin/bank/" + encodeURIComponent(id));
    if (tab !== "admin" || v.kind === "signed_out") return;
    const back = many ? el("div", { class: "row" }, el("button", { class: "secondary", on: drawBanks }, L.all_banks)) : null;
    if (v.kind !== "bank_admin") return main.replaceChildren(...[text(v.text, "error"), back].filter((n) => n));
    const [title, ...rest] = v.header;
    const nodes = [el("h2", {}, title), rest.map((line) => el("p", { class: "hint" }, line)),
      el("h3", {}, v.flagged_title)];
    for (const c of v.cards) {
      nodes.push(el("section", { class: "card" + (c.flagged ? " flagged" : ""), "data-number": c.number },
        el("p", { class: "heading" }, c.mark ? el("span", { class: "badge" }, c.mark) : null, el("b", {}, c.heading)),
        el("p", { class: "hint" }, c.stem),
        c.why.map((w) => el("p", { class: "why" }, w)),
        c.options.length ? el("div", { class: "picks" }, c.options.map((o) =>
          el("div", { class: "pick" + (o.correct ? " key" : "") + (o.rival ? " rival" : "") },
            el("b", {}, o.label), el("span", { class: "track" }, pickBar(o.width)),
            el("span", {}, o.share + (o.correct ? " ✓" : ""))))) : null,
        c.reports.map((r) => reportBox(r, id, many))));
    }
    if (v.orphans.length) nodes.push(el("h3", {}, L.orphan_reports), v.orphans.map((r) => reportBox(r, id, many)));
    if (v.others.length) nodes.push(el("details", { class: "others" }, el("summary", {}, v.others_title),
      v.others.map((o) => el("div", { class: "hint" }, o.line))));
    main.replaceChildren(...[back, ...nodes].flat().filter((n) => n));
  }

  // Through the CSSOM: the page's CSP refuses style attributes.
  function pickBar(width) { const i = el("i"); i.style.width = width + "%"; return i; }

  function reportBox(r, bank, many) {
    const note = el("textarea", { class: "note", placeholder: L.note_placeholder, maxlength: "500" });
    const close = async (action) => {
      const done = await api("POST", "admin/report", { id: r.id, action, note: note.value });
      if (done.kind === "signed_out") return;
      notice(done.text, done.kind !== "error");
      if (done.kind !== "error") drawBank(bank, many);
    };
    return el("div", { class: "report", "data-report": r.id }, el("p", {}, r.line), note,
      el("div", { class: "row" }, el("button", { class: "resolve", on: () => close("resolve") }, L.resolve),
        el("button", { class: "secondary dismiss", on: () => close("dismiss") }, L.dismiss)));
  }

  signIn();
})();
