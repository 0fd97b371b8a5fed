#!/usr/bin/env python3
"""Self-check of ll_origin.py against real ffmpeg publishes of clock-coded pictures on 127.0.0.1:
one encode feeds an LL-HLS origin and a --no-ll one, then a low-latency DASH publish goes to a
dash origin. Each check prints a line; figures (held reloads, part and chunk availability
against the pictures' capture clock) print as `info`. About 45 s; standard library and the
ffmpeg / ffprobe CLI only. Every process it starts is stopped by pid, whatever happens.

  python3 Tests/Support/Python/ll_origin_check.py [--keep DIR]   -> `N passed, 0 failed` (exit 1 if any failed)
      --keep DIR  leave the origins' request logs and stderr there (default: a temporary folder)
"""
import argparse
import http.client
import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime

HERE = os.path.dirname(os.path.abspath(__file__))
ORIGIN = os.path.join(HERE, "ll_origin.py")
CLOCK = os.path.join(HERE, "clock-code.py")
PY = sys.executable
HOST = "127.0.0.1"

_spec = importlib.util.spec_from_file_location("clock_code", CLOCK)
clock_code = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(clock_code)

ENCODE = ["-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "360x640", "-r", "30", "-i", "-",
          "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
          "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-g", "30", "-sc_threshold", "0",
          "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"]
HLS_PUBLISH = ["-f", "mp4", "-movflags", "empty_moov+default_base_moof+frag_keyframe+delay_moov",
               "-frag_duration", "333333", "pipe:1"]


def dash_publish(port):
    return ["-f", "dash", "-ldash", "1", "-streaming", "1", "-use_template", "1", "-use_timeline", "0",
            "-seg_duration", "1", "-frag_type", "duration", "-frag_duration", "0.2", "-target_latency", "1",
            "-min_playback_rate", "0.96", "-max_playback_rate", "1.04", "-window_size", "10",
            "-extra_window_size", "5", "-utc_timing_url", f"http://{HOST}:{port}/time", "-method", "PUT",
            "-http_persistent", "1", f"http://{HOST}:{port}/live/live.mpd"]


class Results:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print(f"{'ok  ' if ok else 'FAIL'} {name}" + (f"  ({detail})" if detail else ""), flush=True)
        return ok

    @staticmethod
    def info(text):
        print(f"info {text}", flush=True)


class Processes:
    """Everything started here, stopped by pid at the end (TERM, then KILL)."""

    def __init__(self):
        self.started = []

    def start(self, args, **options):
        process = subprocess.Popen(args, **options)
        self.started.append(process)
        return process

    def stop(self, process, grace=3.0):
        if process.poll() is None:
            try:
                process.send_signal(signal.SIGCONT)
                process.terminate()
                process.wait(grace)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            except ProcessLookupError:
                pass
        return process.returncode

    def stop_all(self):
        for process in reversed(self.started):
            self.stop(process)


def free_port():
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def wait_for(condition, seconds, step=0.05):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(step)
    return condition()


def get(port, path, headers=None, timeout=10):
    """(status, headers, body, seconds until the response's headers came)."""
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        started = time.time()
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        held = time.time() - started
        return response.status, dict(response.getheaders()), response.read(), held
    finally:
        connection.close()


def text(port, path):
    status, _, body, held = get(port, path)
    return status, body.decode(errors="replace"), held


