#!/usr/bin/env python3
"""Raw RGB pictures that carry their own creation time, for live-latency tests and benchmarks.

Writes 360x640 rgb24 frames to stdout at FPS (default 30), paced by the wall clock. Each
picture shows a grid of 8 x 7 black or white squares of 40 px on grey, centred, which codes:
  bits  0-15  the picture's number (mod 65536)
  bits 16-47  the wall clock when it was made, in ms since the epoch (mod 2^32)
  bits 48-55  a check byte: the six bytes above summed, mod 256, xor 0xA5
most significant bit first, row by row. A reader samples the middle of each square
(`ClockCode.swift` in the tests), so the code survives H.264 at any sane bit rate and a
scaled render. Pure standard library: it runs wherever python3 does.

  clock-code.py [--fps 30] [--seconds N] [--uneven MS]   | ffmpeg -f rawvideo -pix_fmt rgb24 -s 360x640 -r 30 -i - ...
                                            --uneven writes every odd picture MS early, so a publisher
                                            that stamps pictures as they arrive (ffmpeg's
                                            -use_wallclock_as_timestamps, GStreamer's do-timestamp)
                                            stamps them unevenly: 23.3 and 43.3 ms apart in turn at 10
  clock-code.py read FRAME_DIR              the codes in a render's frames, as JSON (ffmpeg reads the PNGs)
  clock-code.py stats FRAME_DIR [SKIP_S]    distinct pictures a second, and latency read back from the
                                            frames of a realtime render (its summary's clock_started_at),
                                            leaving out the first SKIP_S seconds (default 1)
  clock-code.py cadence FRAME_DIR [SKIP_S] how evenly the pictures reached the frames: for each picture,
                                            the frame it first showed in against where a steady 1:1
                                            cadence puts it (the median), so a picture shown late or
                                            never shows, whatever its timestamps said
  clock-code.py ffmpeg-latency URL [SECONDS]  the same figures for ffmpeg's own low-delay decode of a
                                            clock-coded stream: each picture's age when ffmpeg hands it over
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import threading
import time

WIDTH, HEIGHT = 360, 640
BLOCK, COLUMNS, ROWS = 40, 8, 7
LEFT = (WIDTH - COLUMNS * BLOCK) // 2
TOP = (HEIGHT - ROWS * BLOCK) // 2


def code_bits(number, millis):
    payload = (number & 0xFFFF).to_bytes(2, "big") + (millis & 0xFFFFFFFF).to_bytes(4, "big")
    check = (sum(payload) & 0xFF) ^ 0xA5
    value = int.from_bytes(payload + bytes([check]), "big")
    return [(value >> (55 - i)) & 1 for i in range(56)]



def rgb24_picture(number, millis):
    """The picture that carries `number` and `millis` as rgb24 bytes, WIDTH x HEIGHT: grey, with
    the ROWS x COLUMNS squares of the code, black or white. For the test senders that make
    pictures themselves (whep_aiortc.py, whep_webrtcbin.py)."""
    frame = bytearray(bytes([96]) * (WIDTH * HEIGHT * 3))
    black, white = bytes(BLOCK * 3), bytes([255]) * (BLOCK * 3)
    for i, bit in enumerate(code_bits(number, millis)):
        row, column = divmod(i, COLUMNS)
        x = (LEFT + column * BLOCK) * 3
        for y in range(TOP + row * BLOCK, TOP + (row + 1) * BLOCK):
            frame[y * WIDTH * 3 + x:y * WIDTH * 3 + x + BLOCK * 3] = white if bit else black
    return bytes(frame)

def read_code(frame, width, height):
    """The (number, millis) a frame shows, or None where the squares do not hold a valid code."""
    bits = 0
    for i in range(56):
        row, column = divmod(i, COLUMNS)
        x = (LEFT + column * BLOCK + BLOCK // 2) * width // WIDTH
        y = (TOP + row * BLOCK + BLOCK // 2) * height // HEIGHT
        offset = (y * width + x) * 3
        luma = (frame[offset] + frame[offset + 1] + frame[offset + 2]) // 3
        bits = (bits << 1) | (1 if luma >= 128 else 0)
    payload = bits.to_bytes(7, "big")
    if (sum(payload[:6]) & 0xFF) ^ 0xA5 != payload[6]:
        return None
    return int.from_bytes(payload[:2], "big"), int.from_bytes(payload[2:6], "big")


def read_frames(folder):
    """Each frame's code, in frame order: decoded to raw RGB by one ffmpeg run over the
    numbered files (a render's numbering has no holes)."""
    paths = sorted(glob.glob(os.path.join(folder, "frame-*.png")))
    if not paths:
        return []
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                            "stream=width,height", "-of", "csv=p=0", paths[0]], capture_output=True, text=True)
    width, height = (int(v) for v in probe.stdout.strip().split(","))
    raw = subprocess.run(["ffmpeg", "-v", "error", "-f", "image2", "-framerate", "30", "-i",
                          os.path.join(folder, "frame-%06d.png"), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         capture_output=True).stdout
    size = width * height * 3
    return [read_code(raw[i:i + size], width, height) for i in range(0, len(raw) - size + 1, size)]


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))]


