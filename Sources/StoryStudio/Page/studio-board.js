// MARK: - The storyboard, its errors, its script, the command

function showProblems(problems) {
  $('errors').hidden = problems.length === 0;
  // A last good version is shown only if there is one: a storyboard broken from the start has none.
  $('errors-title').textContent = 'The storyboard has errors' + (board && board.version
    ? ' — showing the last good version' : ' — nothing to show until they are fixed');
  $('error-list').replaceChildren(...problems.map(p => {
    const li = document.createElement('li');
    if (p.path) { const path = document.createElement('span'); path.className = 'path'; path.textContent = p.path + ': '; li.appendChild(path); }
    li.appendChild(document.createTextNode(p.message + (p.cause ? ' (' + p.cause + ')' : '')));
    return li;
  }));
  document.body.dataset.problems = String(problems.length);
}

function drawMarks() {
  const root = $('marks');
  root.replaceChildren(...(board.marks || []).map(m => {
    const mark = document.createElement('div');
    mark.className = 'mark';
    mark.style.left = (lastFrame > 0 ? m.frame / lastFrame * 100 : 0) + '%';
    mark.title = m.action + ' at ' + m.at + ' s (frame ' + m.frame + ')';
    mark.dataset.frame = m.frame;
    mark.dataset.action = m.action;
    mark.addEventListener('click', () => { setPlaying(false); goTo(m.frame); });
    return mark;
  }));
}

const quote = s => /^[A-Za-z0-9_\/.,:=+-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";

function renderOptions() {
  return { overlay: $('opt-overlay').checked, mp4: $('opt-mp4').checked,
    size: $('opt-size').value === 'half' && board ? (Math.floor(board.width / 4) * 2) + 'x' + (Math.floor(board.height / 4) * 2) : null };
}

/** The variant's values as `--set name=value`, in name order (as the Render button passes them). */
function setArguments() {
  const values = (board && board.values) || {};
  return Object.keys(values).sort().flatMap(name => ['--set', name + '=' + values[name]]);
}

function renderArguments(options) {
  const args = ['render', board.board, '--output', board.output, '--report', ...setArguments()];
  if (options.mp4) args.push('--mp4', board.output + '/' + board.clip);
  if (options.size) args.push('--size', options.size);
  if (!options.overlay) args.push('--no-overlay');
  return args;
}

/** The exact commands: the frame shown (`--frames N`, the same pixels), and the full render. */
function showCommand() {
  if (!board) return;
  const options = renderOptions();
  const frame = ['render', board.board, ...setArguments(), '--frames', String(state.frame), '--output', board.output + '/frame-' + state.frame];
  if (options.size) frame.push('--size', options.size);
  if (!options.overlay) frame.push('--no-overlay');
  $('command').textContent = '# the frame shown\nrender-stories ' + frame.map(quote).join(' ') +
    '\n# the whole render (the Render button)\nrender-stories ' + renderArguments(options).map(quote).join(' ');
}

/** Item 7: what each live story on screen shows, its loading state or its latest picture. */
function showLive(header) {
  const entries = (header || '').split(',').filter(Boolean).map(e => e.split('=').map(decodeURIComponent));
  document.body.dataset.live = entries.map(e => e.join('=')).join(',');
  $('live').replaceChildren();
  if (!entries.length) return;
  $('live').append('live on screen: ');
  entries.forEach(([id, showing], i) => {
    const b = document.createElement('b');
    b.textContent = id;
    $('live').append(i ? ', ' : '', b, showing === 'picture' ? ' shows its latest picture' : ' is loading (no picture yet)');
  });
}

/** The frame area and the Render button follow the storyboard's own errors (not a frame's or a
 *  render's): with none read good yet there is no picture, only why; and while the file on disk
 *  has errors, the Render button (which renders the file as saved) is off, saying why. */
function showBoardState(problems) {
  const never = !board || !board.version;
  $('frame').hidden = never || !shownURL;
  $('no-frame').hidden = !never;
  $('no-frame').textContent = never ? 'No frame yet: the storyboard has not been read without errors. '
    + 'Fix the errors listed above and save; the frame shows at once.' : '';
  const broken = never || problems.some(p => p.code === 'storyboard');
  const count = problems.length;
  const reason = broken ? 'Render is off until the storyboard is valid: it renders the file as saved, which has ' +
    (count ? count + ' error' + (count === 1 ? '' : 's') + ' (listed above)' : 'not been read yet') + '.' : '';
  $('render-reason').hidden = !broken;
  $('render-reason').textContent = reason;
  $('render').title = reason;
  if (document.body.dataset.render !== 'running') $('render').disabled = broken;
  document.body.dataset.renderBlocked = broken ? 'true' : 'false';
}

async function loadState() {
  const response = await fetch(api('/api/state'));
  board = await response.json();
  fps = board.fps;
  lastFrame = Math.max(0, board.frames - 1);
  events = board.events;
  data = { max_alive: board.max_alive };
  $('board-name').textContent = board.board;
  $('scrub').max = lastFrame;
  showProblems(board.problems);
  showBoardState(board.problems);
  drawMarks();
  if (typeof drawLifecycle === 'function') drawLifecycle();
  document.body.dataset.version = board.version;
  goTo(Math.min(state.frame, lastFrame), false);
  loadMusic(board.music);
}

// MARK: - The WebSocket: reloads and the render's progress

function connect() {
  const socket = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + api('/ws'));
  socket.onopen = () => { $('connection').textContent = '· watching for saves'; document.body.dataset.socket = 'open'; };
  socket.onclose = () => { $('connection').textContent = '· disconnected'; document.body.dataset.socket = 'closed'; setTimeout(connect, 1000); };
  socket.onmessage = event => {
    const message = JSON.parse(event.data);
    if (message.type === 'board') {
      // A new version: an edit on disk (its parameters may have changed too) or a new variant.
      if (board && message.version !== board.version) { loadState(); loadParameters(); }
      else { showProblems(message.problems); showBoardState(message.problems); }
    } else if (message.type === 'render') showProgress(message);
    // A live story's new picture: the frame shown is drawn again (not while dragging).
    else if (message.type === 'live' && !dragging && !state.playing) request(state.frame, false);
  };
}

