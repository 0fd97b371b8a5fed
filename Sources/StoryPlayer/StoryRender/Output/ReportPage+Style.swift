extension ReportPage {
    /// The page up to its data: markup and style. No external font, stylesheet or script, so the
    /// page looks the same offline, from file:// and from a server.
    static let head = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>live-stories report</title>
    <link rel="icon" href="data:,"><!-- no favicon request: a server's 404 would be a console error -->
    <style>
    :root { color-scheme: dark; --bg: #141418; --panel: #1d1d24; --line: #33333f; --text: #dcdce6;
            --dim: #8a8a9a; --accent: #8e6be8; --bad: #ff4040; --good: #3cd060; }
    * { box-sizing: border-box; }
    [hidden] { display: none !important; }
    body { margin: 0; background: var(--bg); color: var(--text);
           font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; }
    header { display: flex; align-items: baseline; gap: 1em; padding: 10px 16px; border-bottom: 1px solid var(--line); }
    h1 { font-size: 18px; margin: 0; }
    h2 { font-size: 15px; margin: 0 0 6px; }
    h3 { font-size: 13px; margin: 14px 0 4px; color: var(--dim); text-transform: uppercase; letter-spacing: .04em; }
    #errors { margin: 8px 16px; padding: 8px; background: #4a1010; color: #ffd0d0; white-space: pre-wrap; }
    /* The player and the lanes side by side, the summary under both. */
    main { display: grid; grid-template-columns: fit-content(45%) minmax(420px, 1fr); gap: 16px; padding: 12px 16px; }
    /* Columns as wide as the widest table (first frame: seven figures), and a box that scrolls
       what is wider still, in a narrow window: a table never runs into the next column. */
    #summary { grid-column: 1 / -1; column-width: 380px; column-gap: 28px; }
    #summary > * { break-inside: avoid; overflow-x: auto; }
    section { background: var(--panel); border-radius: 6px; padding: 10px 12px; min-width: 0; }
    .tabs button { background: none; color: var(--dim); border: 0; border-bottom: 2px solid transparent;
                   padding: 4px 10px; font: inherit; cursor: pointer; }
    .tabs button.on { color: var(--text); border-bottom-color: var(--accent); }
    .stage { position: relative; display: flex; justify-content: center; align-items: center;
             background: #000; min-height: 200px; margin-top: 8px; }
    /* Small renders are scaled up to a useful size; the aspect ratio is kept. */
    #frame, #clip { display: block; height: 60vh; max-width: 100%; object-fit: contain; }
    #noframe { position: absolute; color: var(--dim); padding: 1em; text-align: center; }
    .controls { display: flex; align-items: center; gap: 10px; margin-top: 8px; }
    .controls button { min-width: 84px; font: inherit; padding: 3px 8px; }
    #scrub { flex: 1; min-width: 120px; }
    #position { font-variant-numeric: tabular-nums; white-space: nowrap; }
    .hint { color: var(--dim); font-size: 12px; margin: 6px 0 0; }
    #legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; color: var(--dim); margin-bottom: 6px; }
    #legend span::before { content: ""; display: inline-block; width: 10px; height: 10px; border-radius: 50%;
                           margin-right: 5px; background: var(--swatch); vertical-align: -1px; }
    #legend span.bar::before { border-radius: 2px; width: 18px; height: 8px; }
    #legend span.dash::before { border-radius: 0; width: 18px; height: 0; border-top: 2px dashed var(--swatch); background: none; }
    #lanes { display: block; width: 100%; user-select: none; }
    #lanes text { fill: var(--text); font-size: 11px; }
    #lanes .tick { fill: var(--dim); }
    #lanes [data-frame] { cursor: pointer; }
    #lanes .mark:hover circle { stroke: #fff; stroke-width: 2; }
    table { border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums; }
    td, th { padding: 2px 10px 2px 0; text-align: left; }
    td.n, th.n { text-align: right; }
    ul { margin: 4px 0; padding-left: 18px; }
    .ok { color: var(--good); }
    .bad { color: var(--bad); }
    .link { cursor: pointer; text-decoration: underline dotted; }
    .dim { color: var(--dim); }
    </style>
    </head>
    <body>
    <header><h1>live-stories report</h1><span class="dim" id="facts"></span></header>
    <pre id="errors" hidden></pre>
    <main>
    <section id="viewer">
      <nav class="tabs"><button id="tab-frames" class="on">Frames</button><button id="tab-clip" hidden>Clip (MP4, with sound)</button></nav>
      <div id="pane-frames">
        <div class="stage"><img id="frame" alt="the frame at the playhead"><div id="noframe" hidden></div></div>
        <div class="controls">
          <button id="play" title="space">▶ Play</button>
          <input id="scrub" type="range" min="0" max="0" value="0" step="1" aria-label="frame">
          <output id="position"></output>
        </div>
        <p class="hint">← → one frame · shift + ← → one second · space play/pause · Home/End · click an event or a lane to go to its frame · #frame=N in the address opens at frame N</p>
      </div>
      <div id="pane-clip" class="stage" hidden><video id="clip" controls preload="metadata"></video></div>
    </section>
    <section id="lifecycle"><h2>Lifecycle</h2><div id="legend"></div><svg id="lanes" xmlns="http://www.w3.org/2000/svg"></svg></section>
    <section id="summary"></section>
    </main>

    """#
}