def stats(folder, skip_seconds):
    """What a viewer saw: distinct pictures per second of the render, and how old each frame's
    picture was when the frame was due (frame n is due at clock_started_at + n / fps)."""
    summary = json.load(open(os.path.join(folder, "summary.json")))
    fps = summary["timeline_fps"]
    started = summary.get("clock_started_at")
    codes = read_frames(folder)
    first = int(skip_seconds * fps)
    window = codes[first:]
    coded = [c for c in window if c]
    distinct = len({c[0] for c in coded})
    seconds = len(window) / fps if window else 0
    result = {"frames": len(codes), "coded": len(coded), "seconds": round(seconds, 3),
              "distinct_per_second": round(distinct / seconds, 2) if seconds else 0}
    if started is not None:
        latencies = []
        for n, code in enumerate(codes):
            if n < first or not code:
                continue
            due = int((started + n / fps) * 1000)
            made = (due & ~0xFFFFFFFF) | code[1]
            if made > due + (1 << 31):
                made -= 1 << 32
            latencies.append(due - made)
        if latencies:
            result["latency_ms"] = {"p50": percentile(latencies, 0.5), "p95": percentile(latencies, 0.95),
                                    "max": max(latencies)}
    return result


def cadence(folder, skip_seconds):
    """Pictures against a steady cadence, for a source whose rate is the render's: picture n
    first shows in frame first[n]; on a steady cadence first[n] - n is the same for every
    picture, so its spread is how late (or early) each was, in frames."""
    summary = json.load(open(os.path.join(folder, "summary.json")))
    fps = summary["timeline_fps"]
    codes = read_frames(folder)[int(skip_seconds * fps):]
    first = {}
    for n, code in enumerate(codes):
        if code and code[0] not in first:
            first[code[0]] = n
    if len(first) < 2:
        return {"pictures": len(first)}
    numbers = sorted(first)
    lags = sorted(first[k] - k for k in numbers)
    base = lags[len(lags) // 2]
    late = [first[k] - k - base for k in numbers]
    span = numbers[-1] - numbers[0] + 1
    seconds = len(codes) / fps
    return {"pictures": len(first), "distinct_per_second": round(len(first) / seconds, 2) if seconds else 0,
            "never_shown": span - len(first), "late_by_more_than_1_frame": sum(1 for d in late if d > 1),
            "most_late_frames": max(late), "most_early_frames": -min(late)}


def ffmpeg_latency(url, seconds):
    """ffmpeg -fflags nobuffer -flags low_delay decoding URL to raw RGB: how old each picture is
    when it comes out (no display, so this is the floor a player on the same input can reach)."""
    size = WIDTH * HEIGHT * 3
    process = subprocess.Popen(["ffmpeg", "-v", "error", "-fflags", "nobuffer", "-flags", "low_delay", "-i", url,
                                "-t", str(seconds), "-s", f"{WIDTH}x{HEIGHT}", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                               stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    # FFmpeg 5.1's DASH demuxer can spin on a live manifest without ever giving `seconds` of
    # pictures: killed here, since a caller's timeout kills this script and not its child (one
    # such ffmpeg ran on at a whole core after a bench had ended).
    deadline = threading.Timer(seconds + 20, process.kill)
    deadline.start()
    latencies, numbers, first = [], set(), None
    try:
        while True:
            frame = process.stdout.read(size)
            if len(frame) < size:
                break
            now = int(time.time() * 1000)
            code = read_code(frame, WIDTH, HEIGHT)
            if not code:
                continue
            first = first or now
            numbers.add(code[0])
            made = (now & ~0xFFFFFFFF) | code[1]
            if made > now + (1 << 31):
                made -= 1 << 32
            latencies.append(now - made)
    finally:
        deadline.cancel()
        process.kill()
        process.wait()
    span = (now - first) / 1000 if first else 0
    result = {"pictures": len(numbers), "distinct_per_second": round(len(numbers) / span, 2) if span else 0}
    if latencies:
        result["latency_ms"] = {"p50": percentile(latencies, 0.5), "p95": percentile(latencies, 0.95)}
    return result


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "ffmpeg-latency":
        print(json.dumps(ffmpeg_latency(sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 10)))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "cadence":
        print(json.dumps(cadence(sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 1.0)))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "stats":
        print(json.dumps(stats(sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 1.0)))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "read":
        codes = read_frames(sys.argv[2])
        print(json.dumps([list(c) if c else None for c in codes]))
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--fps", type=float, default=30)
    parser.add_argument("--seconds", type=float, default=0, help="0: until the reader goes away")
    parser.add_argument("--uneven", type=float, default=0, help="write each odd picture this many ms early")
    args = parser.parse_args()
    grey = bytes([96, 96, 96]) * WIDTH
    base = bytearray(grey * HEIGHT)
    black, white = bytes(BLOCK * 3), bytes([255]) * (BLOCK * 3)
    out = sys.stdout.buffer
    start = time.time()
    number = 0
    try:
        while args.seconds <= 0 or number < args.seconds * args.fps:
            due = start + number / args.fps - (args.uneven / 1000 if number % 2 else 0)
            now = time.time()
            if due > now:
                time.sleep(due - now)
            frame = bytearray(base)
            for i, bit in enumerate(code_bits(number, int(time.time() * 1000))):
                row, column = divmod(i, COLUMNS)
                x = (LEFT + column * BLOCK) * 3
                square = white if bit else black
                for y in range(TOP + row * BLOCK, TOP + (row + 1) * BLOCK):
                    offset = y * WIDTH * 3 + x
                    frame[offset:offset + BLOCK * 3] = square
            out.write(frame)
            out.flush()
            number += 1
    except (BrokenPipeError, KeyboardInterrupt):
        pass


if __name__ == "__main__":
    main()
