extension ReportPage {
    /// The lifecycle as SVG: a lane per player from play to stop (a room's players named by their
    /// participant), a mark per other event, the count of video players alive with the
    /// --max-alive line and, for a room, of its audio-only players apart (with the --max-audio
    /// line when given) and of its tile players apart (no bound: the room's page bounds them),
    /// as `check` counts them; and the playhead.
    static let lanesScript = #"""
    const SVG = 'http://www.w3.org/2000/svg';
    // Colours of the kinds the renderer writes today and of those coming (speaker, gesture);
    // any other kind gets one from the palette, so a newer trace still draws.
    const KIND_COLORS = { firstFrame: '#3cd060', failed: '#ff4040', reconnect: '#ffa020', ended: '#5090ff',
      opened: '#9a9aaa', ignored: '#d0d040', preload: '#6a6a7a', speaker: '#e060e0', gesture: '#40d0d0', layout: '#b49cff' };
    const PALETTE = ['#c08040', '#80c0ff', '#ff80a0', '#a0ff80', '#ffd080', '#b090ff'];
    const STORY_COLORS = ['#8e6be8', '#e88a3c', '#3cb4c8', '#d85c9c', '#9cc040'];
    const kindColor = kind => KIND_COLORS[kind] ||
      PALETTE[[...kind].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % PALETTE.length];

    let playhead = null;
    let xOf = () => 0;

    function svg(tag, attrs, parent) {
      const node = document.createElementNS(SVG, tag);
      for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
      if (parent) parent.appendChild(node);
      return node;
    }

    function tooltip(node, text) { svg('title', {}, node).textContent = text; }

    /** Players in the order they first appear, and the events that belong to none. */
    function playersOf(list) {
      const players = new Map(), loose = [];
      for (const e of list) {
        if (typeof e.player !== 'number') { loose.push(e); continue; }
        let p = players.get(e.player);
        if (!p) {
          p = { id: e.player, story: e.story, item: e.item, participant: e.participant, audio: e.media === 'audio', tile: e.media === 'tile',
            start: null, end: null, marks: [] };
          players.set(e.player, p);
        }
        if (p.participant === undefined) p.participant = e.participant;
        if (e.event === 'play') p.start = e.t;
        else if (e.event === 'stop') p.end = e.t;
        else p.marks.push(e);
        if (p.item === undefined) p.item = e.item;
      }
      return { players: [...players.values()], loose };
    }

    /** How many players of `kind` are alive from each play or stop on: [[t, count], …]. Kind
     *  'audio': a room's audio-only players (`"media": "audio"`); 'tile': a room's tile players
     *  (`"media": "tile"`); 'video': every other player (as `check` counts them apart). */
    function aliveSteps(list, kind) {
      const steps = [[0, 0]];
      const kinds = new Map();
      for (const e of list) {
        if (e.media === 'audio' || e.media === 'tile') kinds.set(e.player, e.media);
      }
      let alive = 0;
      for (const e of list) {
        if (typeof e.player !== 'number' || (e.event !== 'play' && e.event !== 'stop')) continue;
        if ((kinds.get(e.player) || 'video') !== kind) continue;
        alive += e.event === 'play' ? 1 : -1;
        steps.push([e.t, alive]);
      }
      return steps;
    }

    function describe(e) {
      const rest = Object.entries(e).filter(([k]) => !['t', 'event', 'story', 'wall'].includes(k))
        .map(([k, v]) => k + ': ' + (typeof v === 'string' ? v : JSON.stringify(v)));
      return e.event + ' · ' + e.story + ' · t ' + (e.t || 0).toFixed(3) + ' s (frame ' + frameOf(e.t || 0) + ')' +
        (rest.length ? '\n' + rest.join('\n') : '');
    }

