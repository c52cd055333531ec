// ci-forensics triage dashboard: sorts tables when a header is clicked. The pages are complete without it.
"use strict";

(function () {
  function sortKey(row, index) {
    const cell = row.cells[index];
    if (!cell) {
      return "";
    }
    return cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent.trim();
  }

  function compare(left, right, numeric) {
    if (numeric) {
      const a = Number(left);
      const b = Number(right);
      if (!Number.isNaN(a) && !Number.isNaN(b)) {
        return a - b;
      }
    }
    return String(left).localeCompare(String(right), undefined, { numeric: true, sensitivity: "base" });
  }

  function sortBy(table, header, direction) {
    const body = table.tBodies[0];
    const index = header.cellIndex;
    const numeric = header.dataset.type === "number";
    const sign = direction === "ascending" ? 1 : -1;
    const rows = Array.from(body.rows).map(function (row, position) {
      return { row: row, key: sortKey(row, index), position: position };
    });
    rows.sort(function (a, b) {
      // Equal keys keep their current order, so sorting by a second column refines the first.
      return sign * compare(a.key, b.key, numeric) || a.position - b.position;
    });
    rows.forEach(function (entry) {
      body.appendChild(entry.row);
    });
    Array.from(header.parentNode.cells).forEach(function (cell) {
      if (cell !== header) {
        cell.removeAttribute("aria-sort");
      }
    });
    header.setAttribute("aria-sort", direction);
  }

  function nextDirection(header) {
    const current = header.getAttribute("aria-sort");
    if (current === "ascending") {
      return "descending";
    }
    if (current === "descending") {
      return "ascending";
    }
    // Counts and dates are most useful largest or latest first; names from A.
    return header.dataset.type === "number" ? "descending" : "ascending";
  }

  function enhance(table) {
    if (!table.tHead || !table.tBodies.length) {
      return;
    }
    Array.from(table.tHead.rows[0].cells).forEach(function (header) {
      const button = document.createElement("button");
      button.type = "button";
      while (header.firstChild) {
        button.appendChild(header.firstChild);
      }
      header.appendChild(button);
      button.addEventListener("click", function () {
        sortBy(table, header, nextDirection(header));
      });
    });
  }

  function start() {
    document.querySelectorAll("table.sortable").forEach(enhance);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
