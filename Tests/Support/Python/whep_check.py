#!/usr/bin/env python3
"""Checks CStoryWHEP (Sources/CStoryWHEP) end to end against whep_peer.py, without Swift.

Builds Sources/CStoryWHEP's C files into a shared object with gcc (-Wall -Wextra -Werror; or takes --lib),
drives it through ctypes as the Swift decode thread will (load, create, offer, POST the offer
with urllib, answer, read), and checks what it read: the bytes are saved to a file, ffprobe
(FFmpeg 5.1, as the player) names the streams, and each decoded picture's clock code
(clock-code.py's `read_code`) gives its age when the bytes holding it were read (its arrival:
ffprobe's pkt_pos of the picture's packet, looked up in the offsets of the reads).
Every scenario runs its own whep_peer.py on a free loopback port, stopped by pid at the end.

  whep_check.py [--lib SO] [--seconds 8] [--latency MS] [--only NAME,...] [--keep DIR] [--json FILE]

Scenarios (each PASS or FAIL with its figures; the last line is "N passed, M failed"):
  load        story_whep_load's cost in a fresh process (ms; median of 3), and its answer when no
              GStreamer plugin can be found (-1 naming the element and the Debian package)
  play        H.264 + Opus: both streams, >= 29 distinct pictures/s, latency at arrival (p50, p95),
              startup (answer to first byte, to first picture), the jitter buffer's depth
  drop        the peer drops 2 % of its video packets (retransmissions too; seeded: 6 of the first 240,
              two of them 2 apart): >= 27 pictures/s, no gap
              > 500 ms between pictures, NACKs sent > 0 (the peer's log must agree); PLIs counted
  drop-pli    the same, and the peer ignores NACKs, so every loss waits out the jitter buffer's latency
              and then a keyframe: >= 20 pictures/s, no gap > 1 s, PLIs sent > 0 (the peer's log must agree)
  first-keyframe-lost  the peer drops its first 3 video packets (the first keyframe): the client
              asks for one (the jitter buffer sees no loss), the first picture within 1.5 s of the
              answer, >= 29 pictures/s
  no-audio    the peer sends no sound (its audio m-line inactive): video alone, >= 29 pictures/s
  audio-stops the peer's sound stops 3 s in, its video goes on: >= 29 pictures/s after, no gap
              > 500 ms; the latency before and after (the muxer waits for the silent track)
  video-only  the client asks for no sound (want_audio 0): video alone
  vp8         want_vp8 and a peer that picks VP8: Matroska with VP8 video
  stock-aiortc  an unmodified aiortc peer (whep_aiortc.py: ECDSA P-256 certificate, ECDHE-ECDSA
              suites only, the DTLS client): H.264 + Opus, >= 29 distinct pictures/s
  webrtcbin   GStreamer's webrtcbin as the sender (whep_webrtcbin.py: RSA 2048 certificate, the
              DTLS client): the same
  webrtcbin-passive  the same sender answering a=setup:passive: webrtcbin the DTLS server with its
              RSA certificate, the client's DTLS the client (ECDHE-RSA)
  status-503  the peer refuses the POST: the HTTP error is seen, the session closes cleanly
  no-ice      the answer's candidates are unreachable: read returns -1 naming ICE, or 0 until
              the caller's deadline (15 s), cleanly either way
  stop-after  the peer stops sending 3 s after connecting: reads return 0 (or -1 at end of stream)
  bad-answer  answers that are not SDP, or lack ICE credentials and fingerprint: -1 with a message
  interrupt   a read blocked in another thread returns -1 within 100 ms of story_whep_interrupt
  glib-messages  no GLib critical or warning was printed by GStreamer during all of the above
"""
import argparse
import ctypes
import importlib.util
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
SOURCE = os.path.join(ROOT, "Sources", "CStoryWHEP")

_spec = importlib.util.spec_from_file_location("clock_code", os.path.join(HERE, "clock-code.py"))
clock_code = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(clock_code)