def parse_playlist(body):
    """Segments [(msn, duration, uri, [parts])], trailing parts, tags, as the player would read them."""
    lines = body.splitlines()
    sequence = int(next((l.split(":")[1] for l in lines if l.startswith("#EXT-X-MEDIA-SEQUENCE:")), 0))
    skipped = int(next((re.search(r"SKIPPED-SEGMENTS=(\d+)", l).group(1) for l in lines
                        if l.startswith("#EXT-X-SKIP:")), 0))
    sequence += skipped
    segments, parts, pdts = [], [], []
    duration = None
    for line in lines:
        if line.startswith("#EXT-X-PART:"):
            attributes = dict(re.findall(r'([A-Z-]+)=("[^"]*"|[^,]*)', line[12:]))
            parts.append((attributes["URI"].strip('"'), float(attributes["DURATION"]),
                          attributes.get("INDEPENDENT") == "YES"))
        elif line.startswith("#EXTINF:"):
            duration = float(line[8:].split(",")[0])
        elif line.startswith("#EXT-X-PROGRAM-DATE-TIME:"):
            pdts.append(line.split(":", 1)[1])
        elif line and not line.startswith("#"):
            segments.append((sequence, duration, line, parts))
            sequence += 1
            parts = []
    hint = re.search(r'#EXT-X-PRELOAD-HINT:TYPE=PART,URI="seg(\d+)\.(\d+)\.m4s"', body)
    return {"segments": segments, "trailing": parts, "pdts": pdts, "skipped": skipped, "next_msn": sequence,
            "hint": (int(hint.group(1)), int(hint.group(2))) if hint else None,
            "tags": [l for l in lines if l.startswith("#") and not l.startswith(("#EXTINF", "#EXT-X-PART:",
                                                                                 "#EXT-X-PROGRAM-DATE"))]}


def picture_codes(media):
    """The clock codes of the pictures in an fMP4 (init + fragments), decoded by ffmpeg."""
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", "pipe:0", "-f", "rawvideo", "-pix_fmt", "rgb24",
                          "-s", "360x640", "pipe:1"], input=media, capture_output=True, timeout=30).stdout
    size = 360 * 640 * 3
    return [clock_code.read_code(raw[i:i + size], 360, 640) for i in range(0, len(raw) - size + 1, size)]


def made_at(code, now):
    """Capture time (unix s) of a picture's clock code, its ms unwrapped around `now`."""
    millis = int(now * 1000)
    made = (millis & ~0xFFFFFFFF) | code[1]
    if made > millis + (1 << 31):
        made -= 1 << 32
    return made / 1000


