// MARK: - The music, heard while the preview plays

// The storyboard's `music` as its file is, from its `in`, at its volume, faded in (and out
// before a set duration's end), looped from `in`: the browser plays the file beside the frames.
// Ducking under the stories' voices, and the stories' own sound, are the render's (its MP4).
const music = new Audio();
music.id = 'music';
music.preload = 'auto';
let musicSpec = null;      // board.music as last loaded
let musicKey = '';         // what its source was made from, to fetch a file again only when it changes
let musicURL = null;       // the object URL of a local file's bytes (seekable without HTTP ranges)

/** Takes the storyboard's music (or its absence) from a new /api/state. */
async function loadMusic(spec) {
  musicSpec = spec || null;
  const key = spec ? (spec.file || spec.url) + '#' + board.version : '';
  if (key === musicKey) return syncMusic();
  musicKey = key;
  music.pause();
  if (musicURL) { URL.revokeObjectURL(musicURL); musicURL = null; }
  music.removeAttribute('src');
  document.body.dataset.music = spec ? 'loading' : 'none';
  if (!spec) return;
  if (spec.file) {
    let blob = null;
    try {
      const response = await fetch(api('/files/' + spec.file.split('/').map(encodeURIComponent).join('/')));
      if (response.ok) blob = await response.blob();
    } catch (error) {
      blob = null;
    }
    // A later state (a save while this one loaded) has its own music: this one is dropped.
    if (key !== musicKey) return;
    if (!blob) { document.body.dataset.music = 'error'; return; }
    musicURL = URL.createObjectURL(blob);
    music.src = musicURL;
  } else {
    music.src = spec.url;
  }
  document.body.dataset.music = 'ready';
  syncMusic();
}

/** Where in the file the music is at `t` seconds of the render. */
function musicTime(t) {
  const at = musicSpec.start + t;
  const length = music.duration - musicSpec.start;
  return musicSpec.loop && length > 0 && isFinite(length) ? musicSpec.start + (t % length) : at;
}

/** Once the file's length is known, a looping music started before it is put in step. */
music.addEventListener('loadedmetadata', () => { if (state.playing) syncMusic(); });

/** Its gain at `t`: the volume (at most the element's 1), faded in and out. */
function musicVolume(t) {
  let gain = Math.min(1, musicSpec.volume);
  if (musicSpec.fade_in > 0) gain *= Math.min(1, t / musicSpec.fade_in);
  const end = (lastFrame + 1) / fps;
  if (musicSpec.fade_out > 0 && musicSpec.fades_at_end) gain *= Math.min(1, Math.max(0, (end - t) / musicSpec.fade_out));
  return Math.max(0, gain);
}

/** Plays the music from where the frame on screen is, or pauses it with the preview. */
function syncMusic() {
  if (!musicSpec || !music.src) return;
  if (!state.playing) { music.pause(); return; }
  const t = state.frame / fps;
  const at = musicTime(t);
  if (!musicSpec.loop && isFinite(music.duration) && at >= music.duration) { music.pause(); return; }
  music.currentTime = at;
  music.volume = musicVolume(t);
  music.play().catch(() => {});
}

/** The fades follow the preview's time, a few times a second. */
music.addEventListener('timeupdate', () => {
  if (musicSpec && state.playing) music.volume = musicVolume(state.frame / fps);
});
music.addEventListener('ended', () => {
  if (musicSpec && musicSpec.loop && state.playing) { music.currentTime = musicSpec.start; music.play().catch(() => {}); }
});
