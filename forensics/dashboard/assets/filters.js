// ci-forensics triage dashboard: filters the causes by kind, category, GPU model, runner and a search text.
// The state lives in the query string (?kind=cause&gpu=NVIDIA+A10G&q=memory), so a copied link opens the
// same view. Without this script the form stays hidden and every cause is listed.
"use strict";

(function () {
  const FIELDS = ["kind", "category", "gpu", "runner", "q"];

  function listOf(text) {
    try {
      const value = JSON.parse(text || "[]");
      return Array.isArray(value) ? value : [];
    } catch (error) {
      return [];
    }
  }

  function readForm(form) {
    const state = {};
    FIELDS.forEach(function (name) {
      const field = form.elements.namedItem(name);
      state[name] = field ? field.value.trim() : "";
    });
    return state;
  }

  function writeForm(form, state) {
    FIELDS.forEach(function (name) {
      const field = form.elements.namedItem(name);
      if (!field) {
        return;
      }
      const value = state[name] || "";
      if (field.tagName === "SELECT" && value && !Array.from(field.options).some(function (option) {
        return option.value === value;
      })) {
        // A link from another build may name a value this one lacks: show it, matching nothing.
        const option = document.createElement("option");
        option.value = value;
        option.textContent = value;
        field.appendChild(option);
      }
      field.value = value;
    });
  }

  function stateFromUrl() {
    const params = new URLSearchParams(window.location.search);
    const state = {};
    FIELDS.forEach(function (name) {
      state[name] = params.get(name) || "";
    });
    return state;
  }

  function matches(item, state) {
    const data = item.dataset;
    if (state.kind && data.kind !== state.kind) {
      return false;
    }
    if (state.category && data.category !== state.category) {
      return false;
    }
    if (state.gpu && listOf(data.gpus).indexOf(state.gpu) < 0) {
      return false;
    }
    if (state.runner && listOf(data.runners).indexOf(state.runner) < 0) {
      return false;
    }
    if (state.q) {
      const words = state.q.toLowerCase().split(/\s+/);
      const text = data.search || "";
      return words.every(function (word) {
        return text.indexOf(word) >= 0;
      });
    }
    return true;
  }

  function apply(form, state) {
    const rows = Array.from(document.querySelectorAll('#causes-table [data-filter="cause"]'));
    let shown = 0;
    document.querySelectorAll('[data-filter="cause"]').forEach(function (item) {
      if (matches(item, state)) {
        item.removeAttribute("data-filtered");
      } else {
        item.setAttribute("data-filtered", "out");
      }
    });
    rows.forEach(function (row) {
      if (!row.hasAttribute("data-filtered")) {
        shown += 1;
      }
    });
    const output = form.querySelector("output");
    if (output) {
      output.textContent = "Showing " + shown + " of " + rows.length;
    }
  }

  function saveToUrl(state) {
    const params = new URLSearchParams();
    FIELDS.forEach(function (name) {
      if (state[name]) {
        params.set(name, state[name]);
      }
    });
    const query = params.toString();
    const url = window.location.pathname + (query ? "?" + query : "") + window.location.hash;
    try {
      window.history.replaceState(null, "", url);
    } catch (error) {
      // Some browsers refuse to change a file: URL; the view still filters, only the link does not follow.
    }
  }

  function start() {
    const form = document.getElementById("filters");
    if (!form) {
      return;
    }
    form.hidden = false;
    writeForm(form, stateFromUrl());
    apply(form, readForm(form));
    function update() {
      const state = readForm(form);
      apply(form, state);
      saveToUrl(state);
    }
    form.addEventListener("input", update);
    form.addEventListener("change", update);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      update();
    });
    form.addEventListener("reset", function () {
      window.setTimeout(update, 0); // after the browser has put the fields back
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