    function drawLifecycle() {
      const root = $('lanes');
      root.replaceChildren();
      const { players, loose } = playersOf(events);
      // reduce, not Math.max(...list): a long trace would overflow the argument list.
      const end = events.reduce((m, e) => Math.max(m, e.t || 0), (lastFrame + 1) / fps);
      const width = Math.max(600, root.clientWidth || 1000);
      const left = 220, right = 14, top = 22, laneH = 20, aliveH = 70;
      const lanes = players.length + (loose.length ? 1 : 0);
      const lanesBottom = top + lanes * laneH;
      // A room's audio-only players and its tile players are counted apart, under the video
      // players' count.
      const hasAudio = players.some(p => p.audio);
      const hasTiles = players.some(p => p.tile);
      const aliveTop = lanesBottom + 16, audioTop = aliveTop + aliveH + 12;
      const tileTop = (hasAudio ? audioTop : aliveTop) + aliveH + 12;
      const height = (hasTiles ? tileTop : hasAudio ? audioTop : aliveTop) + aliveH + 8;
      root.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
      root.setAttribute('height', height);
      xOf = t => left + (t / end) * (width - left - right);

      // Time axis: about ten ticks, at 1-2-5 steps.
      const step = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600].find(s => end / s <= 12) || 7200;
      for (let t = 0; t <= end + 1e-9; t += step) {
        svg('line', { x1: xOf(t), x2: xOf(t), y1: top - 4, y2: height - 8, stroke: '#2a2a34' }, root);
        svg('text', { x: xOf(t), y: top - 8, 'text-anchor': 'middle', class: 'tick' }, root).textContent =
          +t.toFixed(1) + ' s';
      }

