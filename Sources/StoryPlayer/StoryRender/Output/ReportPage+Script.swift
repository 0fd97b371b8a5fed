extension ReportPage {
    /// The page's JavaScript: the player here, the lanes and the summary in `lanesScript` and
    /// `summaryScript`. Plain ES2020 that current Chromium and Firefox run as they are.
    static var script: String { playerScript + lanesScript + summaryScript }

    static let playerScript = #"""
    'use strict';
    // Every error, thrown or rejected, is shown on the page: a reader sees that something is off,
    // and a headless browser's test can read it from the DOM.
    const errorList = [];
    function noteError(message) {
      errorList.push(String(message));
      const box = document.getElementById('errors');
      box.textContent = 'Errors on this page:\n' + errorList.join('\n');
      box.hidden = false;
    }
    window.addEventListener('error', e => noteError(e.message));
    window.addEventListener('unhandledrejection', e => noteError(e.reason));

    const $ = id => document.getElementById(id);
    const data = JSON.parse($('report-data').textContent);
    const fps = data.fps;
    const events = data.events;
    const summary = data.summary || {};
    const hasFrames = data.first_frame !== null;
    const firstFrame = hasFrames ? data.first_frame : 0;
    // Without PNGs (an MP4-only render) the lanes still run to the timeline's end.
    const lastFrame = hasFrames ? data.last_frame : Math.max(0, (summary.frames || 1) - 1);

    // Frame n shows timeline time n / fps, so an event at time t is on frame round(t × fps).
    const frameOf = t => Math.round(t * fps);
    const clampFrame = n => Math.min(lastFrame, Math.max(firstFrame, n));
    const frameName = n => 'frame-' + String(n).padStart(6, '0') + '.png';

    const state = { frame: firstFrame, playing: false, startWall: 0, startFrame: 0 };

    /** Shows frame n everywhere: picture, scrubber, position, playhead. */
    function seek(n) {
      n = clampFrame(Math.round(n));
      state.frame = n;
      if (hasFrames) $('frame').src = frameName(n);
      $('scrub').value = n;
      showPosition(n, n / fps);
      document.body.dataset.frame = n;
    }

    function showPosition(n, t) {
      $('position').textContent = 'frame ' + n + ' / ' + lastFrame + ' · ' + t.toFixed(3) + ' s';
      movePlayhead(t);
    }

    function setPlaying(on) {
      state.playing = on && hasFrames;
      $('play').textContent = state.playing ? '❚❚ Pause' : '▶ Play';
      if (!state.playing) return;
      if (state.frame >= lastFrame) seek(firstFrame);  // at the end, play from the start again
      state.startWall = performance.now();
      state.startFrame = state.frame;
      requestAnimationFrame(tick);
    }

    // The frame due is worked out from the wall time since play was pressed, so a slow picture
    // skips frames rather than slowing the timeline down.
    function tick(now) {
      if (!state.playing) return;
      const due = clampFrame(state.startFrame + Math.floor(Math.max(0, now - state.startWall) / 1000 * fps));
      if (due !== state.frame) {
        seek(due);
        for (let k = 1; k <= 3 && due + k <= lastFrame; k++) new Image().src = frameName(due + k);
      }
      if (due >= lastFrame) setPlaying(false);
      else requestAnimationFrame(tick);
    }

    function stepBy(delta) {
      setPlaying(false);
      seek(state.frame + delta);
    }

    /** Goes to a frame from the lanes or the summary, on the frames tab. */
    function goTo(n) {
      showTab('frames');
      stepBy(n - state.frame);
    }

    function clipShowing() { return !$('pane-clip').hidden; }

    function showTab(name) {
      const clip = name === 'clip';
      if (clip === clipShowing()) return;
      $('pane-frames').hidden = clip;
      $('pane-clip').hidden = !clip;
      $('tab-frames').classList.toggle('on', !clip);
      $('tab-clip').classList.toggle('on', clip);
      const video = $('clip');
      if (clip) {
        setPlaying(false);
        video.currentTime = state.frame / fps;  // the clip picks up where the frames are
      } else {
        video.pause();
        seek(frameOf(video.currentTime));
      }
    }

    function setUpPlayer() {
      const scrub = $('scrub');
      scrub.min = firstFrame;
      scrub.max = lastFrame;
      scrub.addEventListener('input', () => { setPlaying(false); seek(Number(scrub.value)); });
      // Buttons give focus back, so space stays play/pause instead of pressing the button again.
      $('play').addEventListener('click', e => { e.currentTarget.blur(); setPlaying(!state.playing); });
      $('tab-frames').addEventListener('click', e => { e.currentTarget.blur(); showTab('frames'); });
      $('tab-clip').addEventListener('click', e => { e.currentTarget.blur(); showTab('clip'); });
      const picture = $('frame');
      picture.addEventListener('load', () => { $('noframe').hidden = true; });
      picture.addEventListener('error', () => {
        $('noframe').textContent = frameName(state.frame) + ' is not in this folder';
        $('noframe').hidden = false;
      });
      if (!hasFrames) {
        picture.hidden = true;
        $('noframe').textContent = 'No PNG frames were written (--no-png).';
        $('noframe').hidden = false;
      }
      if (data.clip !== null) {
        $('tab-clip').hidden = false;
        const video = $('clip');
        video.src = data.clip;
        // While the clip plays, the playhead follows it.
        video.addEventListener('timeupdate', () => {
          if (clipShowing()) showPosition(frameOf(video.currentTime), video.currentTime);
        });
        if (!hasFrames) showTab('clip');
      }
      document.addEventListener('keydown', e => {
        if (clipShowing() || e.ctrlKey || e.metaKey || e.altKey) return;  // the video's own keys
        const second = Math.max(1, Math.round(fps));
        const actions = {
          ArrowRight: () => stepBy(e.shiftKey ? second : 1),
          ArrowLeft: () => stepBy(e.shiftKey ? -second : -1),
          Home: () => stepBy(firstFrame - state.frame),
          End: () => stepBy(lastFrame - state.frame),
          ' ': () => setPlaying(!state.playing),
        };
        const action = actions[e.key];
        if (!action) return;
        e.preventDefault();  // no page scroll, and no second step from a focused scrubber
        action();
      });
    }

    """#
}
