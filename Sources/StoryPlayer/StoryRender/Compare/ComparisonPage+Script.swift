// MARK: - The page's HTML, style and script

extension ComparisonPage {
    static let head = """
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>compare</title>
    <style>
    body { font: 14px system-ui, sans-serif; margin: 16px; background: #f6f6f8; color: #202024; }
    h1 { font-size: 18px; margin: 0 0 4px; }
    #verdict.pass { color: #16794a; } #verdict.fail { color: #b3261e; }
    #pictures { display: flex; gap: 12px; margin: 12px 0; }
    figure { margin: 0; flex: 1; text-align: center; }
    figure img { max-width: 100%; max-height: 60vh; background: #ddd; }
    figure .missing { padding: 40px 8px; background: #e8e8ec; color: #666; }
    figcaption { font-size: 12px; color: #555; }
    #scrubber { width: 100%; }
    svg { display: block; width: 100%; background: #fff; border: 1px solid #ddd; margin-top: 8px; }
    .verdict-same { fill: #9ccc9c; } .verdict-changed { fill: #e0a030; }
    .verdict-inserted { fill: #4a7bd0; } .verdict-deleted { fill: #c04040; }
    .worst { fill: #b3261e; cursor: pointer; } .playhead { stroke: #202024; stroke-width: 1.5; }
    .lane-name { font-size: 11px; fill: #555; } .mark { cursor: pointer; }
    .mark-added { fill: #4a7bd0; } .mark-removed { fill: #c04040; } .mark-changed { fill: #e0a030; }
    #trace-list li { cursor: pointer; } #errors { color: #b3261e; white-space: pre-wrap; }
    </style>
    </head>
    <body>
    <h1>compare: <span id="verdict"></span></h1>
    <div id="sides"></div>
    <div id="errors" hidden></div>
    <div id="pictures">
    <figure><div id="pane-a"></div><figcaption>A</figcaption></figure>
    <figure><div id="pane-b"></div><figcaption>B</figcaption></figure>
    <figure><div id="pane-diff"></div><figcaption>difference (B dimmed, the difference ×4 in red)</figcaption></figure>
    </div>
    <input type="range" id="scrubber" min="0" value="0" aria-label="pair">
    <div id="position"></div>
    <svg id="curve" viewBox="0 0 1000 120" preserveAspectRatio="none" aria-label="SSIM a pair"></svg>
    <svg id="alignment" viewBox="0 0 1000 16" preserveAspectRatio="none" aria-label="alignment"></svg>
    <svg id="lanes" viewBox="0 0 1000 20" aria-label="the traces' differences"></svg>
    <ul id="trace-list"></ul>
    <p>Keys: ← → a pair, Home and End, N and P the next and previous difference.</p>

    """

