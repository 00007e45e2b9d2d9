// The board's own script: live updates (EventSource), actions (fetch) and keys.
// Pages are rendered on the server; this only fetches a page's view again
// when refs/coop/ledger moves, and posts forms without leaving the page.
"use strict";

(function () {
  const view = () => document.getElementById("view");
  const live = () => document.getElementById("live");
  const csrf = () => document.querySelector('meta[name="csrf"]').content;
  let pending = false; // a refresh waits until the reader leaves a field they are typing in

  function shownTip() {
    const root = view().querySelector("[data-tip]");
    return root ? root.dataset.tip : "";
  }

  function typing() {
    const el = document.activeElement;
    return el && view().contains(el) && /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName) &&
      el.value !== "" && el.type !== "hidden" && el.type !== "submit";
  }

  function fragmentUrl() {
    const url = new URL(window.location.href);
    url.searchParams.set("fragment", "1");
    return url.toString();
  }

  async function refresh() {
    if (typing()) {
      pending = true;
      return;
    }
    pending = false;
    const focusedId = document.activeElement && document.activeElement.dataset
      ? document.activeElement.dataset.id : null;
    const open = Array.from(view().querySelectorAll("details[open]")).map(pathOf);
    let response;
    try {
      response = await fetch(fragmentUrl(), { credentials: "same-origin" });
    } catch (e) {
      setLive("lost");
      return;
    }
    const html = await response.text();
    view().innerHTML = html;
    open.forEach(function (p) {
      const el = byPath(p);
      if (el) el.open = true;
    });
    if (focusedId) {
      const card = view().querySelector('.card[data-id="' + CSS.escape(focusedId) + '"]');
      if (card) card.focus();
    }
    document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || 0) + 1);
  }

  function pathOf(el) {
    const card = el.closest("[data-id]");
    const summary = el.querySelector("summary");
    return (card ? card.dataset.id : "") + "|" + (summary ? summary.textContent : "");
  }

  function byPath(p) {
    const found = Array.from(view().querySelectorAll("details"));
    return found.find(function (el) { return pathOf(el) === p; });
  }

  document.addEventListener("focusout", function () {
    if (pending) setTimeout(function () { if (pending) refresh(); }, 0);
  });

  function setLive(state) {
    const el = live();
    el.dataset.state = state;
    el.textContent = state === "live" ? "live" :
      state === "lost" ? "lost the server — retrying…" : "connecting…";
    document.body.classList.toggle("disconnected", state === "lost");
  }

  function connect() {
    const source = new EventSource("/events");
    source.addEventListener("open", function () {
      setLive("live");
    });
    source.addEventListener("ledger", function (event) {
      setLive("live");
      if (event.data !== shownTip()) refresh();
    });
    source.addEventListener("error", function () {
      setLive("lost");
    });
  }

  function toast(message, ok) {
    const el = document.getElementById("toast");
    el.textContent = message;
    el.className = ok ? "ok" : "refused";
    el.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(function () { el.hidden = true; }, ok ? 4000 : 12000);
  }

  document.addEventListener("submit", async function (event) {
    const form = event.target;
    if (!form.classList || !form.classList.contains("act")) return;
    event.preventDefault();
    const body = new FormData(form);
    let answer;
    try {
      const response = await fetch(form.action, {
        method: "POST",
        body: body,
        credentials: "same-origin",
        headers: { "X-CSRF-Token": csrf(), "X-Board": "fetch" },
      });
      answer = await response.json();
    } catch (e) {
      toast("gitcoop: the server did not answer — is git coop serve still running?", false);
      return;
    }
    toast(answer.ok ? answer.message : "gitcoop: " + answer.message, answer.ok);
    if (answer.ok && form.id === "add-form") form.reset();
    if (document.activeElement && form.contains(document.activeElement)) {
      document.activeElement.blur();
    }
    refresh();
  });

  // keys: j/k move between cards, Enter opens one, t takes it, d finishes it, / searches
  function cards() {
    return Array.from(view().querySelectorAll(".card"));
  }

  function move(step) {
    const all = cards();
    if (!all.length) return;
    const at = all.indexOf(document.activeElement);
    const next = at < 0 ? 0 : Math.max(0, Math.min(all.length - 1, at + step));
    all[next].focus();
  }

  function act(card, key) {
    const form = card.querySelector('form[data-key="' + key + '"]');
    if (!form) return;
    const details = form.closest("details");
    if (details && !details.open) {
      details.open = true;
      const first = form.querySelector("input:not([type=hidden])");
      if (first) first.focus();
      return;
    }
    form.requestSubmit();
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const el = document.activeElement;
    if (el && /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName)) {
      if (event.key === "Escape") el.blur();
      return;
    }
    const focused = el && el.classList && el.classList.contains("card") ? el : null;
    const card = focused || view().querySelector(".item-view");
    if (event.key === "j") move(1);
    else if (event.key === "k") move(-1);
    else if (event.key === "Enter" && focused) window.location.href = focused.dataset.href;
    else if (event.key === "t" && card) act(card, "t");
    else if (event.key === "d" && card) act(card, "d");
    else if (event.key === "/") {
      const search = document.getElementById("search");
      if (search) {
        event.preventDefault();
        search.focus();
      }
    } else return;
  });

  connect();
})();
