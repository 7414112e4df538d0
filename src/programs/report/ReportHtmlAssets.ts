// What a report page carries besides its markup: the style sheet, and the one small inline script
// (sorting, filters, the rows past the first screen, lazy trajectories) with the deferred parts it builds.
// The run page and the comparison page share both.

export const style = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#1f2328}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #d0d7de;padding-bottom:.2rem}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums}
.ok{color:#1a7f37;font-weight:600}.bad{color:#cf222e;font-weight:600}
pre{background:#f6f8fa;padding:.5rem;overflow-x:auto;white-space:pre-wrap;word-break:break-word;margin:.3rem 0}
details{margin:.3rem 0}details.q{border:1px solid #d0d7de;border-radius:6px;padding:.3rem .6rem}
details.step{margin-left:1rem;border-left:3px solid #d0d7de;padding-left:.6rem}
summary{cursor:pointer}th[data-sort]{cursor:pointer;user-select:none}th[data-dir=asc]::after{content:" ▲"}th[data-dir=desc]::after{content:" ▼"}
.filters label{margin-right:1rem}svg.timeline{display:block;margin:.4rem 0}.muted{color:#57606a}.kv td:first-child{font-weight:600;white-space:nowrap}
.legend{font-size:12px;margin:.4rem 0 0}.legend i{display:inline-block;width:10px;height:10px;margin:0 .25rem 0 .8rem;vertical-align:-1px}.legend i:first-child{margin-left:0}
.frames{display:flex;flex-wrap:wrap;gap:.5rem;margin:.3rem 0}figure.frame{margin:0;max-width:320px;border:1px solid #d0d7de;border-radius:4px;padding:.25rem}
figure.frame img{display:block;max-width:100%;height:auto;background:#eaeef2}figure.frame figcaption{font-size:12px;word-break:break-all}
.nofile{width:200px;padding:.5rem;background:#eaeef2;color:#57606a;font-size:12px;word-break:break-all}
`

/**
 * Rows and trajectory shells past the first screen travel as the raw text of a script element (which
 * the parser only scans for its end tag) and are built after the first paint: at 2,700 questions,
 * building those nodes before showing anything was most of the page's load time.
 */
export const firstRows = 100

export const deferred = (id: string, parts: ReadonlyArray<string>): string =>
  // Data is escaped, so only our own markup has tags; a closing script tag still must not slip through.
  parts.length === 0
    ? ""
    : `<script type="text/html" id="${id}">${parts.join("\n").replace(/<\/(script)/gi, "&lt;/$1")}</script>`

// Sorting, filtering, the rows and trajectories past the first screen, and trajectory bodies on first
// opening. Without it the page still shows the summary, the charts and the first rows.
export const script = `
(() => {
  // Deferred rows and shells (see \`deferred\`): built once, before anything that needs them all.
  let complete = false;
  const completePage = () => {
    if (complete) return;
    complete = true;
    for (const [id, target] of [["rest-rows", "#questions > tbody"], ["rest-shells", "#trajectories"]]) {
      const stored = document.getElementById(id);
      const into = document.querySelector(target);
      if (stored && into) into.insertAdjacentHTML("beforeend", stored.textContent);
    }
    document.body.dataset.complete = "1";
  };
  // Right after the first frame; a hidden tab or a headless browser may paint no frame, so a timer too.
  addEventListener("load", () => { requestAnimationFrame(() => setTimeout(completePage, 0)); setTimeout(completePage, 1000); });
  const table = document.getElementById("questions");
  if (table) {
    const body = table.tBodies[0];
    let all;
    const rowsOf = () => { completePage(); return all ??= Array.from(body.rows); };
    const type = document.getElementById("f-type");
    const outcome = document.getElementById("f-outcome");
    const count = document.getElementById("f-count");
    const filter = () => {
      let shown = 0;
      for (const row of rowsOf()) {
        const ok = (!type.value || row.dataset.type === type.value) && (!outcome.value || row.dataset.outcome === outcome.value);
        row.hidden = !ok;
        if (ok) shown++;
      }
      count.textContent = shown.toLocaleString("en-US") + " shown";
    };
    type.addEventListener("change", filter);
    outcome.addEventListener("change", filter);
    table.tHead.addEventListener("click", (event) => {
      const th = event.target.closest("th");
      if (!th) return;
      const col = th.cellIndex;
      const numeric = th.dataset.sort === "n";
      const dir = th.dataset.dir === "asc" ? -1 : 1;
      for (const other of th.parentNode.children) delete other.dataset.dir;
      th.dataset.dir = dir === 1 ? "asc" : "desc";
      const key = (row) => { const cell = row.cells[col]; return cell.dataset.v ?? cell.textContent; };
      const rows = rowsOf();
      rows.sort((a, b) => {
        const x = key(a), y = key(b);
        return dir * (numeric ? Number(x) - Number(y) : x.localeCompare(y, "en", { numeric: true }));
      });
      body.append(...rows);
    });
  }
  // The run page carries every trajectory body in one gzipped JSON array (#bodies, base64), unpacked by the
  // browser's own DecompressionStream the first time one is opened.
  let bodies;
  const packed = () => bodies ??= fetch("data:application/gzip;base64," + document.getElementById("bodies").textContent.trim())
    .then((response) => new Response(response.body.pipeThrough(new DecompressionStream("gzip"))).json());
  // Frame thumbnails travel once each, as the text of #frame-N; an opened trajectory's images take theirs.
  const frames = (root) => {
    for (const img of root.querySelectorAll("img[data-frame]:not([src])")) {
      const stored = document.getElementById("frame-" + img.dataset.frame);
      if (stored) img.src = "data:image/jpeg;base64," + stored.textContent;
    }
  };
  const fill = (details) => {
    const template = details.querySelector(":scope > template");
    if (template) details.replaceChild(template.content, template);
    if (details.dataset.filled) return;
    details.dataset.filled = "1";
    if (details.dataset.body && document.getElementById("bodies")) {
      packed().then((all) => { details.insertAdjacentHTML("beforeend", all[Number(details.dataset.body)]); frames(details); });
    } else frames(details);
  };
  document.addEventListener("toggle", (event) => { if (event.target.open) fill(event.target); }, true);
  const open = () => {
    if (location.hash) completePage();
    const target = location.hash && document.getElementById(location.hash.slice(1));
    if (target && target.tagName === "DETAILS") { fill(target); target.open = true; target.scrollIntoView(); }
  };
  window.addEventListener("hashchange", open);
  open();
})();
`
