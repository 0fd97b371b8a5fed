import StoryMedia

extension ReportPage {
    /// The summary panel (built with the DOM, never innerHTML: story ids and FFmpeg's messages
    /// are shown as text, whatever they hold), and the page's start.
    static let summaryScript = #"""
    /** An element with text or children; attributes set as properties (className, onclick, …). */
    function el(tag, props, ...children) {
      const node = Object.assign(document.createElement(tag), props || {});
      for (const c of children) node.append(c);
      return node;
    }

    const ms = v => (typeof v === 'number' ? v.toFixed(1) : '–');

    function table(head, rows) {
      const cells = (tag, values) => el('tr', null, ...values.map((v, i) => el(tag, { className: i ? 'n' : '' }, String(v))));
      return el('table', null, cells('th', head), ...rows.map(r => cells('td', r)));
    }

    /** One live story's offset over time as an SVG line: timeline seconds across, ms up. */
    function offsetGraph(story) {
      const svgNS = 'http://www.w3.org/2000/svg', w = 280, h = 90, pad = 4;
      const points = story.live_offset_series;
      const tMax = Math.max(1, ...points.map(p => p[0])), yMax = Math.max(1, ...points.map(p => p[1]));
      const x = t => pad + (w - 2 * pad) * t / tMax, y = v => h - pad - (h - 2 * pad) * v / yMax;
      const svg = document.createElementNS(svgNS, 'svg');
      svg.setAttribute('width', w);
      svg.setAttribute('height', h);
      svg.setAttribute('class', 'offset-graph');
      const line = document.createElementNS(svgNS, 'polyline');
      line.setAttribute('points', points.map(p => x(p[0]).toFixed(1) + ',' + y(p[1]).toFixed(1)).join(' '));
      line.setAttribute('fill', 'none');
      line.setAttribute('stroke', '#e0a030');
      line.setAttribute('stroke-width', '2');
      svg.append(line);
      svg.onclick = event => goTo(frameOf(tMax * (event.offsetX - pad) / (w - 2 * pad)));
      return el('div', { className: 'offset' }, el('div', { className: 'dim' },
        story.id + ': 0 to ' + Math.round(yMax) + ' ms over ' + tMax + ' s · from ' + (story.live_offset_from || '–')
        + ' · ' + (story.rebuffers ?? 0) + ' rebuffer(s) · ' + (story.dropped ?? 0) + ' dropped'), svg);
    }

