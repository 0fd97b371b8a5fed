#!/usr/bin/env python3
"""The far end of `bench/record.sh`: clock-coded publishers with sound in step, and what ffmpeg
reads back from the recorder's outputs.

The pictures are Tests/Support/Python/clock-code.py's (each carries its number and the wall
clock it was made at). Beside them this publisher writes its sound: silence, and a beep of the
participant's own tone starting at every 30th picture, sample-locked to the pictures (48 kHz, 1600
samples a picture, both paced from the same start), so a viewer can tell where the sound stands
against the picture it belongs to. Tones are multiples of 300 Hz: a 10 ms window separates them.
Each beep's length (2-9 pictures) is its second's number mod 8, so a beep is matched to its own
picture even when sound and picture are seconds apart.

  record-readback.py publish --participant P --audio FIFO    rgb24 360x640 pictures on stdout, s16le mono
                                                        48 kHz on FIFO (opened by the encoder)
  record-readback.py live URL SECONDS                   ffmpeg's low-delay decode of a pushed room: each
                                                        tile's distinct pictures a second, and how old
                                                        each picture is when it comes out (JSON)
  record-readback.py file PATH [--last S] [--skip S] [--whole] [--base EPOCH] [--no-sound]
                                                        a recorded file or playlist: distinct pictures a
                                                        second per participant, and the A/V offset of each
                                                        beep against its picture (JSON); --whole: a
                                                        publisher's own stream, the picture the whole frame
  record-readback.py hls-lag PLAYLIST SECONDS           polls a playlist every 0.25 s: how far its newest
                                                        segment's end (PROGRAM-DATE-TIME + EXTINF) is
                                                        behind the wall clock, in segments (JSON)
  record-readback.py segments PLAYLIST                   its segments as [uri, EXTINF, PROGRAM-DATE-TIME] (JSON)
  record-readback.py packets PATH...                    each file read whole by ffprobe: frames, errors,
                                                        largest video pts step; then across the files in
                                                        order as one stream when they share a timeline (JSON)
"""
import importlib.util
import json
import os
import subprocess
import sys
import threading
import time
from datetime import datetime

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("clock_code", os.path.join(HERE, "..", "Tests", "Support", "Python", "clock-code.py"))
clock = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(clock)

FPS, RATE = 30, 48000
SAMPLES_PER_PICTURE = RATE // FPS
# A beep starts at every 30th picture and lasts 2 to 9 pictures (67 to 300 ms) by that second's
# number mod 8, so a reader matches each beep to its own second's picture up to 4 s either way.
BEEP_CLASSES = 8
TONES = (600, 900, 1200, 1500)  # multiples of 300 Hz: a 10 ms window separates them
READ_W, READ_H = 360, 640  # outputs are read back scaled to this


# MARK: - Publisher

def publish(participant, audio_path):
    """Participant P (0-3) numbers its pictures P << 14 | k (k mod 16384, 9 minutes at 30 fps), so a
    reader knows whose picture a tile shows; its tone is TONES[P]."""
    start = time.time() + 0.2
    threading.Thread(target=write_sound, args=(participant, audio_path, start), daemon=True).start()
    out = sys.stdout.buffer
    k = 0
    try:
        while True:
            # One reading of the clock: read twice, the due time could pass in between and the
            # sleep be negative (it ended publisher 4 at 305 s into the first hour's soak).
            wait = start + k / FPS - time.time()
            if wait > 0:
                time.sleep(wait)
            out.write(clock.rgb24_picture(participant << 14 | k & 0x3FFF, int(time.time() * 1000)))
            out.flush()
            k += 1
    except (BrokenPipeError, KeyboardInterrupt):
        pass