function showProgress(m) {
  const running = m.state === 'running';
  $('render').disabled = running || document.body.dataset.renderBlocked === 'true';
  $('cancel').disabled = !running;
  document.body.dataset.render = m.state;
  const p = $('progress');
  p.replaceChildren();
  if (running) {
    p.textContent = 'frame ' + (m.frame || 0) + (m.of ? ' of ' + m.of : '') +
      (m.fps ? ' · ' + m.fps.toFixed(1) + ' fps' : '') + (m.eta_s != null ? ' · ETA ' + m.eta_s.toFixed(1) + ' s' : '');
  } else if (m.state === 'done') {
    p.textContent = 'done: ';
    for (const [label, href] of [['report', m.report], ['MP4', m.mp4]]) {
      if (!href) continue;
      const a = document.createElement('a');
      a.href = api(href);
      a.textContent = label;
      a.target = '_blank';
      a.id = 'link-' + label.toLowerCase();
      p.appendChild(a);
    }
  } else {
    p.textContent = m.state + (m.message ? ': ' + m.message : '');
  }
}

$('render').addEventListener('click', async () => {
  $('render').disabled = true;
  const response = await fetch(api('/api/render'), { method: 'POST', body: JSON.stringify(renderOptions()) });
  if (!response.ok && response.status !== 409) {
    const body = await response.json().catch(() => ({}));
    showProgress({ state: 'failed', message: (body.problems || []).map(p => p.message).join('; ') });
  }
});
$('cancel').addEventListener('click', () => fetch(api('/api/cancel'), { method: 'POST' }));
for (const id of ['opt-overlay', 'opt-mp4', 'opt-size']) $(id).addEventListener('change', showCommand);