      const stories = [...new Set(players.map(p => p.story))];
      const used = new Set();
      players.forEach((p, i) => {
        const y = top + i * laneH;
        if (i % 2) svg('rect', { x: 0, y, width, height: laneH, fill: '#ffffff08' }, root);
        const label = svg('text', { x: 6, y: y + 14 }, root);
        const name = p.story + ' · ' + (p.participant !== undefined ? p.participant + (p.audio ? ' (audio)' : p.tile ? ' (tile)' : '')
          : 'item ' + (p.item ?? '?')) + ' · #' + p.id;
        label.textContent = name.length > 34 ? name.slice(0, 33) + '…' : name;
        tooltip(label, name);
        // A shard's trace may start or end with the player alive.
        const start = p.start ?? 0, stop = p.end ?? end;
        const bar = svg('rect', { x: xOf(start), y: y + 5, width: Math.max(2, xOf(stop) - xOf(start)), height: 10,
          rx: 3, fill: STORY_COLORS[stories.indexOf(p.story) % STORY_COLORS.length], class: 'bar',
          'data-frame': frameOf(start) }, root);
        tooltip(bar, 'player #' + p.id + ' (' + p.story + ', ' + (p.participant !== undefined
          ? 'participant ' + p.participant + (p.audio ? ', audio only' : p.tile ? ', a tile of the room' : '') : 'item ' + (p.item ?? '?')) + ')\nplay ' + start.toFixed(3) +
          ' s → stop ' + (p.end === null ? '(not in trace)' : stop.toFixed(3) + ' s'));
        for (const e of p.marks) drawMark(root, e, y + laneH / 2, used);
      });
      if (loose.length) {
        const y = top + players.length * laneH;
        svg('text', { x: 6, y: y + 14, class: 'tick' }, root).textContent = 'no player (preload, viewer)';
        for (const e of loose) drawMark(root, e, y + laneH / 2, used);
      }
      drawAlive(root, aliveTop, aliveH, end, 'video', hasAudio || hasTiles);
      if (hasAudio) drawAlive(root, audioTop, aliveH, end, 'audio', true);
      if (hasTiles) drawAlive(root, tileTop, aliveH, end, 'tile', true);
      playhead = svg('line', { id: 'playhead', y1: top - 4, y2: height - 8, stroke: '#ffffff', 'stroke-width': 1.5 }, root);
      drawLegend(used, stories, hasAudio, hasTiles);
      movePlayhead(state.frame / fps);
    }

    function drawMark(root, e, y, used) {
      used.add(e.event);
      const g = svg('g', { class: 'mark', 'data-kind': e.event, 'data-frame': frameOf(e.t || 0) }, root);
      svg('circle', { cx: xOf(e.t || 0), cy: y, r: e.event === 'failed' ? 6 : 4.5, fill: kindColor(e.event),
        stroke: '#000', 'stroke-width': 1 }, g);
      tooltip(g, describe(e));
    }

    /** The count of video players alive against --max-alive, of a room's audio-only players
     *  (kind 'audio') against --max-audio, if given, or of its tile players (kind 'tile'), which
     *  no flag bounds. `named`: the video count says "video". */
    function drawAlive(root, topY, h, end, kind, named) {
      const audio = kind === 'audio', tile = kind === 'tile';
      const steps = aliveSteps(events, kind);
      const peak = steps.reduce((m, s) => Math.max(m, s[1]), 0);
      const bound = tile ? undefined : audio ? data.max_audio : data.max_alive;
      const hasBound = typeof bound === 'number';
      const most = Math.max(hasBound ? bound + 1 : 1, peak);
      const y = n => topY + h - (n / most) * h;
      svg('text', { x: 6, y: topY + h / 2 + 4 }, root).textContent =
        (tile ? 'tile players' : audio ? 'audio players' : named ? 'video players' : 'players') + ' alive (peak ' + peak + ')';
      svg('line', { x1: xOf(0), x2: xOf(end), y1: y(0), y2: y(0), stroke: '#44444f' }, root);
      steps.forEach(([t, n], i) => {
        const until = i + 1 < steps.length ? steps[i + 1][0] : end;
        if (n <= 0 || until <= t) return;
        svg('rect', { x: xOf(t), y: y(n), width: xOf(until) - xOf(t), height: y(0) - y(n),
          fill: hasBound && n > bound ? '#ff4040' : tile ? '#b49cff' : audio ? '#3c9c8c' : '#5a5ac8',
          class: tile ? 'alive-tile' : audio ? 'alive-audio' : 'alive' }, root);
      });
      if (!hasBound) return;
      svg('line', { x1: xOf(0), x2: xOf(end), y1: y(bound), y2: y(bound), stroke: '#ff4040',
        'stroke-dasharray': '5 4', id: audio ? 'max-audio' : 'max-alive' }, root);
      svg('text', { x: xOf(end) - 4, y: y(bound) - 4, 'text-anchor': 'end', class: 'tick' }, root)
        .textContent = (audio ? 'max-audio ' : 'max-alive ') + bound;
    }

    function drawLegend(used, stories, hasAudio, hasTiles) {
      const legend = $('legend');
      legend.replaceChildren();
      const item = (text, color, kind) => {
        const span = document.createElement('span');
        span.textContent = text;
        span.style.setProperty('--swatch', color);
        if (kind) span.className = kind;
        legend.appendChild(span);
      };
      stories.forEach((s, i) => item(s + ': play → stop', STORY_COLORS[i % STORY_COLORS.length], 'bar'));
      for (const kind of used) item(kind, kindColor(kind));
      item(hasAudio || hasTiles ? 'video players alive' : 'players alive', '#5a5ac8', 'bar');
      item('--max-alive ' + data.max_alive, '#ff4040', 'dash');
      if (hasAudio) item('audio players alive', '#3c9c8c', 'bar');
      if (hasAudio && typeof data.max_audio === 'number') item('--max-audio ' + data.max_audio, '#ff4040', 'dash');
      if (hasTiles) item('tile players alive', '#b49cff', 'bar');
    }

    function movePlayhead(t) {
      if (!playhead) return;
      playhead.setAttribute('x1', xOf(t));
      playhead.setAttribute('x2', xOf(t));
    }

    function setUpLanes() {
      // A click on an event or a bar goes to its frame; anywhere else on the time axis, to that time.
      $('lanes').addEventListener('click', e => {
        const target = e.target.closest('[data-frame]');
        if (target) return goTo(Number(target.dataset.frame));
        const box = $('lanes').getBoundingClientRect();
        const x = (e.clientX - box.left) * ($('lanes').viewBox.baseVal.width / box.width);
        const t = (x - xOf(0)) / (xOf(1) - xOf(0));
        if (t >= 0) goTo(frameOf(t));
      });
      // Drawn at the width it has, in pixels, so text keeps its size: again whenever that width
      // changes (a window resize, or the frame loading and widening the player's column).
      let drawnWidth = -1;
      new ResizeObserver(() => {
        const w = $('lanes').clientWidth;
        if (w !== drawnWidth) { drawnWidth = w; drawLifecycle(); }
      }).observe($('lifecycle'));
      drawLifecycle();
    }

    """#
}