def child_environment():
    """The environment for the peers, ffmpeg and ffprobe: without LD_PRELOAD (a sanitizer's
    runtime preloaded to check the library is for this process only)."""
    return {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}


class Options(ctypes.Structure):
    _fields_ = [("jitter_latency_ms", ctypes.c_int), ("want_audio", ctypes.c_int), ("want_vp8", ctypes.c_int),
                ("local_address", ctypes.c_char_p)]


class Status(ctypes.Structure):
    _fields_ = [("ice_state", ctypes.c_int), ("connection_state", ctypes.c_int), ("jitter_latency_ms", ctypes.c_int),
                ("jitter_depth_ms", ctypes.c_double),
                ("packets_received", ctypes.c_ulonglong), ("packets_lost", ctypes.c_ulonglong),
                ("nacks_sent", ctypes.c_ulonglong), ("plis_sent", ctypes.c_ulonglong),
                ("rtx_requested", ctypes.c_ulonglong), ("rtx_recovered", ctypes.c_ulonglong),
                ("bytes_dropped", ctypes.c_ulonglong),
                ("video_pt", ctypes.c_int), ("video_codec", ctypes.c_char * 16), ("container", ctypes.c_char * 16)]

    def as_dict(self):
        return {name: (getattr(self, name).decode() if isinstance(getattr(self, name), bytes) else
                       round(getattr(self, name), 1) if isinstance(getattr(self, name), float) else getattr(self, name))
                for name, _ in self._fields_}


def build(output):
    # GStreamer's headers, not its libraries: the target opens them with dlopen.
    headers = subprocess.run(["pkg-config", "--cflags", "gstreamer-webrtc-1.0", "gstreamer-sdp-1.0", "gstreamer-app-1.0"],
                             check=True, capture_output=True, text=True).stdout.split()
    command = ["gcc", "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror", "-I", os.path.join(SOURCE, "include"), *headers,
               *sorted(os.path.join(SOURCE, name) for name in os.listdir(SOURCE) if name.endswith(".c")),
               "-o", output, "-ldl", "-lpthread"]
    subprocess.run(command, check=True)
    return output


class AnswerVideo(ctypes.Structure):
    """story_whep_answer_video: what the caller read in the answer (Swift's WHEPAnswer)."""
    _fields_ = [("video_codec", ctypes.c_int), ("video_payload_types", ctypes.c_ubyte * 128)]

    @classmethod
    def read(cls, sdp):
        """As WHEPAnswer reads it: the first video m-line with a port and a payload type, the
        codec of its first payload type's rtpmap (0, which the C refuses, for none or another)."""
        video, sections = cls(), []
        for line in sdp.splitlines():
            if line.startswith("m="):
                fields = line[2:].split()
                port = int(fields[1].split("/")[0]) if len(fields) > 1 and fields[1].split("/")[0].isdigit() else 0
                types = [int(f) for f in fields[3:] if f.isdigit() and int(f) < 128]
                sections.append({"kind": fields[0] if fields else "", "port": port, "types": types, "names": {}})
            elif line.startswith("a=rtpmap:") and sections:
                pt, _, name = line[len("a=rtpmap:"):].partition(" ")
                if pt.isdigit():
                    sections[-1]["names"][int(pt)] = name.split("/")[0].upper()
        chosen = next((m for m in sections if m["kind"] == "video" and m["port"] != 0 and m["types"]), None)
        if chosen:
            video.video_codec = {"H264": 1, "VP8": 2}.get(chosen["names"].get(chosen["types"][0]), 0)
            for pt in chosen["types"]:
                video.video_payload_types[pt] = 1
        return video