def ffmpeg_plays(url, seconds=3, timeout=25):
    try:
        run = subprocess.run(["ffmpeg", "-v", "error", "-i", url, "-t", str(seconds), "-f", "null", "-"],
                             capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        return run.returncode == 0, run.stderr.strip()[-300:]
    except subprocess.TimeoutExpired:
        return False, "timed out"


def read_log(path):
    with open(path) as lines:
        return [json.loads(line) for line in lines if line.strip()]


def tee(source, sinks):
    """Copies the publisher's fragmented MP4 to every origin, one going away leaving the others."""
    live = list(sinks)
    while live:
        data = source.read1(1 << 16)
        if not data:
            break
        for sink in list(live):
            try:
                sink.write(data)
                sink.flush()
            except (BrokenPipeError, ValueError, OSError):
                live.remove(sink)
    for sink in sinks:
        try:
            sink.close()
        except OSError:
            pass


def check_hls(results, processes, folder):
    ll_port, plain_port = free_port(), free_port()
    ll_log, ll_ready = os.path.join(folder, "hls.log"), os.path.join(folder, "hls.ready")
    plain_log, plain_ready = os.path.join(folder, "plain.log"), os.path.join(folder, "plain.ready")
    ll = processes.start([PY, ORIGIN, "hls", "--port", str(ll_port), "--log", ll_log, "--ready", ll_ready],
                         stdin=subprocess.PIPE, stderr=open(os.path.join(folder, "hls.err"), "w"))
    plain = processes.start([PY, ORIGIN, "hls", "--port", str(plain_port), "--no-ll", "--log", plain_log,
                             "--ready", plain_ready], stdin=subprocess.PIPE,
                            stderr=open(os.path.join(folder, "plain.err"), "w"))
    clock = processes.start([PY, CLOCK, "--seconds", "40"], stdout=subprocess.PIPE)
    encoder = processes.start(["ffmpeg", "-v", "error"] + ENCODE + HLS_PUBLISH, stdin=clock.stdout,
                              stdout=subprocess.PIPE, stderr=open(os.path.join(folder, "hls-ffmpeg.err"), "w"))
    clock.stdout.close()
    copier = threading.Thread(target=tee, args=(encoder.stdout, [ll.stdin, plain.stdin]), daemon=True)
    copier.start()
    started = time.time()

    ready = wait_for(lambda: os.path.exists(ll_ready) and os.path.exists(plain_ready), 15)
    results.check("hls: --ready written once 2 segments are complete", ready,
                  f"{time.time() - started:.1f} s after the publish started")
    if not ready:
        return
    results.check("hls: --ready names the port", json.load(open(ll_ready))["port"] == ll_port)

    status, body, _ = text(ll_port, "/live.m3u8")
    playlist = parse_playlist(body)
    header = body.splitlines()[:7]
    results.check("hls: playlist header (version 9, server control, part target, map)",
                  status == 200 and header[:3] == ["#EXTM3U", "#EXT-X-VERSION:9", "#EXT-X-TARGETDURATION:1"]
                  and header[3] == "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.002,CAN-SKIP-UNTIL=6.0"
                  and header[4] == "#EXT-X-PART-INF:PART-TARGET=0.334" and header[5].startswith("#EXT-X-MEDIA-SEQUENCE:")
                  and header[6] == '#EXT-X-MAP:URI="init.mp4"', " | ".join(header))
    print("\n".join("     " + line for line in body.splitlines()), flush=True)
    every_part = [p for s in playlist["segments"] for p in s[3]] + playlist["trailing"]
    results.check("hls: every part fits PART-TARGET, and is at least 85% of it unless independent or last",
                  all(p[1] <= 0.334 for p in every_part) and all(
                      p[1] >= 0.85 * 0.334 or p[2] or p is s[3][-1] for s in playlist["segments"] for p in s[3]),
                  f"{len(every_part)} parts, {sorted({round(p[1], 5) for p in every_part})}")
    results.check("hls: segments with parts: EXTINF is the sum of their parts, the first independent",
                  all(abs(s[1] - sum(p[1] for p in s[3])) < 1e-4 and s[3][0][2] for s in playlist["segments"] if s[3]))
    stamps = [datetime.fromisoformat(p.replace("Z", "+00:00")).timestamp() for p in playlist["pdts"]]
    results.check("hls: EXT-X-PROGRAM-DATE-TIME per segment, ms and Z, about 1 s apart",
                  all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", p) for p in playlist["pdts"])
                  and len(stamps) == len(playlist["segments"]) + 1
                  and all(0.8 < b - a < 1.2 for a, b in zip(stamps, stamps[1:])),
                  f"gaps {[round(b - a, 3) for a, b in zip(stamps, stamps[1:])]}")

    # Blocking reloads for the hinted part, one after another, as a player on parts does.
    helds, listed_late, hints_kept = [], [], True
    for _ in range(6):
        status, body, _ = text(ll_port, "/live.m3u8")
        playlist = parse_playlist(body)
        msn, part = playlist["hint"]
        status, body, held = text(ll_port, f"/live.m3u8?_HLS_msn={msn}&_HLS_part={part}")
        helds.append(held)
        hints_kept &= status == 200 and f'URI="seg{msn}.{part}.m4s"' in body
    results.check("hls: a blocking reload for the hinted part is held, then lists that very part",
                  hints_kept and all(0.005 < h < 0.8 for h in helds), f"held {[round(h, 3) for h in helds]} s")
    results.info(f"blocking reload held: median {statistics.median(helds) * 1000:.0f} ms, "
                 f"max {max(helds) * 1000:.0f} ms (a part every 333 ms)")

    # The hinted part, fetched before it exists, and how old its pictures are when it comes.
    latencies_first, latencies_last, hint_helds = [], [], []
    status, _, init, _ = get(ll_port, "/init.mp4")
    hint_ok = status == 200
    for _ in range(4):
        _, body, _ = text(ll_port, "/live.m3u8")
        msn, part = parse_playlist(body)["hint"]
        status, headers, data, held = get(ll_port, f"/seg{msn}.{part}.m4s")
        came = time.time()
        hint_helds.append(held)
        hint_ok &= status == 200 and int(headers.get("Content-Length", -1)) == len(data) > 0
        codes = [c for c in picture_codes(init + data) if c]
        if codes:
            latencies_first.append(came - made_at(codes[0], came))
            latencies_last.append(came - made_at(codes[-1], came))
        again = get(ll_port, f"/seg{msn}.{part}.m4s")
        hint_ok &= again[2] == data
    results.check("hls: GET of the hinted part is held until whole, then served with Content-Length",
                  hint_ok and all(h > 0.005 for h in hint_helds), f"held {[round(h, 3) for h in hint_helds]} s")
    if latencies_first:
        results.info(f"hinted part whole after its first picture was made: {statistics.median(latencies_first) * 1000:.0f} ms"
                     f" (median), after its last: {statistics.median(latencies_last) * 1000:.0f} ms")

    _, body, _ = text(ll_port, "/live.m3u8")
    playlist = parse_playlist(body)
    msn, part = playlist["hint"]
    # Two parts ahead is held (the part after the hinted one); five ahead is refused at once.
    second = (msn, part + 1) if part + 1 < 3 else (msn + 1, 0)
    status, _, _, held = get(ll_port, f"/seg{second[0]}.{second[1]}.m4s")
    results.check("hls: GET two parts ahead is held until it exists", status == 200 and 0.2 < held < 1.5,
                  f"{status} after {held:.3f} s")
    status, _, _, held = get(ll_port, f"/seg{msn + 2}.2.m4s")
    results.check("hls: GET further ahead is 404 at once", status == 404 and held < 0.1, f"{status} {held:.3f} s")

    last = parse_playlist(text(ll_port, "/live.m3u8")[1])["next_msn"]
    status, _, held = text(ll_port, f"/live.m3u8?_HLS_msn={last + 3}")
    results.check("hls: _HLS_msn past the last segment + 2 is 400 at once", status == 400 and held < 0.1,
                  f"{status} {held:.3f} s")
    results.check("hls: _HLS_part without _HLS_msn is 400", text(ll_port, "/live.m3u8?_HLS_part=1")[0] == 400)
    results.check("hls: _HLS_part past the Advance Part Limit is 400",
                  text(ll_port, f"/live.m3u8?_HLS_msn={last + 1}&_HLS_part=12")[0] == 400)

    complete = playlist["segments"][-1]
    status, _, whole, _ = get(ll_port, f"/seg{complete[0]}.m4s")
    parts = b"".join(get(ll_port, "/" + p[0])[2] for p in complete[3])
    results.check("hls: a segment is its parts' bytes end to end", status == 200 and whole == parts and whole,
                  f"seg{complete[0]}: {len(whole)} B from {len(complete[3])} parts")
    codes = picture_codes(init + whole)
    results.check("hls: init + segment decodes to 30 clock-coded pictures in order",
                  len(codes) == 30 and all(codes) and all((b[0] - a[0]) % 65536 == 1 for a, b in zip(codes, codes[1:])),
                  f"{len(codes)} pictures")
    status, headers, piece, _ = get(ll_port, f"/seg{complete[0]}.m4s", {"Range": "bytes=100-199"})
    results.check("hls: a byte range is 206 with Content-Range", status == 206 and piece == whole[100:200]
                  and headers.get("Content-Range") == f"bytes 100-199/{len(whole)}")

    ok, error = ffmpeg_plays(f"http://{HOST}:{ll_port}/live.m3u8")
    results.check("hls: ffmpeg plays the LL-HLS playlist while live", ok, error)

    # Delta updates need segments older than CAN-SKIP-UNTIL (6 s).
    wait_for(lambda: len(parse_playlist(text(ll_port, "/live.m3u8")[1])["segments"]) >= 9, 15, 0.25)
    status, full, _ = text(ll_port, "/live.m3u8")
    status_delta, delta, _ = text(ll_port, "/live.m3u8?_HLS_skip=YES")
    full_list, delta_list = parse_playlist(full), parse_playlist(delta)
    with_parts = [bool(s[3]) for s in full_list["segments"]]
    results.check("hls: parts listed for the last 3 segments (3 target durations) and the one in progress only",
                  with_parts[-3:] == [True] * 3 and not any(with_parts[:-3]) and bool(full_list["trailing"]),
                  f"{sum(with_parts)} of {len(with_parts)} complete segments with parts")
    skipped = delta_list["skipped"]
    kept = [s[0] for s in delta_list["segments"]]
    total = sum(s[1] for s in full_list["segments"])
    ends = {}
    elapsed = 0.0
    for segment in full_list["segments"]:
        elapsed += segment[1]
        ends[segment[0]] = total - elapsed
    results.check("hls: _HLS_skip=YES replaces the segments ending 6 s or more before the end with EXT-X-SKIP",
                  status_delta == 200 and skipped > 0 and "#EXT-X-MAP:URI=\"init.mp4\"" in delta
                  and kept == [s[0] for s in full_list["segments"]][skipped:]
                  and all(ends[s[0]] >= 6 - 1e-6 for s in full_list["segments"][:skipped])
                  and ends[kept[0]] < 6 - 1e-6 and len(delta) < len(full),
                  f"SKIPPED-SEGMENTS={skipped}, {len(full)} -> {len(delta)} bytes")
    print("\n".join("     " + line for line in delta.splitlines()[:12]) + "\n     ...", flush=True)
    msn, part = delta_list["hint"]
    status, body, held = text(ll_port, f"/live.m3u8?_HLS_msn={msn}&_HLS_part={part}&_HLS_skip=YES")
    results.check("hls: blocking reload and delta update together", status == 200 and "#EXT-X-SKIP:" in body
                  and f'seg{msn}.{part}.m4s' in body and held > 0.005, f"held {held:.3f} s")
    status, body, _ = text(ll_port, "/live.m3u8?_HLS_skip=v2")
    results.check("hls: _HLS_skip=v2 adds RECENTLY-REMOVED-DATERANGES", status == 200
                  and re.search(r'#EXT-X-SKIP:SKIPPED-SEGMENTS=\d+,RECENTLY-REMOVED-DATERANGES=""', body))

    # A publisher that stalls: the next part never comes.
    os.kill(clock.pid, signal.SIGSTOP)
    try:
        time.sleep(0.5)
        _, body, _ = text(ll_port, "/live.m3u8")
        msn, part = parse_playlist(body)["hint"]
        answer = {}
        fetch = threading.Thread(target=lambda: answer.update(part=get(ll_port, f"/seg{msn}.{part}.m4s")))
        fetch.start()
        status, _, held = text(ll_port, f"/live.m3u8?_HLS_msn={msn}&_HLS_part={part}")
        fetch.join()
    finally:
        os.kill(clock.pid, signal.SIGCONT)
    results.check("hls: a blocking reload not answered in 3 target durations is 503", status == 503
                  and 2.9 < held < 3.5, f"{status} after {held:.2f} s")
    results.check("hls: a hinted part not written in 3 target durations is 404",
                  answer["part"][0] == 404 and 2.9 < answer["part"][3] < 3.5,
                  f"{answer['part'][0]} after {answer['part'][3]:.2f} s")

    entries = read_log(ll_log)
    blocking = [e for e in entries if "_HLS_msn" in e["query"] and e["status"] == 200]
    results.check("hls: --log has a JSON line per request, blocking reloads with held_ms and their query",
                  len(entries) > 30 and len(blocking) >= 7 and all(e["held_ms"] > 5 for e in blocking[:6])
                  and any("_HLS_skip=YES" in e["query"] for e in entries)
                  and all({"t", "path", "query", "status", "held_ms"} <= set(e) for e in entries),
                  f"{len(entries)} lines")

    # The same stream as plain HLS.
    status, body, _ = text(plain_port, "/live.m3u8")
    results.check("hls --no-ll: version 7, segments only", status == 200 and "#EXT-X-VERSION:7" in body
                  and not re.search(r"SERVER-CONTROL|PART-INF|EXT-X-PART|PRELOAD-HINT|EXT-X-SKIP", body)
                  and body.count("#EXTINF:") >= 5)
    status, body2, held = text(plain_port, "/live.m3u8?_HLS_msn=9999&_HLS_part=0&_HLS_skip=YES")
    results.check("hls --no-ll: delivery directives ignored", status == 200 and held < 0.1
                  and "#EXT-X-SKIP" not in body2)
    ok, error = ffmpeg_plays(f"http://{HOST}:{plain_port}/live.m3u8")
    results.check("hls --no-ll: ffmpeg plays the plain playlist", ok, error)

    stopped = time.time()
    code = processes.stop(ll, grace=5)
    results.check("hls: SIGTERM ends the origin at once and cleanly", code == 0 and time.time() - stopped < 1.5,
                  f"exit {code} after {time.time() - stopped:.2f} s")
    refused = False
    try:
        socket.create_connection((HOST, ll_port), timeout=1).close()
    except OSError:
        refused = True
    results.check("hls: its port is closed", refused)
    for process in (plain, encoder, clock):
        processes.stop(process)


def check_dash(results, processes, folder):
    port = free_port()
    log, ready = os.path.join(folder, "dash.log"), os.path.join(folder, "dash.ready")
    origin = processes.start([PY, ORIGIN, "dash", "--port", str(port), "--log", log, "--ready", ready],
                             stderr=open(os.path.join(folder, "dash.err"), "w"))
    wait_for(lambda: port_open(port), 5)
    clock = processes.start([PY, CLOCK, "--seconds", "30"], stdout=subprocess.PIPE)
    encoder = processes.start(["ffmpeg", "-v", "error"] + ENCODE + dash_publish(port), stdin=clock.stdout,
                              stdout=subprocess.DEVNULL, stderr=open(os.path.join(folder, "dash-ffmpeg.err"), "w"))
    clock.stdout.close()
    started = time.time()
    ok = wait_for(lambda: os.path.exists(ready), 15)
    results.check("dash: --ready once the manifest and 2 segments of each stream are complete", ok,
                  f"{time.time() - started:.1f} s after the publish started")
    if not ok:
        return
    status, headers, body, _ = get(port, "/live/live.mpd")
    mpd = body.decode()
    results.check("dash: the manifest is served (dynamic, application/dash+xml)", status == 200
                  and headers.get("Content-Type") == "application/dash+xml" and 'type="dynamic"' in mpd)
    found = {name: re.search(pattern, mpd) for name, pattern in {
        "availabilityStartTime": r'availabilityStartTime="([^"]+)"',
        "availabilityTimeOffset": r'availabilityTimeOffset="([^"]+)"',
        "Latency": r'<Latency target="(\d+)"',
        "PlaybackRate": r'<PlaybackRate min="([^"]+)" max="([^"]+)"',
        "UTCTiming": r'<UTCTiming schemeIdUri="([^"]+)" value="([^"]+)"',
        "ProducerReferenceTime": r'<ProducerReferenceTime [^>]*wallClockTime="([^"]+)"',
        "SegmentTemplate": r'<SegmentTemplate timescale="(\d+)" duration="(\d+)"[^>]*startNumber="(\d+)"'}.items()}
    results.check("dash: ldash manifest: availabilityTimeOffset, ServiceDescription, UTCTiming to /time, prft",
                  all(found.values()) and found["UTCTiming"].group(2) == f"http://{HOST}:{port}/time",
                  ", ".join(f"{k}={m.group(0) if m else None}" for k, m in found.items() if k in
                            ("availabilityTimeOffset", "UTCTiming")))
    print("\n".join("     " + line for line in mpd.splitlines() if re.search(
        r"type=|availabilityStartTime|minimumUpdatePeriod|ServiceDescription|Latency|PlaybackRate|Producer|"
        r"UTCTiming|SegmentTemplate|Representation id", line)), flush=True)
    status, _, clock_body, _ = get(port, "/time")
    served = datetime.fromisoformat(clock_body.decode().replace("Z", "+00:00")).timestamp()
    results.check("dash: /time is ISO 8601 UTC with ms", status == 200
                  and re.fullmatch(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", clock_body)
                  and abs(served - time.time()) < 1, clock_body.decode())

    # Read segments while they are written, from just before their start on the timeline.
    start = datetime.fromisoformat(found["availabilityStartTime"].group(1).replace("Z", "+00:00")).timestamp()
    timescale, duration, first = (int(v) for v in found["SegmentTemplate"].groups())
    length = duration / timescale
    firsts, media_firsts, lasts, streamed_ok = [], [], [], True
    for _ in range(3):
        number = first + int((time.time() - start) / length) + 1
        begins = start + (number - first) * length
        time.sleep(max(0, begins - 0.1 - time.time()))
        connection = http.client.HTTPConnection(HOST, port, timeout=10)
        connection.request("GET", f"/live/chunk-stream0-{number:05d}.m4s")
        response = connection.getresponse()
        chunked = response.getheader("Transfer-Encoding") == "chunked"
        arrivals, data = [], b""
        while True:
            piece = response.read1(1 << 16)
            if not piece:
                break
            arrivals.append((time.time() - begins, len(data), len(piece)))
            data += piece
        connection.close()
        media = [a for a in arrivals if a[1] + a[2] > 100]  # past styp: the first moof+mdat
        firsts.append(arrivals[0][0] if arrivals else None)
        media_firsts.append(media[0][0] if media else None)
        lasts.append(arrivals[-1][0] if arrivals else None)
        status, headers, whole, _ = get(port, f"/live/chunk-stream0-{number:05d}.m4s")
        streamed_ok &= (response.status == 200 and chunked and len(arrivals) >= 3 and whole == data
                        and headers.get("Content-Length") == str(len(data)))
    results.check("dash: GET of a segment being written streams it chunked, piece by piece, to its end",
                  streamed_ok, f"{len(arrivals)} pieces, {len(data)} B")
    results.check("dash: its first media chunk is readable within 0.6 s of the segment's start",
                  all(m is not None and m < 0.6 for m in media_firsts),
                  f"first bytes {[round(f, 3) for f in firsts]} s, first moof {[round(m, 3) for m in media_firsts]} s, "
                  f"end {[round(l, 3) for l in lasts]} s")
    results.info(f"dash chunk availability after the segment's start (AST + (n - startNumber) x duration): first "
                 f"bytes (styp) {statistics.median(firsts) * 1000:.0f} ms, first moof+mdat "
                 f"{statistics.median(media_firsts) * 1000:.0f} ms, whole {statistics.median(lasts) * 1000:.0f} ms")
    status, _, _, held = get(port, "/live/nothing-here.m4s")
    results.check("dash: an unknown file is 404 at once", status == 404 and held < 0.1)
    try:
        probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0",
                                f"http://{HOST}:{port}/live/live.mpd"], capture_output=True, text=True, timeout=25,
                               stdin=subprocess.DEVNULL)
        kinds = set(probe.stdout.split())
    except subprocess.TimeoutExpired:
        kinds = set()
    results.check("dash: ffprobe reads the manifest (video and audio)", {"video", "audio"} <= kinds, str(kinds))
    entries = read_log(log)
    puts = [e for e in entries if e["method"] == "PUT" and "chunk-stream" in e["path"]]
    results.check("dash: --log has the uploads (PUT 201, held while ffmpeg writes, ~1 s a segment)",
                  len(puts) >= 4 and all(e["status"] == 201 for e in puts)
                  and statistics.median(e["held_ms"] for e in puts) > 500, f"{len(puts)} segment uploads")
    stopped = time.time()
    code = processes.stop(origin, grace=5)
    results.check("dash: SIGTERM ends the origin at once and cleanly", code == 0 and time.time() - stopped < 1.5,
                  f"exit {code} after {time.time() - stopped:.2f} s")
    for process in (encoder, clock):
        processes.stop(process)


def port_open(port):
    try:
        socket.create_connection((HOST, port), timeout=0.5).close()
        return True
    except OSError:
        return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--keep", help="a folder for the origins' logs")
    args = parser.parse_args()
    folder = args.keep or tempfile.mkdtemp(prefix="ll-origin-check-")
    os.makedirs(folder, exist_ok=True)
    results, processes = Results(), Processes()
    began = time.time()
    try:
        check_hls(results, processes, folder)
        check_dash(results, processes, folder)
    except Exception as error:  # a check that could not run at all is a failure, not a traceback
        import traceback
        traceback.print_exc()
        results.check("the checks ran to the end", False, repr(error))
    finally:
        processes.stop_all()
    if results.failed or args.keep:
        print(f"logs in {folder}")
    else:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{results.passed} passed, {results.failed} failed  ({time.time() - began:.0f} s)")
    sys.exit(1 if results.failed else 0)


if __name__ == "__main__":
    main()