def beep_class(number):
    """The beep that starts at picture `number` (every 30th): its length class, 0-7."""
    return ((number & 0x3FFF) // FPS) % BEEP_CLASSES


def beeps(number):
    """Whether picture `number`'s 1600 samples hold its publisher's beep, and which picture of it."""
    k = number & 0x3FFF
    return k % FPS < 2 + beep_class(k - k % FPS), k % FPS


def write_sound(participant, path, start):
    """Chunk k (1600 samples) belongs to picture k: the encoders stamp both by count from 0."""
    t = np.arange(SAMPLES_PER_PICTURE * (BEEP_CLASSES + 1)) / RATE
    beep = (0.4 * 32767 * np.sin(2 * np.pi * TONES[participant] * t)).astype("<i2").tobytes()
    chunk = SAMPLES_PER_PICTURE * 2
    silence = bytes(chunk)
    try:
        with open(path, "wb", buffering=0) as sink:
            k = 0
            while True:
                wait = start + k / FPS - time.time()
                if wait > 0:
                    time.sleep(wait)
                loud, phase = beeps(k)
                sink.write(beep[phase * chunk:(phase + 1) * chunk] if loud else silence)
                k += 1
    except (BrokenPipeError, OSError):
        os._exit(0)


# MARK: - Tiles

def locate_tiles(frame):
    """The room's tiles, as (x0, y0, x1, y1), from where the generator's grey (96) fills each
    quadrant of the frame: the tile is the picture fitted whole. Up to 4, left to right, top to bottom."""
    h, w, _ = frame.shape
    grey = np.all(np.abs(frame.astype(int) - 96) <= 14, axis=2)
    tiles = []
    for qy in (0, h // 2):
        for qx in (0, w // 2):
            part = grey[qy:qy + h // 2, qx:qx + w // 2]
            rows = np.where(part.sum(axis=1) > part.shape[1] * 0.25)[0]
            cols = np.where(part.sum(axis=0) > part.shape[0] * 0.25)[0]
            if len(rows) < 20 or len(cols) < 20:
                continue
            tiles.append((qx + cols[0], qy + rows[0], qx + cols[-1] + 1, qy + rows[-1] + 1))
    return tiles


def sample_points(tile):
    x0, y0, x1, y1 = tile
    xs, ys = [], []
    for i in range(clock.COLUMNS * clock.ROWS):
        row, column = divmod(i, clock.COLUMNS)
        xs.append(int(x0 + (clock.LEFT + column * clock.BLOCK + clock.BLOCK // 2) * (x1 - x0) / clock.WIDTH))
        ys.append(int(y0 + (clock.TOP + row * clock.BLOCK + clock.BLOCK // 2) * (y1 - y0) / clock.HEIGHT))
    return np.array(ys), np.array(xs)


def read_tile(frame, points):
    ys, xs = points
    luma = frame[ys, xs].astype(int).sum(axis=1) // 3
    bits = 0
    for bit in (luma >= 128):
        bits = (bits << 1) | int(bit)
    payload = bits.to_bytes(7, "big")
    if (sum(payload[:6]) & 0xFF) ^ 0xA5 != payload[6]:
        return None
    return int.from_bytes(payload[:2], "big"), int.from_bytes(payload[2:6], "big")


class TileReader:
    """Finds the tiles on the first frame where `expected` of them read, then reads them. A room
    where one participant has failed (its tile an error card) never shows them all: `patience`
    frames after the first that shows any, it settles for the most tiles that read on one frame."""

    def __init__(self, expected=4, whole=False, patience=300):
        self.expected, self.points, self.whole, self.patience = expected, None, whole, patience
        self.seen, self.best = 0, None

    def read(self, frame):
        if self.points is None:
            tiles = [(0, 0, frame.shape[1], frame.shape[0])] if self.whole else locate_tiles(frame)
            readable = [t for t in tiles if read_tile(frame, sample_points(t)) is not None]
            if readable and (self.best is None or len(readable) > len(self.best)):
                self.best = readable
            self.seen += 1 if self.best else 0
            if len(readable) < self.expected and not (self.seen >= self.patience and self.best):
                return None
            self.tiles = readable if len(readable) >= self.expected else self.best
            self.points = [sample_points(t) for t in self.tiles]
        return [read_tile(frame, p) for p in self.points]


def made_ms(code, now_ms):
    made = (now_ms & ~0xFFFFFFFF) | code[1]
    return made - (1 << 32) if made > now_ms + (1 << 31) else made


def percentile(values, p):
    return clock.percentile(values, p) if values else None


def frames_of(command, width=READ_W, height=READ_H, limit=None):
    """Raw frames from an ffmpeg command; with `limit`, ffmpeg is killed after that many seconds
    (a live stream whose publisher went away leaves ffmpeg waiting for ever on nginx)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    deadline = threading.Timer(limit, process.kill) if limit else None
    if deadline:
        deadline.start()
    size = width * height * 3
    try:
        while True:
            data = process.stdout.read(size)
            if len(data) < size:
                break
            yield np.frombuffer(data, np.uint8).reshape(height, width, 3)
    finally:
        if deadline:
            deadline.cancel()
        process.kill()
        process.wait()


def scale_args(width=READ_W, height=READ_H, flags="area"):
    return ["-vf", f"scale={width}:{height}:flags={flags}", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]


# MARK: - The pushed stream, live

def live(url, seconds, skip=3.0):
    """Each picture's age when ffmpeg's low-delay decode hands it over; distinct pictures a second
    per participant over the same span (from `skip` s after the first coded frame)."""
    reader = TileReader(int(os.environ.get("TILES", "4")))
    ages, numbers, first, last = [], None, None, None
    # Read small and cheap (a quarter of the pixels, no loop filter): on a 2-core machine this
    # reader takes its CPU from the recorder it measures. The code's squares stay 9 px wide.
    command = ["ffmpeg", "-v", "error", "-skip_loop_filter", "all", "-fflags", "nobuffer", "-flags", "low_delay", "-i", url,
               "-t", str(seconds + 10), "-an"] + scale_args(READ_W // 2, READ_H // 2, "neighbor")
    deadline = time.time() + seconds + 20
    for frame in frames_of(command, READ_W // 2, READ_H // 2, limit=seconds + 30):
        now = time.time()
        if now > deadline:
            break
        codes = reader.read(frame)
        if codes is None:
            continue
        first = first or now
        if now - first < skip:
            continue
        numbers = numbers or {}
        last = now
        for code in codes:
            if code:
                numbers.setdefault(code[0] >> 14, set()).add(code[0])
                ages.append(int(now * 1000) - made_ms(code, int(now * 1000)))
        if now - first >= skip + seconds:
            break
    span = (last - first - skip) if first and last else 0
    return {"seconds": round(span, 2), "tiles": getattr(reader, "tiles", None) and [list(map(int, t)) for t in reader.tiles],
            "distinct_per_second": {f"p{p + 1}": round(len(n) / span, 2) for p, n in sorted(numbers.items())} if numbers and span else {},
            "latency_ms": {"p50": percentile(ages, 0.5), "p95": percentile(ages, 0.95), "n": len(ages)}}


# MARK: - A recorded file or playlist

def video_times(path, seek):
    """Presentation times of the video frames from `seek` s of the file on, as ffmpeg's decode (with
    the input's start time taken off, as ffmpeg does) gives them: frame by frame with showinfo."""
    command = ["ffmpeg", "-v", "info", "-nostats"] + seek + ["-i", path, "-an", "-vf", "showinfo", "-f", "null", "-"]
    log = subprocess.run(command, capture_output=True, text=True).stderr
    return [float(line.split("pts_time:")[1].split()[0]) for line in log.splitlines() if "pts_time:" in line and "showinfo" in line]


def beeps_heard(samples, tone):
    """Each beep of `tone` as (start, length) in samples: a 10 ms window centred on each sample
    (its nulls every 100 Hz keep the other tones out) crossing half the beeps' level."""
    t = np.arange(len(samples)) / RATE
    mixed = samples * np.exp(-2j * np.pi * tone * t)
    window = RATE // 100
    level = np.abs(np.convolve(mixed, np.ones(window) / window, mode="same"))
    if len(level) == 0 or level.max() < 200:
        return []
    loud = level > np.percentile(level[level > level.max() * 0.2], 50) * 0.5
    edges = np.diff(loud.astype(np.int8))
    starts, ends = np.where(edges == 1)[0] + 1, np.where(edges == -1)[0] + 1
    heard = []
    for start in starts:
        later = ends[ends > start]
        if len(later) and not loud[max(0, start - window * 3):start].any():
            heard.append((int(start), int(later[0] - start)))
    return heard


def file_stats(path, last=None, skip=2.0, whole=False, base=None):
    """Per participant (found from its pictures' numbers, whatever tile it sits in): distinct pictures
    a second from `skip` s after the first coded frame, and the A/V offset of its beeps. With `base`
    (the recording's clock_started_at, when its frame 0 was due), how old each picture was when its
    frame was due: base + the frame's time in the stream."""
    seek = ["-sseof", str(-last)] if last else []
    times = video_times(path, seek)
    reader = TileReader(1 if whole else int(os.environ.get("TILES", "4")), whole)
    per_frame = [reader.read(f) for f in frames_of(["ffmpeg", "-v", "error"] + seek + ["-i", path, "-an"] + scale_args())]
    coded = [i for i, c in enumerate(per_frame) if c]
    result = {"frames": len(per_frame), "coded": len(coded), "tiles": getattr(reader, "tiles", None) and [list(map(int, t)) for t in reader.tiles]}
    if not coded or len(times) < len(per_frame):
        return dict(result, error=f"{len(times)} frame times for {len(per_frame)} frames")
    begin = times[coded[0]] + skip
    window = [i for i in coded if times[i] >= begin]
    span = times[window[-1]] - times[window[0]] + 1 / FPS if window else 0
    first_shown = {}  # participant -> {picture number: when it first showed}
    for i in window:
        for code in per_frame[i]:
            if code:
                first_shown.setdefault(code[0] >> 14, {}).setdefault(code[0], times[i])
    result["seconds"] = round(span, 2)
    if base is not None:
        zero = float(base)
        age = lambda i, code: int(1000 * (zero + times[i])) - made_ms(code, int(1000 * (zero + times[i])))
        ages = [age(i, code) for i in window for code in per_frame[i] if code]
        # Its course: the first and the last 5 s of the window (a latency that grows by a frame
        # for every frame the recorder drew late shows here).
        early = [age(i, code) for i in window if times[i] < times[window[0]] + 5 for code in per_frame[i] if code]
        late = [age(i, code) for i in window if times[i] > times[window[-1]] - 5 for code in per_frame[i] if code]
        result["latency_ms"] = {"p50": percentile(ages, 0.5), "p95": percentile(ages, 0.95), "n": len(ages),
                                "first_5s_p50": percentile(early, 0.5), "last_5s_p50": percentile(late, 0.5)}
    result["distinct_per_second"] = {f"p{p + 1}": round(len(f) / span, 2) for p, f in sorted(first_shown.items())} if span else {}
    if "--no-sound" not in sys.argv:
        result["av_offset_ms"] = av_offsets(path, seek, first_shown)
    return result


def av_offsets(path, seek, first_shown):
    """Per participant: each beep's start against the first showing of the picture it belongs to,
    positive when the sound comes late (beeps more than 0.5 s from any such picture left out)."""
    raw = subprocess.run(["ffmpeg", "-v", "error"] + seek + ["-i", path, "-vn", "-af", "aresample=async=1:first_pts=0",
                          "-ac", "1", "-ar", str(RATE), "-f", "s16le", "-"], capture_output=True).stdout
    samples = np.frombuffer(raw, "<i2").astype(float)
    result = {}
    for participant, shown in sorted(first_shown.items()):
        # Each beep's length class (its length in pictures, less 2) names the second it belongs to.
        heard = [(start / RATE, round(length / SAMPLES_PER_PICTURE) - 2) for start, length in beeps_heard(samples, TONES[participant])]
        marks = [(t, beep_class(n)) for n, t in shown.items() if beeps(n) == (True, 0)]
        offsets = []
        for mark, kind in marks:
            near = [b - mark for b, c in heard if c == kind and abs(b - mark) < BEEP_CLASSES / 2]
            if near:
                offsets.append(min(near, key=abs))
        offsets.sort()
        result[f"p{participant + 1}"] = {"n": len(offsets), "marks": len(marks), "p50": round(1000 * offsets[len(offsets) // 2], 1),
                                         "min": round(1000 * offsets[0], 1), "max": round(1000 * offsets[-1], 1)} if offsets else None
    return result


# MARK: - HLS playlist lag

def playlist_segments(path):
    """The playlist's segments as (uri, EXTINF, PROGRAM-DATE-TIME or None): each tag belongs to the
    next URI line, whichever order the tags come in."""
    lines = open(path).read().splitlines()
    segments, duration, date = [], None, None
    for line in lines:
        if line.startswith("#EXT-X-PROGRAM-DATE-TIME:"):
            date = datetime.fromisoformat(line.split(":", 1)[1].replace("Z", "+00:00")).timestamp()
        elif line.startswith("#EXTINF:"):
            duration = float(line.split(":", 1)[1].split(",")[0])
        elif line and not line.startswith("#") and duration is not None:
            segments.append((line, duration, date))
            duration, date = None, None
    return segments


def playlist_end(path):
    """The newest segment's end on the wall clock (its PROGRAM-DATE-TIME, or the one before's end,
    plus its EXTINF)."""
    try:
        segments = playlist_segments(path)
    except (OSError, ValueError):
        return None
    end = None
    for _, duration, date in segments:
        start = date if date is not None else end
        end = start + duration if start is not None else None
    return end


def hls_lag(playlist, seconds, segment):
    lags, stop = [], time.time() + seconds
    while time.time() < stop:
        end = playlist_end(playlist)
        if end:
            lags.append((time.time() - end) / segment)
        time.sleep(0.25)
    lags.sort()
    return {"polls": len(lags), "segments_behind": {"p50": percentile(lags, 0.5) and round(percentile(lags, 0.5), 2),
                                                     "max": lags and round(lags[-1], 2)}}


# MARK: - Packets

def packets(paths):
    """Each file: video frames ffprobe counts, its errors, and its largest step between video pts;
    then the largest step across the files where one starts (its first pts after the previous
    one's last), as one timeline."""
    files, previous, across = [], None, 0.0
    for path in paths:
        probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time",
                                "-of", "csv=p=0", path], capture_output=True, text=True)
        pts = sorted(float(v) for v in probe.stdout.split() if v.replace(".", "", 1).replace("-", "", 1).isdigit())
        decode = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "null", "-"], capture_output=True, text=True)
        steps = [b - a for a, b in zip(pts, pts[1:])]
        files.append({"file": os.path.basename(path), "frames": len(pts), "first": pts[0] if pts else None,
                      "last": pts[-1] if pts else None, "max_step_ms": round(1000 * max(steps), 1) if steps else None,
                      "min_step_ms": round(1000 * min(steps), 1) if steps else None,
                      "errors": " / ".join((probe.stderr + decode.stderr).split("\n")).strip(" /")[:300]})
        if previous is not None and pts and previous[-1] is not None and pts[0] > previous[-1]:
            across = max(across, pts[0] - previous[-1])
        previous = pts or previous
    return {"files": files, "max_step_across_ms": round(1000 * across, 1)}


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "publish":
        publish(int(args[args.index("--participant") + 1]), args[args.index("--audio") + 1])
        return
    if command == "live":
        result = live(args[0], float(args[1]))
    elif command == "file":
        option = lambda name, default: float(args[args.index(name) + 1]) if name in args else default
        result = file_stats(args[0], last=option("--last", None), skip=option("--skip", 2.0), whole="--whole" in args,
                            base=args[args.index("--base") + 1] if "--base" in args else None)
    elif command == "hls-lag":
        result = hls_lag(args[0], float(args[1]), float(args[2]) if len(args) > 2 else 2.0)
    elif command == "segments":
        result = playlist_segments(args[0])
    elif command == "packets":
        result = packets(args)
    else:
        sys.exit(f"unknown command {command}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