class Library:
    def __init__(self, path):
        lib = ctypes.CDLL(path)
        lib.story_whep_load.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        lib.story_whep_create.restype = ctypes.c_void_p
        lib.story_whep_create.argtypes = [ctypes.POINTER(Options), ctypes.c_char_p, ctypes.c_size_t]
        lib.story_whep_offer.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
        lib.story_whep_answer.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(AnswerVideo), ctypes.c_char_p, ctypes.c_size_t]
        lib.story_whep_read.restype = ctypes.c_long
        lib.story_whep_read.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
        lib.story_whep_error.restype = ctypes.c_char_p
        lib.story_whep_error.argtypes = [ctypes.c_void_p]
        lib.story_whep_status_get.argtypes = [ctypes.c_void_p, ctypes.POINTER(Status)]
        lib.story_whep_interrupt.argtypes = [ctypes.c_void_p]
        lib.story_whep_close.argtypes = [ctypes.c_void_p]
        self.lib = lib
        self.libc = ctypes.CDLL(None)
        self.libc.free.argtypes = [ctypes.c_void_p]


class Failure(Exception):
    pass


class Peer:
    """whep_peer.py (or another WHEP server here, `script`) on a free loopback port; stopped by its pid."""

    def __init__(self, folder, *flags, script="whep_peer.py", interpreter=None):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.ready = os.path.join(folder, f"ready-{self.port}")
        self.log = os.path.join(folder, f"peer-{self.port}.jsonl")
        self.output = open(os.path.join(folder, f"peer-{self.port}.out"), "w")
        self.process = subprocess.Popen([interpreter or sys.executable, os.path.join(HERE, script), "--port", str(self.port),
                                         "--ready", self.ready, "--log", self.log, *flags],
                                        stdout=self.output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        env=child_environment())
        deadline = time.time() + 20
        while not os.path.exists(self.ready):
            if self.process.poll() is not None or time.time() > deadline:
                self.stop()
                raise Failure(f"{script} did not start (see {self.output.name})")
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{self.port}/whep"

    def stop(self):
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.output.close()

    def events(self):
        try:
            return [json.loads(line) for line in open(self.log)]
        except FileNotFoundError:
            return []