    static let script = """
    "use strict";
    const errors = document.getElementById("errors");
    window.addEventListener("error", event => { errors.hidden = false; errors.textContent += event.message + "\\n"; });
    const data = JSON.parse(document.getElementById("compare-data").textContent);
    const report = data.report, steps = report.frames, count = steps.length;
    const $ = id => document.getElementById(id);
    const pad = n => String(n).padStart(6, "0");
    const svgNS = "http://www.w3.org/2000/svg";
    const x = i => count <= 1 ? 500 : (i + 0.5) * 1000 / count;
    function element(name, attributes, parent) {
      const made = document.createElementNS(svgNS, name);
      for (const key in attributes) made.setAttribute(key, attributes[key]);
      parent.appendChild(made);
      return made;
    }
    function frameURL(side, n) {
      if (n == null) return null;
      if (side.kind === "frames") return side.prefix + pad(n) + ".png";
      return side.written.includes(n) ? side.prefix + pad(n) + ".png" : null;
    }
    function differenceURL(pair) {
      if (pair.a == null || pair.b == null) return null;
      const name = pad(pair.a) + "-" + pad(pair.b);
      return data.differences.includes(name) ? "diff/" + name + ".png" : null;
    }
    function setPicture(pane, url, absent) {
      const box = $(pane);
      box.textContent = "";
      if (url) {
        const picture = document.createElement("img");
        picture.src = url;
        picture.alt = pane;
        picture.id = pane.replace("pane", "picture");
        box.appendChild(picture);
      } else {
        const note = document.createElement("div");
        note.className = "missing";
        note.textContent = absent;
        box.appendChild(note);
      }
    }
    function describe(pair) {
      const sides = (pair.a == null ? "" : "A " + pair.a) + (pair.a != null && pair.b != null ? ", " : "") + (pair.b == null ? "" : "B " + pair.b);
      let text = "pair " + (current + 1) + " of " + count + " (" + sides + "): " + pair.verdict;
      if (pair.ssim != null) text += ", SSIM " + pair.ssim.toFixed(6);
      if (pair.psnr != null) text += ", PSNR " + pair.psnr.toFixed(2) + " dB";
      if (pair.note) text += " (" + pair.note + ")";
      return text;
    }
    let current = 0;
    function show(i) {
      if (count === 0) return;
      current = Math.max(0, Math.min(count - 1, i));
      const pair = steps[current];
      const clipNote = "a clip's frame is shown only where it changed";
      setPicture("pane-a", frameURL(data.a, pair.a), pair.a == null ? "not in A (inserted in B)" : clipNote);
      setPicture("pane-b", frameURL(data.b, pair.b), pair.b == null ? "not in B (deleted from A)" : clipNote);
      setPicture("pane-diff", differenceURL(pair), pair.verdict === "same" ? "the same" : "no difference picture for this pair");
      $("scrubber").value = current;
      $("position").textContent = describe(pair);
      document.body.dataset.step = current;
      for (const line of document.querySelectorAll(".playhead")) { line.setAttribute("x1", x(current)); line.setAttribute("x2", x(current)); }
    }
    function drawCurve() {
      const curve = $("curve");
      const measured = steps.map(pair => pair.ssim).filter(value => value != null);
      const low = measured.reduce((least, value) => Math.min(least, value), 0.99);
      const y = value => 110 - (value - low) / (1 - low || 1) * 100;
      let path = "";
      steps.forEach((pair, i) => { path += pair.ssim == null ? " " : (path.endsWith(" ") || !path ? " M" : " L") + x(i) + "," + y(pair.ssim); });
      element("path", {d: path.trim() || "M0,0", fill: "none", stroke: "#3060a0", "stroke-width": 1.5, "vector-effect": "non-scaling-stroke"}, curve);
      const worst = steps.map((pair, i) => ({pair, i})).filter(e => e.pair.verdict === "changed" && e.pair.ssim != null)
        .sort((p, q) => p.pair.ssim - q.pair.ssim).slice(0, 5);
      for (const e of worst) {
        const mark = element("circle", {cx: x(e.i), cy: y(e.pair.ssim), r: 4, class: "worst"}, curve);
        mark.dataset.step = e.i;
        mark.addEventListener("click", () => show(e.i));
      }
      element("line", {class: "playhead", x1: 0, x2: 0, y1: 0, y2: 120, "vector-effect": "non-scaling-stroke"}, curve);
    }
    function drawAlignment() {
      const strip = $("alignment");
      steps.forEach((pair, i) => {
        const cell = element("rect", {x: i * 1000 / count, y: 0, width: Math.max(1000 / count, 0.5), height: 16, class: "verdict-" + pair.verdict}, strip);
        cell.dataset.step = i;
      });
      strip.addEventListener("click", event => {
        const box = strip.getBoundingClientRect();
        show(Math.floor((event.clientX - box.left) / box.width * count));
      });
      element("line", {class: "playhead", x1: 0, x2: 0, y1: 0, y2: 16, "vector-effect": "non-scaling-stroke"}, strip);
    }
    function stepOf(difference) {
      const side = difference.kind === "removed" ? "a" : "b";
      if (difference.frame == null) return 0;
      const found = steps.findIndex(pair => pair[side] != null && pair[side] >= difference.frame);
      return found < 0 ? count - 1 : found;
    }
    function describeDifference(d) {
      let text = d.kind + " " + d.event + (d.story ? " of " + d.story : "") + (d.frame != null ? " at frame " + d.frame : "");
      if (d.fields) text += ": " + Object.keys(d.fields).sort().map(k => k + " " + d.fields[k][0] + " \\u2192 " + d.fields[k][1]).join(", ");
      return text;
    }
    function drawLanes() {
      const lanes = $("lanes"), list = $("trace-list");
      const stories = [...new Set(report.trace.map(d => d.story || "\\u2014"))];
      const height = Math.max(20, stories.length * 20);
      lanes.setAttribute("viewBox", "0 0 1000 " + height);
      lanes.style.height = height + "px";
      stories.forEach((story, row) => element("text", {x: 2, y: row * 20 + 14, class: "lane-name"}, lanes).textContent = story);
      report.trace.forEach(d => {
        const step = stepOf(d), row = stories.indexOf(d.story || "\\u2014");
        const mark = element("circle", {cx: x(step), cy: row * 20 + 10, r: 5, class: "mark mark-" + d.kind}, lanes);
        mark.dataset.step = step;
        element("title", {}, mark).textContent = describeDifference(d);
        mark.addEventListener("click", () => show(step));
        const item = document.createElement("li");
        item.textContent = describeDifference(d);
        item.dataset.step = step;
        item.addEventListener("click", () => show(step));
        list.appendChild(item);
      });
      if (!report.trace_compared) list.textContent = "No traces compared (a side is a clip).";
      else if (!report.trace.length) list.textContent = "The traces are the same.";
      element("line", {class: "playhead", x1: 0, x2: 0, y1: 0, y2: height}, lanes);
    }
    function nextDifference(direction) {
      for (let i = current + direction; i >= 0 && i < count; i += direction) if (steps[i].verdict !== "same") return show(i);
    }
    $("verdict").textContent = report.passed ? "PASS" : "FAIL";
    $("verdict").className = report.passed ? "pass" : "fail";
    $("sides").textContent = "A: " + report.a + " (" + report.frames_a + " frames), B: " + report.b + " (" + report.frames_b
      + " frames), paired by " + report.pairing + "; changed " + report.changed + ", inserted " + report.inserted
      + ", deleted " + report.deleted + "; trace differences " + report.trace.length;
    $("scrubber").max = Math.max(0, count - 1);
    $("scrubber").addEventListener("input", event => show(Number(event.target.value)));
    document.addEventListener("keydown", event => {
      const moves = {ArrowRight: () => show(current + 1), ArrowLeft: () => show(current - 1), Home: () => show(0),
                     End: () => show(count - 1), n: () => nextDifference(1), p: () => nextDifference(-1)};
      const move = moves[event.key];
      if (move && event.target.tagName !== "INPUT") { event.preventDefault(); move(); }
    });
    drawCurve();
    drawAlignment();
    drawLanes();
    show(0);
    document.body.dataset.ready = "true";

    """
}
