'use strict';
const $ = id => document.getElementById(id);
const token = new URLSearchParams(location.search).get('token') || '';
const api = (path, params) => path + '?' + new URLSearchParams(Object.assign({ token }, params || {}));

// What the lanes script (the report page's, put in below) reads.
let data = { max_alive: 2 };
let events = [];
let fps = 30;
let lastFrame = 0;
const state = { frame: 0, playing: false, startWall: 0, startFrame: 0 };
const frameOf = t => Math.round(t * fps);

let board = null;          // the last /api/state
let shownURL = null;       // the object URL of the picture on screen
let shownBlob = null;
let wanted = null;         // the newest frame asked for while one is being drawn: {n, half}
let inFlight = false;
let dragging = false;

/** Shows frame n: the scrubber, the position and the cursor at once; the picture when drawn. */
function goTo(n, half) {
  n = Math.min(lastFrame, Math.max(0, Math.round(n)));
  state.frame = n;
  $('scrub').value = n;
  $('position').textContent = 'frame ' + n + ' / ' + lastFrame + ' · ' + (n / fps).toFixed(3) + ' s';
  document.body.dataset.frame = n;
  if (typeof movePlayhead === 'function') movePlayhead(n / fps);
  showCommand();
  request(n, !!half);
}

/** One picture at a time: while one is drawn, only the newest wish waits. */
function request(n, half) {
  wanted = { n, half };
  if (!inFlight) fetchWanted();
}

async function fetchWanted() {
  // Version 0: the storyboard was never read without errors, so there is no frame to ask for.
  if (!wanted || !board || !board.version) return;
  const { n, half } = wanted;
  wanted = null;
  inFlight = true;
  $('stage').dataset.busy = 'true';
  try {
    const response = await fetch(api('/api/frame', { n, half: half ? 1 : 0, v: board.version }));
    if (response.ok) {
      const blob = await response.blob();
      const url = URL.createObjectURL(blob);
      await new Promise(done => { $('frame').onload = done; $('frame').onerror = done; $('frame').src = url; });
      $('frame').hidden = false;
      if (shownURL) URL.revokeObjectURL(shownURL);
      shownURL = url;
      shownBlob = blob;
      document.body.dataset.shown = response.headers.get('X-Studio-Frame');
      document.body.dataset.shownVersion = response.headers.get('X-Studio-Version');
      document.body.dataset.shownHalf = half ? 'true' : 'false';
      document.body.dataset.shownCount = String(Number(document.body.dataset.shownCount || 0) + 1);
      showLive(response.headers.get('X-Studio-Live'));
    } else {
      // The last good frame stays; the error is said beside it.
      const body = await response.json().catch(() => ({ problems: [{ message: response.statusText, path: '' }] }));
      showProblems(body.problems || []);
    }
  } catch (error) {
    showProblems([{ path: '', message: 'the studio does not answer: ' + error.message }]);
  } finally {
    inFlight = false;
    $('stage').dataset.busy = 'false';
    if (wanted) fetchWanted();
    else if (state.playing) requestAnimationFrame(tick);
  }
}

/** For tests and the benchmark: the PNG on screen, as base64. */
window.shownFramePNG = async () => {
  if (!shownBlob) return null;
  const bytes = new Uint8Array(await shownBlob.arrayBuffer());
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(text);
};

// MARK: - Play, keys, scrubbing

function setPlaying(on) {
  state.playing = on;
  $('play').textContent = on ? '❚❚ Pause' : '▶ Play';
  if (on && state.frame >= lastFrame) goTo(0);
  if (typeof syncMusic === 'function') syncMusic();
  if (!on) return;
  state.startWall = performance.now();
  state.startFrame = state.frame;
  requestAnimationFrame(tick);
}

/** At the storyboard's fps when the machine keeps up; otherwise the frames it can draw, on time. */
function tick() {
  if (!state.playing || inFlight) return;
  const n = state.startFrame + Math.floor((performance.now() - state.startWall) / 1000 * fps);
  if (n >= lastFrame) { goTo(lastFrame); setPlaying(false); return; }
  if (n !== state.frame) goTo(n);
  else requestAnimationFrame(tick);
}

$('play').addEventListener('click', () => setPlaying(!state.playing));
$('scrub').addEventListener('input', () => { dragging = true; goTo(Number($('scrub').value), true); });
$('scrub').addEventListener('change', () => { dragging = false; goTo(Number($('scrub').value), false); });
document.addEventListener('keydown', event => {
  if (event.target.tagName === 'INPUT' && event.target.type !== 'range') return;
  if (event.target.tagName === 'SELECT') return;
  const step = event.shiftKey ? Math.round(fps) : 1;
  if (event.key === 'ArrowRight') { setPlaying(false); goTo(state.frame + step); }
  else if (event.key === 'ArrowLeft') { setPlaying(false); goTo(state.frame - step); }
  else if (event.key === ' ') setPlaying(!state.playing);
  else if (event.key === 'Home') { setPlaying(false); goTo(0); }
  else if (event.key === 'End') { setPlaying(false); goTo(lastFrame); }
  else return;
  event.preventDefault();
});