def post(url, offer):
    request = urllib.request.Request(url, data=offer.encode(), method="POST", headers={"Content-Type": "application/sdp"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, response.headers.get("Location"), response.read().decode()


def delete(base, location):
    request = urllib.request.Request(urllib.request.urljoin(base, location), method="DELETE")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


class Session:
    """One story_whep session, driven as the decode thread will."""

    def __init__(self, library, latency, want_audio=1, want_vp8=0):
        self.library, self.lib = library, library.lib
        self.error = ctypes.create_string_buffer(512)
        if self.lib.story_whep_load(self.error, 512) != 0:
            raise Failure(f"story_whep_load: {self.error.value.decode()}")
        options = Options(latency, want_audio, want_vp8, b"127.0.0.1")
        self.handle = self.lib.story_whep_create(ctypes.byref(options), self.error, 512)
        if not self.handle:
            raise Failure(f"story_whep_create: {self.error.value.decode()}")

    # The first offer in a process waits for GStreamer's DTLS element to make its RSA 2048 key
    # (dtlsdec does, once, even though ours replaces it): 0.9-5.7 s measured at a load of 19.
    def offer(self, timeout_ms=15000):
        pointer = ctypes.c_void_p()
        if self.lib.story_whep_offer(self.handle, ctypes.byref(pointer), timeout_ms, self.error, 512) != 0:
            raise Failure(f"story_whep_offer: {self.error.value.decode()}")
        text = ctypes.string_at(pointer).decode()
        self.library.libc.free(pointer)
        return text

    def answer(self, sdp):
        video = AnswerVideo.read(sdp)
        result = self.lib.story_whep_answer(self.handle, sdp.encode(), ctypes.byref(video), self.error, 512)
        return result, self.error.value.decode()

    def status(self):
        status = Status()
        self.lib.story_whep_status_get(self.handle, ctypes.byref(status))
        return status.as_dict()

    def read(self, seconds, stop_on_quiet=None, timeout_ms=200):
        """Reads for `seconds`: the bytes, each read's (end offset, time), the first -1's time and
        error, and the times of the reads that returned 0."""
        buffer = ctypes.create_string_buffer(1 << 16)
        data, marks, zeros = bytearray(), [], []
        ended = None
        start = time.time()
        next_status, statuses = start + 1, []
        while time.time() - start < seconds:
            count = self.lib.story_whep_read(self.handle, buffer, len(buffer), timeout_ms)
            now = time.time()
            if count < 0:
                ended = (now, self.lib.story_whep_error(self.handle).decode())
                break
            if count == 0:
                zeros.append(now)
            else:
                data += buffer.raw[:count]
                marks.append((len(data), now))
            if now >= next_status:
                statuses.append(self.status())
                next_status += 1
        return data, marks, ended, zeros, statuses

    def close(self):
        if self.handle:
            self.lib.story_whep_close(self.handle)
            self.handle = None


def probe_streams(path):
    result = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_type,codec_name", "-of", "json", path],
                            capture_output=True, text=True, env=child_environment())
    return [(s.get("codec_type"), s.get("codec_name")) for s in json.loads(result.stdout or "{}").get("streams", [])]


def arrival_of(marks, position):
    """When the read that brought byte `position` returned."""
    low, high = 0, len(marks) - 1
    while low < high:
        middle = (low + high) // 2
        if marks[middle][0] > position:
            high = middle
        else:
            low = middle + 1
    return marks[low][1]


def pictures(path, marks):
    """Each decoded picture in order: (arrival time, code or None), decoded by FFmpeg 5.1."""
    frames = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pkt_pos,width,height",
                             "-of", "json", path], capture_output=True, text=True, env=child_environment())
    frames = json.loads(frames.stdout or "{}").get("frames", [])
    if not frames:
        return []
    width, height = int(frames[0]["width"]), int(frames[0]["height"])
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough",
                          "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], capture_output=True, env=child_environment()).stdout
    size = width * height * 3
    count = len(raw) // size
    if count != len(frames):
        raise Failure(f"ffmpeg decoded {count} pictures, ffprobe {len(frames)}")
    result = []
    for i, frame in enumerate(frames):
        position = int(frame.get("pkt_pos", -1))
        arrived = arrival_of(marks, position) if position >= 0 else None
        result.append((arrived, clock_code.read_code(raw[i * size:(i + 1) * size], width, height)))
    return result


def picture_figures(decoded, answered):
    coded = [(arrived, code) for arrived, code in decoded if code and arrived]
    if len(coded) < 2:
        return {"pictures": len(coded)}
    latencies, made_times, first_seen = [], [], {}
    for arrived, (number, millis) in coded:
        now = int(arrived * 1000)
        made = (now & ~0xFFFFFFFF) | millis
        if made > now + (1 << 31):
            made -= 1 << 32
        latencies.append(now - made)
        made_times.append(made)
        first_seen.setdefault(number, arrived)
    span = (max(made_times) - min(made_times)) / 1000 + 1 / 30
    arrivals = sorted(first_seen.values())
    made_sorted = sorted(set(made_times))
    return {"pictures": len(first_seen), "seconds": round(span, 2),
            "distinct_per_second": round(len(first_seen) / span, 2),
            "latency_ms": {"p50": clock_code.percentile(latencies, 0.5), "p95": clock_code.percentile(latencies, 0.95),
                           "max": max(latencies)},
            "longest_gap_ms": {"arrival": round(max(b - a for a, b in zip(arrivals, arrivals[1:])) * 1000),
                               "made": max(b - a for a, b in zip(made_sorted, made_sorted[1:]))},
            "first_picture_after_answer_ms": round((arrivals[0] - answered) * 1000),
            "undecodable_pictures": sum(1 for _, code in decoded if not code)}