    function drawSummary() {
      const panel = $('summary');
      panel.replaceChildren(el('h2', null, 'Summary'));
      // Each section in one box, so the panel's columns never part a heading from its table.
      const section = (title, ...content) => panel.append(el('div', null, el('h3', null, title), ...content));

      // `render-stories check`, run when the page was made.
      const check = data.check;
      section('Check', check.ok
        ? el('div', { className: 'ok', id: 'check' }, '✓ ok: lifecycle holds (at most ' + data.max_alive + ' alive' +
          (typeof data.max_audio === 'number' ? ', at most ' + data.max_audio + ' audio' : '') + ')')
        : el('div', { className: 'bad', id: 'check' }, '✗ ' + check.violations.length + ' violation(s)',
          el('ul', null, ...check.violations.map(v => el('li', null, v)))));

      // Failed stories, each error linked to its `failed` event's frame. A room participant's
      // failure is not its story's (the room goes on): it is listed apart, by participant.
      const roomPlayers = new Map(events.filter(e => e.participant !== undefined && typeof e.player === 'number')
        .map(e => [e.player, e.participant]));
      const participantOf = e => e.participant ?? roomPlayers.get(e.player);
      const failedEvents = events.filter(e => e.event === 'failed' && participantOf(e) === undefined);
      const stories = summary.stories || [];
      const failed = stories.length ? stories.filter(s => s.failures > 0).map(s => [s.id, s.errors || []])
        : [...new Set(failedEvents.map(e => e.story))].map(id => [id, failedEvents.filter(e => e.story === id)
          .map(e => 'item ' + (e.item ?? 0) + ': ' + (e.error || 'failed'))]);
      section('Failed stories', failed.length === 0 ? el('div', { className: 'ok' }, 'none') :
        el('ul', { id: 'failed' }, ...failed.map(([id, errors]) => {
          const first = failedEvents.find(e => e.story === id);
          const name = el('b', first ? { className: 'link', onclick: () => goTo(frameOf(first.t)) } : null, id);
          return el('li', { className: 'bad' }, name, el('ul', null, ...errors.map(m => el('li', null, m))));
        })));

      const participantEvents = events.filter(e => e.event === 'failed' && participantOf(e) !== undefined);
      const failedParticipants = Array.isArray(summary.failed_participants) ? summary.failed_participants
        : participantEvents.map(e => ({ story: e.story, participant: participantOf(e), error: e.error || 'failed' }));
      if (failedParticipants.length) {
        section('Failed participants', el('ul', { id: 'failed-participants' }, ...failedParticipants.map(f => {
          const event = participantEvents.find(e => e.story === f.story && participantOf(e) === f.participant);
          const name = el('b', event ? { className: 'link', onclick: () => goTo(frameOf(event.t)) } : null,
            f.participant + ' (' + f.story + ')');
          return el('li', { className: 'bad' }, name, el('ul', null, el('li', null, f.error)));
        })));
      }

      // Rooms' layouts: each decision (who is where, and why) and the tile moves, a click
      // going to its frame.
      const layoutEvents = events.filter(e => e.event === 'layout');
      if (layoutEvents.length) {
        const moves = summary.tile_moves != null ? summary.tile_moves : layoutEvents.reduce((n, e) => n + (e.moved || []).length, 0);
        section('Layout (' + moves + ' tile move' + (moves === 1 ? '' : 's') + ')', el('ul', { id: 'layout-decisions' }, ...layoutEvents.map(e =>
          el('li', null, el('b', { className: 'link', onclick: () => goTo(frameOf(e.t)) }, e.t.toFixed(2) + ' s ' + e.story),
             ' ' + e.layout + (e.page ? ' page ' + e.page : '') + ': ' + (e.tiles || []).join(', ') +
             (e.moved ? ' (moved: ' + e.moved.join(', ') + ')' : '') + ' — ' + (e.detail || '')))));
      }

      // Time to first frame per story: wall-clock spans from play.
      const spanRows = stories.filter(s => s.first_frame && s.first_frame.first_frame_ms).map(s => {
        const f = s.first_frame.first_frame_ms, o = s.first_frame.open_ms || {};
        return [s.id, s.plays, f.count || 0, ms(o.p50), ms(f.p50), ms(f.p95), ms(f.max)];
      });
      section('First frame (ms from play)', spanRows.length
        ? table(['story', 'plays', 'shown', 'open p50', 'first frame p50', 'p95', 'max'], spanRows)
        : el('div', { className: 'dim' }, 'no figures'));

      // Live stories: how far behind the live edge their pictures were shown, over the timeline
      // (a point a second); a click on the graph goes to that moment.
      const live = stories.filter(s => Array.isArray(s.live_offset_series) && s.live_offset_series.length);
      if (live.length) {
        // Four narrow columns, so the table stays inside the panel's column.
        section('Live offset (ms behind the edge)', table(['story', 'p50', 'p95', 'max'],
          live.map(s => { const o = s.live_offset_ms || {}; return [s.id, ms(o.p50), ms(o.p95), ms(o.max)]; })),
          ...live.map(s => offsetGraph(s)));
      }

      // Mean CPU milliseconds per frame of each stage (and wall time per frame).
      const stages = Object.entries(summary.stages_ms || {});
      section('Stage times (ms per frame)', stages.length
        ? table(['stage', 'ms'], stages.map(([k, v]) => [k, ms(v)])) : el('div', { className: 'dim' }, 'no figures'));

      const notices = (summary.notices || []).concat(data.notices);
      section('Notices', notices.length ? el('ul', { id: 'notices' }, ...notices.map(n => el('li', null, n)))
        : el('div', { className: 'dim' }, 'none'));

      const facts = [(lastFrame - firstFrame + 1) + ' frames at ' + fps + ' fps'];
      if (typeof summary.wall_seconds === 'number') facts.push('rendered in ' + summary.wall_seconds.toFixed(2) + ' s');
      // The viewer's story players, and a room's tile players apart (not the viewer's to bound),
      // as the CLI's last line says them.
      const plural = n => n === 1 ? ' player' : ' players';
      if (typeof summary.peak_alive_players === 'number') {
        facts.push(summary.peak_tile_players > 0
          ? 'peak ' + summary.peak_alive_players + ' story' + plural(summary.peak_alive_players) + ' and ' +
            summary.peak_tile_players + ' room tile' + plural(summary.peak_tile_players) + ' alive'
          : 'peak ' + summary.peak_alive_players + plural(summary.peak_alive_players) + ' alive');
      }
      if (summary.clock) facts.push(summary.clock + ' clock');
      $('facts').textContent = facts.join(' · ');
    }

    setUpPlayer();
    drawSummary();
    setUpLanes();
    // report.html#frame=120 opens at frame 120: a link can point at a moment.
    const linked = /frame=(\d+)/.exec(location.hash);
    seek(linked ? Number(linked[1]) : firstFrame);
    document.body.dataset.ready = 'true';

    """#
}
