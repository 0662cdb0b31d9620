(function () {
  "use strict";
  const table = document.getElementById("games");
  const body = table.tBodies[0];
  const filter = document.getElementById("filter");
  const variant = document.getElementById("variant");
  const count = document.getElementById("count");
  function apply() {
    const q = filter.value.trim().toLowerCase();
    let shown = 0;
    for (const row of body.rows) {
      const ok = (!variant.value || row.dataset.variant === variant.value) &&
        (!q || row.textContent.toLowerCase().includes(q));
      row.hidden = !ok;
      if (ok) shown++;
    }
    count.textContent = shown + " / " + body.rows.length;
  }
  Array.from(table.tHead.rows[0].cells).forEach((th, col) => {
    th.addEventListener("click", () => {
      const asc = !th.classList.contains("asc");
      Array.from(th.parentElement.cells).forEach((c) => c.classList.remove("asc", "desc"));
      th.classList.add(asc ? "asc" : "desc");
      const num = th.dataset.type === "number";
      const key = (row) => {
        const t = row.cells[col].textContent.trim();
        return num ? (t === "" || isNaN(Number(t)) ? -Infinity : Number(t)) : t.toLowerCase();
      };
      const rows = Array.from(body.rows).sort((a, b) => {
        const x = key(a), y = key(b);
        return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
      });
      rows.forEach((r) => body.append(r));
    });
  });
  filter.addEventListener("input", apply);
  variant.addEventListener("change", apply);
  apply();
})();