class Checker:
    def __init__(self, args):
        self.args = args
        self.folder = args.keep or tempfile.mkdtemp(prefix="whep-check-")
        os.makedirs(self.folder, exist_ok=True)
        self.library_path = args.lib or build(os.path.join(self.folder, "libstorywhep.so"))
        self.library = Library(self.library_path)
        self.results = []

    def play(self, name, peer_flags, want_audio=1, want_vp8=0, seconds=None, script="whep_peer.py", interpreter=None):
        """Offer, POST, answer, read; the file, the figures and the session's status."""
        peer = Peer(self.folder, *peer_flags, script=script, interpreter=interpreter)
        session = None
        try:
            session = Session(self.library, self.args.latency, want_audio, want_vp8)
            offer = session.offer()
            status, location, answer = post(peer.url, offer)
            if status != 201 or not location:
                raise Failure(f"POST answered {status}, Location {location}")
            result, error = session.answer(answer)
            answered = time.time()
            if result != 0:
                raise Failure(f"story_whep_answer: {error}")
            data, marks, ended, zeros, statuses = session.read(seconds or self.args.seconds)
            final = session.status()
            deleted = delete(peer.url, location)
            path = os.path.join(self.folder, f"{name}.bin")
            with open(path, "wb") as output:
                output.write(data)
            return {"peer": peer, "path": path, "data": data, "marks": marks, "ended": ended, "zeros": zeros,
                    "answered": answered, "status": final, "statuses": statuses, "deleted": deleted,
                    "first_byte_ms": round((marks[0][1] - answered) * 1000) if marks else None}
        finally:
            if session:
                session.close()
            peer.stop()

    def record(self, name, passed, figures, reason=""):
        self.results.append({"name": name, "passed": passed, "figures": figures, "reason": reason})
        print(f"{'PASS' if passed else 'FAIL'} {name}: {reason + '; ' if reason else ''}{json.dumps(figures)}", flush=True)

    def run(self, name, function):
        if self.args.only and name not in self.args.only:
            return
        try:
            function(name)
        except Failure as failure:
            self.record(name, False, {}, str(failure))
        except Exception as error:  # a harness bug is a failure too, with its cause
            self.record(name, False, {}, f"{type(error).__name__}: {error}")

    # Scenarios

    def check_load(self, name):
        code = ("import ctypes,time,sys; lib=ctypes.CDLL(sys.argv[1]); e=ctypes.create_string_buffer(512); "
                "t=time.perf_counter(); r=lib.story_whep_load(e,512); d=(time.perf_counter()-t)*1000; "
                "print(r, round(d,2), e.value.decode())")
        times, answers = [], []
        for _ in range(3):
            output = subprocess.run([sys.executable, "-c", code, self.library_path], capture_output=True, text=True,
                                    env=child_environment()).stdout.split(" ", 2)
            answers.append(int(output[0]))
            times.append(float(output[1]))
        figures = {"load_ms": statistics.median(times), "runs_ms": times}
        # Failure is data: with no plugins to be found, load says which element and package.
        bare = dict(child_environment(), GST_PLUGIN_SYSTEM_PATH_1_0=os.path.join(self.folder, "no-plugins"),
                    GST_PLUGIN_PATH_1_0="", GST_REGISTRY_1_0=os.path.join(self.folder, "empty-registry.bin"))
        output = subprocess.run([sys.executable, "-c", code, self.library_path], capture_output=True, text=True,
                                env=bare).stdout.split(" ", 2)
        figures["without_plugins"] = {"result": int(output[0]), "error": output[2].strip() if len(output) > 2 else ""}
        passed = all(a == 0 for a in answers) and figures["without_plugins"]["result"] == -1 and \
            "install gstreamer1.0-plugins-bad" in figures["without_plugins"]["error"]
        self.record(name, passed, figures, "" if passed else "load failed, or did not say what is missing")

    def check_media(self, name, flags, want_audio, want_vp8, expect_streams, minimum_rate, gap_limit=None, need_recovery=False,
                    container="mpegts", need_pli=False, first_picture_limit=None, script="whep_peer.py", interpreter=None):
        run = self.play(name, flags, want_audio, want_vp8, script=script, interpreter=interpreter)
        streams = probe_streams(run["path"])
        decoded = pictures(run["path"], run["marks"])
        figures = picture_figures(decoded, run["answered"])
        figures.update({"streams": streams, "bytes": len(run["data"]), "first_byte_after_answer_ms": run["first_byte_ms"],
                        "status": run["status"], "ended": run["ended"], "delete": run["deleted"]})
        problems = []
        if sorted(streams) != sorted(expect_streams):
            problems.append(f"streams {streams}, expected {expect_streams}")
        if run["status"]["container"] != container:
            problems.append(f"container {run['status']['container']}")
        if run["ended"]:
            problems.append(f"read ended: {run['ended'][1]}")
        if figures.get("distinct_per_second", 0) < minimum_rate:
            problems.append(f"{figures.get('distinct_per_second', 0)} pictures/s < {minimum_rate}")
        if figures.get("pictures", 0) < 2:
            problems.append(f"{figures.get('pictures', 0)} pictures decoded")
        elif gap_limit is not None and figures.get("longest_gap_ms", {}).get("arrival", 1e9) > gap_limit:
            problems.append(f"a gap of {figures['longest_gap_ms']['arrival']} ms between pictures")
        if first_picture_limit is not None and (figures.get("first_picture_after_answer_ms") or 1e9) > first_picture_limit:
            problems.append(f"the first picture came {figures.get('first_picture_after_answer_ms')} ms after the answer")
        if need_recovery:
            events = run["peer"].events()
            peer_counts = next((e for e in events if e["event"] == "summary"), {})
            figures["peer"] = {k: peer_counts.get(k) for k in ("dropped", "video_packets", "nacks", "nacked_packets", "plis", "firs")}
            if (peer_counts.get("dropped") or 0) < 3:
                problems.append(f"the peer dropped {peer_counts.get('dropped')} packets: too few to tell")
            if run["status"]["nacks_sent"] == 0 or not peer_counts.get("nacks"):
                problems.append("no NACK sent or received")
            if need_pli and (run["status"]["plis_sent"] == 0 or not (peer_counts.get("plis") or peer_counts.get("firs"))):
                problems.append("no PLI sent or received")
        if run["deleted"] != 200:
            problems.append(f"DELETE answered {run['deleted']}")
        self.record(name, not problems, figures, "; ".join(problems))

    def check_audio_stops(self, name):
        """The sound stops 3 s in, the video goes on: the muxer must not stall the video, and
        how late it lets pictures through without sound is measured (after against before)."""
        run = self.play(name, ["--stop-audio-after", "3"], seconds=9)
        decoded = pictures(run["path"], run["marks"])
        events = run["peer"].events()
        stopped = next((e["t"] for e in events if e["event"] == "stopped" and e.get("kind") == "audio"), None)
        figures = {"streams": probe_streams(run["path"]), "status": run["status"], "ended": run["ended"]}
        if stopped is None:
            self.record(name, False, figures, "the peer's sound did not stop")
            return
        before = [(a, c) for a, c in decoded if a and a < stopped - 0.5]
        after = [(a, c) for a, c in decoded if a and a > stopped + 0.5]
        figures["before"] = picture_figures(before, run["answered"])
        figures["after"] = picture_figures(after, run["answered"])
        rate = figures["after"].get("distinct_per_second", 0)
        gap = figures["after"].get("longest_gap_ms", {}).get("arrival", 1e9)
        passed = rate >= 29 and gap <= 500 and not run["ended"]
        self.record(name, passed, figures, "" if passed else "the video slowed or stalled once the sound stopped")

    def check_status(self, name):
        peer = Peer(self.folder, "--status", "503")
        session = None
        try:
            session = Session(self.library, self.args.latency)
            offer = session.offer()
            try:
                post(peer.url, offer)
                self.record(name, False, {}, "the POST succeeded")
                return
            except urllib.error.HTTPError as error:
                code, body = error.code, error.read().decode().strip()
            started = time.time()
            session.close()
            closed_ms = round((time.time() - started) * 1000)
            self.record(name, code == 503, {"http_status": code, "body": body, "close_ms": closed_ms})
        finally:
            if session:
                session.close()
            peer.stop()

    def check_no_ice(self, name):
        run = self.play(name, ["--no-ice"], seconds=15)
        figures = {"bytes": len(run["data"]), "status": run["status"]}
        if run["ended"]:
            figures["ended_after_answer_s"] = round(run["ended"][0] - run["answered"], 2)
            figures["error"] = run["ended"][1]
            passed = "ICE" in run["ended"][1] and not run["data"]
        else:
            figures["zero_reads"] = len(run["zeros"])
            passed = not run["data"]
            figures["outcome"] = "read returned 0 until the caller's 15 s deadline"
        self.record(name, passed, figures, "" if passed else "bytes arrived, or -1 without ICE in its message")

    def check_stop_after(self, name):
        run = self.play(name, ["--stop-after", "3"], seconds=9)
        marks, zeros = run["marks"], run["zeros"]
        last_byte = marks[-1][1] if marks else None
        figures = {"bytes": len(run["data"]), "last_byte_after_answer_s": round(last_byte - run["answered"], 2) if last_byte else None,
                   "ended": run["ended"], "status": run["status"]}
        quiet = (zeros[-1] - last_byte) if zeros and last_byte and zeros[-1] > last_byte else 0
        figures["quiet_reads_s"] = round(quiet, 2)
        passed = bool(marks) and (quiet >= 2 or (run["ended"] is not None and "end of stream" in run["ended"][1]))
        if run["ended"] and "end of stream" not in run["ended"][1]:
            passed = False
        self.record(name, passed, figures, "" if passed else "no bytes, or no quiet reads after the stop")

    def check_bad_answer(self, name):
        peer = Peer(self.folder)
        outcomes = {}
        try:
            cases = {
                "not SDP": "hello\r\n",
                "no video": "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n",
                "no ICE credentials or fingerprint": ("v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
                                                      "a=group:BUNDLE video0\r\nm=video 9 UDP/TLS/RTP/SAVPF 102\r\n"
                                                      "c=IN IP4 127.0.0.1\r\na=mid:video0\r\na=sendonly\r\na=rtcp-mux\r\n"
                                                      "a=rtpmap:102 H264/90000\r\n"),
            }
            for case, sdp in cases.items():
                session = Session(self.library, self.args.latency)
                try:
                    session.offer()
                    result, error = session.answer(sdp)
                    outcomes[case] = {"result": result, "error": error}
                    if result == 0:
                        # webrtcbin took it: a read must then fail or time out, never crash.
                        data, _, ended, _, _ = session.read(3)
                        outcomes[case]["read"] = ended[1] if ended else f"{len(data)} bytes"
                finally:
                    session.close()
        finally:
            peer.stop()
        passed = all(o["result"] == -1 and o["error"] for o in outcomes.values())
        self.record(name, passed, outcomes, "" if passed else "an answer was taken")

    def check_interrupt(self, name):
        session = Session(self.library, self.args.latency)
        try:
            session.offer()
            outcome = {}
            buffer = ctypes.create_string_buffer(4096)

            def reader():
                outcome["result"] = session.lib.story_whep_read(session.handle, buffer, len(buffer), 10000)
                outcome["returned"] = time.time()

            thread = threading.Thread(target=reader)
            thread.start()
            time.sleep(0.5)
            interrupted = time.time()
            session.lib.story_whep_interrupt(session.handle)
            thread.join(5)
            delay = round((outcome.get("returned", 1e12) - interrupted) * 1000, 1)
            error = session.lib.story_whep_error(session.handle).decode()
            again = session.lib.story_whep_read(session.handle, buffer, len(buffer), 1000)
            figures = {"result": outcome.get("result"), "returned_after_ms": delay, "error": error, "next_read": again}
            passed = outcome.get("result") == -1 and delay < 100 and error == "interrupted" and again == -1
            self.record(name, passed, figures)
        finally:
            session.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib")
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--latency", type=int, default=200, help="the jitter buffer's latency, ms")
    parser.add_argument("--only", type=lambda v: v.split(","), default=None)
    parser.add_argument("--keep", help="a folder for the built library, the bytes read and the peers' logs")
    parser.add_argument("--json", help="write every result here")
    args = parser.parse_args()
    # GLib's criticals and warnings (a GStreamer object misused) go to file descriptor 2 of this
    # process: kept in a file, and the last check fails if there is one.
    messages = tempfile.TemporaryFile(mode="w+b")
    saved_stderr = os.dup(2)
    os.dup2(messages.fileno(), 2)
    checker = Checker(args)
    h264_opus = [("audio", "opus"), ("video", "h264")]
    checker.run("load", checker.check_load)
    checker.run("play", lambda n: checker.check_media(n, [], 1, 0, h264_opus, 29))
    checker.run("drop", lambda n: checker.check_media(n, ["--drop", "0.02", "--seed", "4"], 1, 0, h264_opus, 27, gap_limit=500,
                                                      need_recovery=True))
    checker.run("drop-pli", lambda n: checker.check_media(n, ["--drop", "0.02", "--seed", "8", "--no-retransmit"], 1, 0, h264_opus, 20,
                                                          gap_limit=1000,
                                                          need_recovery=True, need_pli=True))
    checker.run("first-keyframe-lost", lambda n: checker.check_media(n, ["--drop-first", "3"], 1, 0, h264_opus, 29, gap_limit=500,
                                                                     first_picture_limit=1500))
    checker.run("no-audio", lambda n: checker.check_media(n, ["--no-audio"], 1, 0, [("video", "h264")], 29))
    checker.run("audio-stops", checker.check_audio_stops)
    checker.run("video-only", lambda n: checker.check_media(n, [], 0, 0, [("video", "h264")], 29))
    checker.run("vp8", lambda n: checker.check_media(n, ["--codec", "vp8"], 1, 1, [("video", "vp8")], 29, container="matroska"))
    # Stock peers: aiortc unmodified (ECDSA P-256 certificate, ECDHE-ECDSA suites only, DTLS client).
    checker.run("stock-aiortc", lambda n: checker.check_media(n, [], 1, 0, h264_opus, 29, script="whep_aiortc.py"))
    # GStreamer 1.22's webrtcbin as the sender (RSA 2048 certificate): the DTLS client, then
    # (--setup passive) the DTLS server, so the client's DTLS takes an RSA server certificate.
    checker.run("webrtcbin", lambda n: checker.check_media(n, [], 1, 0, h264_opus, 29, script="whep_webrtcbin.py"))
    checker.run("webrtcbin-passive", lambda n: checker.check_media(n, ["--setup", "passive"], 1, 0, h264_opus, 29,
                                                                   script="whep_webrtcbin.py"))
    checker.run("status-503", checker.check_status)
    checker.run("no-ice", checker.check_no_ice)
    checker.run("stop-after", checker.check_stop_after)
    checker.run("bad-answer", checker.check_bad_answer)
    checker.run("interrupt", checker.check_interrupt)
    os.dup2(saved_stderr, 2)
    messages.seek(0)
    text = messages.read().decode(errors="replace")
    sys.stderr.write(text)
    glib = [line for line in text.splitlines() if "CRITICAL **" in line or "WARNING **" in line or "ERROR **" in line]
    checker.record("glib-messages", not glib, {"count": len(glib), "first": glib[:3]},
                   "" if not glib else "GLib criticals or warnings on stderr")
    if args.json:
        with open(args.json, "w") as output:
            json.dump(checker.results, output, indent=1)
    passed = sum(1 for r in checker.results if r["passed"])
    failed = len(checker.results) - passed
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
