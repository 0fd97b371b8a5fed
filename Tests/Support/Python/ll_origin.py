#!/usr/bin/env python3
"""A low-latency live origin on 127.0.0.1 for the player's live tests and benches: Low-Latency
HLS (RFC 8216bis) cut from ffmpeg's fragmented MP4, or an HTTP ingest and origin for ffmpeg's
low-latency DASH (chunked CMAF, readable while it is written). Standard library only; started
by pid, stopped with SIGTERM or SIGINT (it closes its sockets and exits 0 at once).

  ll_origin.py hls --port P [--part 0.333] [--window 15] [--segment 1.0] [--no-ll]
                   [--log FILE] [--ready FILE]
      Reads a fragmented MP4 byte stream on stdin, as ffmpeg writes it:

        python3 Tests/Support/Python/clock-code.py | ffmpeg -v error -f rawvideo -pix_fmt rgb24 -s 360x640 -r 30 -i - \\
          -f lavfi -i sine=frequency=440:sample_rate=48000 -c:v libx264 -preset veryfast -tune zerolatency \\
          -g 30 -sc_threshold 0 -pix_fmt yuv420p -c:a aac -f mp4 \\
          -movflags empty_moov+default_base_moof+frag_keyframe+delay_moov -frag_duration 333333 pipe:1 \\
        | python3 Tests/Support/Python/ll_origin.py hls --port 8080

      ftyp+moov is the initialization section; each moof+mdat (both tracks: ffmpeg cuts at every
      keyframe and after 10 pictures, 333333 us; -sc_threshold 0 keeps x264 to -g) is one part,
      INDEPENDENT=YES when the video track's first sample in it is a sync sample. Durations are
      the video track's sample durations. Without +delay_moov (the moov then goes out before
      ffmpeg knows the AAC priming) ffmpeg lengthens the first picture by 21.3 ms: the first part
      lasts 0.35468 s, and PART-TARGET, which every part must fit, becomes 0.355 instead of 0.334. A segment starts at an independent part once
      the one before holds --segment seconds (with -g 30: every keyframe, 1 s segments of 3 parts).
      Serves /live.m3u8, /init.mp4, /seg<N>.m4s (a whole segment, once complete) and
      /seg<N>.<K>.m4s (part K of segment N); media sequence numbers start at 0. The playlist
      keeps --window complete segments (older ones stay downloadable as long again) and lists
      parts for the segments within three target durations of the end and for the one in progress.
        /live.m3u8?_HLS_msn=M[&_HLS_part=K]  held until that part (or, without _HLS_part, segment M
                                             whole) is listed: 503 after 3 target durations, 400 at
                                             once past the last segment + 2 or the Advance Part Limit
        /live.m3u8?_HLS_skip=YES|v2          a delta update: segments ending more than CAN-SKIP-UNTIL
                                             before the last one's end become EXT-X-SKIP
        GET of the hinted part, or of any part or segment at most 2 parts ahead, is held until it
        is whole (404 after 3 target durations); further ahead, or never to be, is 404 at once.
      --no-ll serves the same stream as plain HLS (version 7: segments only, query ignored), for
      a player's fallback. At the end of stdin the playlist gets EXT-X-ENDLIST and is served on.

  ll_origin.py dash --port P [--log FILE] [--ready FILE]
      An HTTP ingest for ffmpeg's dash muxer and an origin for players at once:

        python3 Tests/Support/Python/clock-code.py | ffmpeg -v error -f rawvideo -pix_fmt rgb24 -s 360x640 -r 30 -i - \\
          -f lavfi -i sine=frequency=440:sample_rate=48000 -c:v libx264 -preset veryfast -tune zerolatency \\
          -g 30 -sc_threshold 0 -pix_fmt yuv420p -c:a aac -f dash -ldash 1 -streaming 1 -use_template 1 \\
          -use_timeline 0 -seg_duration 1 -frag_type duration -frag_duration 0.2 -target_latency 1 \\
          -min_playback_rate 0.96 -max_playback_rate 1.04 -window_size 10 -extra_window_size 5 \\
          -utc_timing_url http://127.0.0.1:8080/time -method PUT -http_persistent 1 \\
          http://127.0.0.1:8080/live/live.mpd

      PUT or POST stores a file (chunked or Content-Length bodies, persistent connections),
      DELETE removes one. A GET of a file still being uploaded streams it chunked, each piece as
      it arrives, until the upload ends; a finished one is served whole with Content-Length; a
      manifest (.mpd) only as its last complete version. A GET of the segment numbered right
      after the newest one of its series is held until its upload starts (at most 2 segment
      intervals), so a player asking at the segment's start is not turned away; other unknown
      files are 404. /time is the UTC clock for the manifest's UTCTiming (http-xsdate / http-iso).

  --port 0       lets the system choose; the port is printed on stderr and written to --ready
  --log FILE     one JSON line per request: {"t": arrival (unix s), "method", "path", "query",
                 "status", "held_ms": how long it was held (blocking reload, hinted part, a
                 streamed or uploaded body), "bytes": body bytes sent or received}
  --ready FILE   written ({"port", "pid", "url"}) once the playlist lists 2 complete segments
                 (hls) or the manifest and 2 segments of each series are complete (dash)
  --missing RE   a GET or HEAD of a path RE matches (re.search) answers 404 Not Found at once,
                 though the playlist or manifest lists it: an origin or CDN that lost its media
                 (hls: '^/seg' for every part and segment; dash: 'chunk-stream0' for the video's)
"""
import argparse
import gzip
import json
import math
import os
import re
import signal
import socket
import struct
import sys
import threading
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

HOST = "127.0.0.1"


def iso_time(seconds):
    """ISO 8601 UTC with milliseconds, as EXT-X-PROGRAM-DATE-TIME and xs:dateTime want it."""
    moment = datetime.fromtimestamp(seconds, timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


# MARK: - ISO BMFF boxes

def boxes(data, start=0, end=None):
    """(type, payload start, box end) of each whole box in data[start:end]."""
    end = len(data) if end is None else end
    pos = start
    while pos + 8 <= end:
        size, kind = struct.unpack_from(">I4s", data, pos)
        header = 8
        if size == 1:
            if pos + 16 > end:
                return
            size, header = struct.unpack_from(">Q", data, pos + 8)[0], 16
        elif size == 0:
            size = end - pos
        if size < header or pos + size > end:
            return
        yield kind.decode("latin-1"), pos + header, pos + size
        pos += size


def child(data, start, end, kind):
    for name, payload, box_end in boxes(data, start, end):
        if name == kind:
            return payload, box_end
    return None


class Track:
    def __init__(self, track_id):
        self.track_id = track_id
        self.timescale = 1
        self.handler = ""
        self.default_duration = 0
        self.default_flags = 0


def read_movie(data):
    """The tracks of an initialization section (ftyp+moov), by track_ID."""
    tracks = {}
    found = None
    for name, payload, end in boxes(data):
        if name == "moov":
            found = (payload, end)
    if not found:
        raise ValueError("no moov in the initialization section")
    for name, payload, end in boxes(data, *found):
        if name == "trak":
            tkhd = child(data, payload, end, "tkhd")
            version = data[tkhd[0]]
            track = Track(struct.unpack_from(">I", data, tkhd[0] + (20 if version == 1 else 12))[0])
            mdia = child(data, payload, end, "mdia")
            if mdia:
                mdhd = child(data, mdia[0], mdia[1], "mdhd")
                if mdhd:
                    version = data[mdhd[0]]
                    track.timescale = struct.unpack_from(">I", data, mdhd[0] + (20 if version == 1 else 12))[0] or 1
                hdlr = child(data, mdia[0], mdia[1], "hdlr")
                if hdlr:
                    track.handler = data[hdlr[0] + 8:hdlr[0] + 12].decode("latin-1")
            tracks[track.track_id] = track
    mvex = child(data, *found, "mvex")
    if mvex:
        for name, payload, end in boxes(data, *mvex):
            if name == "trex":
                track_id, _, duration, _, flags = struct.unpack_from(">IIIII", data, payload + 4)
                if track_id in tracks:
                    tracks[track_id].default_duration = duration
                    tracks[track_id].default_flags = flags
    return tracks


def read_fragment(data, tracks):
    """{track_ID: (ticks, first sample flags or None)} of one moof: its samples' total duration
    and the flags of its first sample (bit 0x10000 set: not a sync sample)."""
    result = {}
    moof = child(data, 0, len(data), "moof")
    if not moof:
        return result
    for name, payload, end in boxes(data, *moof):
        if name != "traf":
            continue
        tfhd = child(data, payload, end, "tfhd")
        if not tfhd:
            continue
        flags = int.from_bytes(data[tfhd[0] + 1:tfhd[0] + 4], "big")
        track_id = struct.unpack_from(">I", data, tfhd[0] + 4)[0]
        track = tracks.get(track_id) or Track(track_id)
        pos = tfhd[0] + 8
        pos += 8 if flags & 0x1 else 0
        pos += 4 if flags & 0x2 else 0
        default_duration, default_flags = track.default_duration, track.default_flags
        if flags & 0x8:
            default_duration = struct.unpack_from(">I", data, pos)[0]
            pos += 4
        pos += 4 if flags & 0x10 else 0
        if flags & 0x20:
            default_flags = struct.unpack_from(">I", data, pos)[0]
        ticks, first = 0, None
        for kind, run, run_end in boxes(data, payload, end):
            if kind != "trun":
                continue
            run_flags = int.from_bytes(data[run + 1:run + 4], "big")
            count = struct.unpack_from(">I", data, run + 4)[0]
            pos = run + 8 + (4 if run_flags & 0x1 else 0)
            first_flags = None
            if run_flags & 0x4:
                first_flags = struct.unpack_from(">I", data, pos)[0]
                pos += 4
            fields = [bit for bit in (0x100, 0x200, 0x400, 0x800) if run_flags & bit]
            for index in range(count):
                values = dict(zip(fields, struct.unpack_from(">" + "I" * len(fields), data, pos)))
                pos += 4 * len(fields)
                ticks += values.get(0x100, default_duration)
                if first is None:
                    first = first_flags if first_flags is not None else values.get(0x400, default_flags)
        previous = result.get(track_id, (0, None))
        result[track_id] = (previous[0] + ticks, previous[1] if previous[1] is not None else first)
    return result


# MARK: - Low-Latency HLS

class Part:
    def __init__(self, sequence, index, data, duration, independent):
        self.sequence, self.index, self.data = sequence, index, data
        self.duration, self.independent = duration, independent

    @property
    def uri(self):
        return f"seg{self.sequence}.{self.index}.m4s"


class Segment:
    def __init__(self, sequence, started):
        self.sequence = sequence
        self.started = started  # when its first picture was made: EXT-X-PROGRAM-DATE-TIME
        self.parts = []
        self.complete = False
        self.data = b""

    @property
    def duration(self):
        return sum(part.duration for part in self.parts)

    @property
    def uri(self):
        return f"seg{self.sequence}.m4s"


class LiveStream:
    """The parts and segments cut from the publisher's fragmented MP4, and the playlists made
    of them. Every field is guarded by `changed`, which wakes held requests on each new part."""

    def __init__(self, part_target, window, segment_min, low_latency):
        self.changed = threading.Condition()
        self.requested_part = part_target
        self.window = window
        self.segment_min = segment_min
        self.low_latency = low_latency
        self.init = None
        self.tracks = {}
        self.video = None
        self.segments = []  # listed: the last `window` complete ones, then the one in progress
        self.removed = []   # no longer listed but still served, as RFC 8216bis 6.2.2 asks
        self.longest_part = 0.0
        self.target_duration = 1
        self.ended = False
        self.closing = False
        self.served_part_target = None

    # Intake (the stdin thread)

    def take_init(self, data):
        tracks = read_movie(data)
        video = next((t for t in tracks.values() if t.handler == "vide"), None)
        with self.changed:
            self.init, self.tracks, self.video = data, tracks, video
            self.changed.notify_all()

    def take_fragment(self, data, arrived):
        runs = read_fragment(data, self.tracks)
        # Without a picture track (sound only) every sample is a sync sample, so any part will do.
        lead = self.video or next(iter(self.tracks.values()), None)
        if lead and lead.track_id in runs:
            ticks, flags = runs[lead.track_id]
            duration = ticks / lead.timescale
            independent = flags is not None and not flags & 0x10000
        else:
            # Only ffmpeg's last fragment at the end of its input is without pictures (the sound
            # past the last one): it lasts as long as its longest track.
            duration = max((ticks / self.tracks[t].timescale for t, (ticks, _) in runs.items() if t in self.tracks),
                           default=0.0)
            independent = False
        with self.changed:
            current = self.segments[-1] if self.segments and not self.segments[-1].complete else None
            if current is None or (independent and current.duration >= self.segment_min - 0.005):
                if current is not None:
                    self._close(current)
                sequence = self.segments[-1].sequence + 1 if self.segments else 0
                # The program date is when the segment's first picture was made, as a packager
                # stamps it from its capture clock: ffmpeg writes a part once its last picture is
                # in, a part's length after its first (measured: 0.34 s for 0.333 s parts).
                current = Segment(sequence, arrived - duration)
                self.segments.append(current)
                self._trim()
            current.parts.append(Part(current.sequence, len(current.parts), data, duration, independent))
            self.longest_part = max(self.longest_part, duration)
            target = self.part_target
            if self.served_part_target is not None and target > self.served_part_target:
                print(f"ll_origin: a part of {duration:.5f} s is longer than PART-TARGET={self.served_part_target}; "
                      f"now {target}", file=sys.stderr)
            self.changed.notify_all()

    def finish(self):
        with self.changed:
            if self.segments and not self.segments[-1].complete:
                self._close(self.segments[-1])
            self.ended = True
            self.changed.notify_all()

    def _close(self, segment):
        segment.complete = True
        segment.data = b"".join(part.data for part in segment.parts)
        # The rule is the rounded duration (RFC 8216bis 4.4.3.1): a ceiling would turn ffmpeg's
        # final 1.02 s segment, or one a scene-cut keyframe lengthened by a part, into a target
        # duration of 2, and the target duration must not change.
        self.target_duration = max(self.target_duration, int(math.floor(segment.duration + 0.5)))

    def _trim(self):
        complete = [s for s in self.segments if s.complete]
        while len(complete) > self.window:
            dropped = self.segments.pop(0)
            complete.pop(0)
            self.removed.append(dropped)
        del self.removed[:-self.window]

    # State (callers hold `changed`)

    @property
    def part_target(self):
        """--part, or more where a real part is longer: every part must fit (4.4.4.9)."""
        longest = max(self.requested_part, self.longest_part)
        return math.ceil(longest * 1000 - 1e-6) / 1000

    def complete_segments(self):
        return [s for s in self.segments if s.complete]

    def in_progress(self):
        return self.segments[-1] if self.segments and not self.segments[-1].complete else None

    def last_position(self):
        """(segment, part) of the newest part, or None before the first."""
        if not self.segments:
            return None
        last = self.segments[-1]
        return last.sequence, len(last.parts) - 1

    def find_segment(self, sequence):
        for segment in self.segments + self.removed:
            if segment.sequence == sequence:
                return segment
        return None

    def next_positions(self):
        """The next two parts to come, as well as they can be told now: after a segment that
        is long enough, the next part starts a new segment (it will, at a keyframe)."""
        position = self.last_position()
        if position is None:
            return [(0, 0), (0, 1)]
        sequence, index = position
        current = self.segments[-1]
        if current.duration >= self.segment_min - 0.005:
            return [(sequence + 1, 0), (sequence + 1, 1)]
        first = (sequence, index + 1)
        parts_left = self.segment_min - current.duration - current.parts[-1].duration
        second = (sequence, index + 2) if parts_left > 0.005 else (sequence + 1, 0)
        return [first, second]

    def part_state(self, sequence, index):
        """'ready' (with the data), 'soon' (within the next two parts), or 'never'."""
        segment = self.find_segment(sequence)
        if segment is not None:
            if index < len(segment.parts):
                return "ready", segment.parts[index].data
            if segment.complete:
                return "never", None
        if self.ended or self.closing:
            return "never", None
        return ("soon", None) if (sequence, index) in self.next_positions() else ("never", None)

    def segment_state(self, sequence):
        segment = self.find_segment(sequence)
        if segment is not None and segment.complete:
            return "ready", segment.data
        if self.ended or self.closing:
            return "never", None
        current = self.in_progress()
        if segment is not None and segment is current:
            return "soon", None
        if current is None and not self.segments and sequence == 0:
            return "soon", None
        return "never", None

    def reached(self, msn, part):
        """Whether the playlist holds what a blocking reload waits for (6.2.5.2): part `part` of
        segment `msn` or later (a part index past the segment's last means the next segment's
        first), or without `part`, segment `msn` complete."""
        if part is None:
            complete = self.complete_segments()
            return bool(complete) and complete[-1].sequence >= msn
        position = self.last_position()
        if position is None:
            return False
        return position[0] > msn or (position[0] == msn and position[1] >= part)

    def too_far(self, msn, part):
        """A reload asking for more than the server should wait for: 400 at once (6.2.5.2)."""
        position = self.last_position()
        last_msn = position[0] if position else -1
        if msn > last_msn + 2:
            return True
        if part is None or position is None:
            return False
        limit = 3 / self.part_target if self.part_target < 1 else 3
        per_segment = max(1, round(self.segment_min / self.part_target))
        ahead = (msn - position[0]) * per_segment + part - position[1]
        return ahead > limit

    # Playlists (callers hold `changed`)

    def playlist(self, skip=None):
        if not self.low_latency:
            return self._plain_playlist()
        target = self.part_target
        self.served_part_target = target
        listed = self.segments
        complete = self.complete_segments()
        lines = ["#EXTM3U", "#EXT-X-VERSION:9", f"#EXT-X-TARGETDURATION:{self.target_duration}",
                 f"#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK={3 * target:.3f},"
                 f"CAN-SKIP-UNTIL={6 * self.target_duration:.1f}",
                 f"#EXT-X-PART-INF:PART-TARGET={target:.3f}",
                 f"#EXT-X-MEDIA-SEQUENCE:{listed[0].sequence if listed else 0}"]
        skipped = 0
        if skip and not self.ended and complete:
            # 6.2.5.1: replaced are the segments further from the end of the last (parent)
            # segment than the Skip Boundary: those that end before it.
            boundary = 6 * self.target_duration
            end = sum(s.duration for s in complete)
            elapsed = 0.0
            for segment in complete:
                elapsed += segment.duration
                if end - elapsed >= boundary - 1e-6:
                    skipped += 1
                else:
                    break
        if skipped:
            attributes = f"SKIPPED-SEGMENTS={skipped}"
            if skip == "v2":
                attributes += ',RECENTLY-REMOVED-DATERANGES=""'
            lines.append(f"#EXT-X-SKIP:{attributes}")
        # EXT-X-MAP applies to the segments left after the skip as well, so it stays (6.2.5.1:
        # every tag that was not skipped remains), and it is where a client looks for it.
        lines.append('#EXT-X-MAP:URI="init.mp4"')
        total = sum(s.duration for s in listed)
        # Parts are listed for segments ending within three target durations of the end of the
        # playlist (6.2.2 asks them gone after that), and for the segment in progress.
        elapsed = 0.0
        for number, segment in enumerate(listed):
            elapsed += segment.duration
            if number < skipped:
                continue
            lines.append(f"#EXT-X-PROGRAM-DATE-TIME:{iso_time(segment.started)}")
            if not segment.complete or total - elapsed <= 3 * self.target_duration + 1e-6:
                for part in segment.parts:
                    lines.append(f'#EXT-X-PART:DURATION={part.duration:.5f},URI="{part.uri}"'
                                 + (",INDEPENDENT=YES" if part.independent else ""))
            if segment.complete:
                lines.append(f"#EXTINF:{segment.duration:.5f},")
                lines.append(segment.uri)
        if self.ended:
            lines.append("#EXT-X-ENDLIST")
        elif listed:
            lines.append(f'#EXT-X-PRELOAD-HINT:TYPE=PART,URI="seg{self.next_positions()[0][0]}.'
                         f'{self.next_positions()[0][1]}.m4s"')
        return "\n".join(lines) + "\n"

    def _plain_playlist(self):
        complete = self.complete_segments()
        lines = ["#EXTM3U", "#EXT-X-VERSION:7", f"#EXT-X-TARGETDURATION:{self.target_duration}",
                 f"#EXT-X-MEDIA-SEQUENCE:{complete[0].sequence if complete else 0}", '#EXT-X-MAP:URI="init.mp4"']
        for segment in complete:
            lines += [f"#EXT-X-PROGRAM-DATE-TIME:{iso_time(segment.started)}",
                      f"#EXTINF:{segment.duration:.5f},", segment.uri]
        if self.ended:
            lines.append("#EXT-X-ENDLIST")
        return "\n".join(lines) + "\n"


def read_stdin(stream, ready):
    """Cuts stdin into top-level boxes as they arrive: ftyp+moov is the initialization section,
    each moof with its mdat one part (boxes between, such as styp or prft, go with the next part).
    A part's arrival is that of its first byte, which may have come with an earlier read."""
    # os.read on the descriptor rather than sys.stdin.buffer: a read blocked in the buffered
    # reader holds its lock, and the interpreter aborts (SIGABRT) taking it at exit.
    source = sys.stdin.fileno()
    buffer = bytearray()
    consumed = 0      # stream offset of buffer[0]
    reads = []        # (stream offset just past a read, when it came), for reads not yet consumed
    header = bytearray()
    pending = bytearray()
    pending_at = None

    def arrival(offset):
        return next(when for end, when in reads if end > offset)

    while True:
        try:
            data = os.read(source, 1 << 16)
        except OSError:
            data = b""
        if not data:
            break
        buffer += data
        reads.append((consumed + len(buffer), time.time()))
        while True:
            whole = next(boxes(buffer), None)
            if whole is None:
                break
            kind, _, end = whole
            box, at = bytes(buffer[:end]), arrival(consumed)
            del buffer[:end]
            consumed += end
            reads = [(stop, when) for stop, when in reads if stop > consumed] or reads[-1:]
            if stream.init is None and kind in ("ftyp", "moov", "free", "uuid"):
                header += box
                if kind == "moov":
                    stream.take_init(bytes(header))
            elif kind == "mdat" and pending:
                stream.take_fragment(bytes(pending + box), pending_at)
                pending.clear()
            elif kind != "mfra":
                pending_at = at if not pending else pending_at
                pending += box
        if stream.init is not None:
            ready.check()
    stream.finish()
    ready.check()


# MARK: - DASH ingest

class Upload:
    def __init__(self, path):
        self.path = path
        self.data = bytearray()
        self.complete = False
        self.aborted = False
        self.started = time.time()


class IngestStore:
    """Files ffmpeg uploads, by path; `changed` wakes readers of an upload in progress on each
    piece and at its end."""

    def __init__(self):
        self.changed = threading.Condition()
        self.files = {}
        self.manifests = {}  # path: the last complete version's bytes
        self.closing = False
        self.limit = 4000

    def start(self, path):
        upload = Upload(path)
        with self.changed:
            self.files[path] = upload
            if len(self.files) > self.limit:
                # ffmpeg DELETEs what leaves its window; this only bounds a publisher that does not.
                for old in [p for p, f in self.files.items() if f.complete][:len(self.files) - self.limit]:
                    del self.files[old]
            self.changed.notify_all()
        return upload

    def append(self, upload, data):
        with self.changed:
            upload.data += data
            self.changed.notify_all()

    def end(self, upload):
        with self.changed:
            upload.complete = True
            if upload.path.endswith(".mpd") and self.files.get(upload.path) is upload:
                self.manifests[upload.path] = bytes(upload.data)
            self.changed.notify_all()

    def delete(self, path):
        with self.changed:
            found = self.files.pop(path, None) is not None
            self.manifests.pop(path, None)
            self.changed.notify_all()
            return found

    @staticmethod
    def series(path):
        """(prefix, number, suffix) of a numbered media segment's path, or None."""
        match = re.match(r"^(.*?)(\d+)(\.[A-Za-z0-9]+)$", path)
        if not match or path.endswith(".mpd") or "init" in path.rsplit("/", 1)[-1]:
            return None
        return match.group(1), int(match.group(2)), match.group(3)

    def next_in_series(self, path):
        """How long a GET of `path` may wait for its upload to start: the segment right after
        the newest of its series (at most two segment intervals), else 0."""
        key = self.series(path)
        if key is None:
            return 0
        prefix, number, suffix = key
        starts = {}
        for other, upload in self.files.items():
            found = self.series(other)
            if found and found[0] == prefix and found[2] == suffix:
                starts[found[1]] = upload.started
        if number - 1 not in starts or max(starts) != number - 1:
            return 0
        interval = starts[number - 1] - starts[number - 2] if number - 2 in starts else 1.0
        return min(max(2 * interval, 0.5), 10.0)

    def ready(self):
        if not self.manifests:
            return False
        counts = {}
        for path, upload in self.files.items():
            key = self.series(path)
            if key:
                counts.setdefault((key[0], key[2]), 0)
                counts[(key[0], key[2])] += 1 if upload.complete else 0
        return bool(counts) and all(count >= 2 for count in counts.values())


# MARK: - HTTP

class ReadyFile:
    def __init__(self, path, condition):
        self.path, self.condition, self.done, self.port = path, condition, False, None
        self.lock = threading.Lock()

    def check(self):
        if not self.path or self.done or not self.condition():
            return
        with self.lock:
            if self.done:
                return
            self.done = True
            temporary = self.path + ".tmp"
            with open(temporary, "w") as out:
                json.dump({"port": self.port, "pid": os.getpid(), "url": f"http://{HOST}:{self.port}/"}, out)
                out.write("\n")
            os.replace(temporary, self.path)


class RequestLog:
    def __init__(self, path):
        self.out = open(path, "a", buffering=1) if path else None
        self.lock = threading.Lock()

    def write(self, **entry):
        if self.out:
            with self.lock:
                self.out.write(json.dumps(entry) + "\n")

    def close(self):
        if self.out:
            self.out.close()


class Origin(ThreadingHTTPServer):
    daemon_threads = True
    # Held requests (blocking reloads, hinted parts, streamed segments) each keep a thread, and
    # a player keeps a few keep-alive connections: more than the default backlog of 5 at start.
    request_queue_size = 64

    def __init__(self, address, handler, mode, stream, store, log, ready):
        super().__init__(address, handler)
        self.mode, self.stream, self.store, self.log, self.ready = mode, stream, store, log, ready
        self.missing = None
        self.connections = set()
        self.connections_lock = threading.Lock()

    def close_connections(self):
        """Ends the keep-alive and held connections as well, so nothing waits on a dead origin."""
        with self.connections_lock:
            connections = list(self.connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "ll_origin/1"
    # Small responses go out at once rather than after the peer's delayed ACK.
    disable_nagle_algorithm = True

    def setup(self):
        super().setup()
        with self.server.connections_lock:
            self.server.connections.add(self.connection)

    def finish(self):
        with self.server.connections_lock:
            self.server.connections.discard(self.connection)
        try:
            super().finish()
        except OSError:
            pass

    def log_message(self, format, *args):
        pass

    def handle_one_request(self):
        self.began = self.recorded = False
        try:
            super().handle_one_request()
        except OSError:
            # The peer went away mid-request (a player giving up on a held one, ffmpeg closing
            # right after its DELETE): logged all the same, with the status that went out.
            self.close_connection = True
            if self.began and not self.recorded:
                self.record(getattr(self, "status", 0))

    # Shared

    def begin(self):
        self.began = True
        self.arrived = time.time()
        self.held = 0.0
        self.body_bytes = 0
        split = urlsplit(self.path)
        self.route, self.query_text = split.path, split.query
        self.query = parse_qs(split.query, keep_blank_values=True)

    def send_response(self, code, message=None):
        self.status = code
        super().send_response(code, message)

    def record(self, status):
        self.recorded = True
        self.server.log.write(t=round(self.arrived, 3), method=self.command, path=self.route, query=self.query_text,
                              status=status, held_ms=round(self.held * 1000, 1), bytes=self.body_bytes)

    def reply(self, status, body=b"", content_type="text/plain; charset=utf-8", cache="no-store", headers=()):
        head = self.command == "HEAD"
        compress = (len(body) > 256 and content_type.startswith(("application/vnd.apple", "application/dash"))
                    and "gzip" in self.headers.get("Accept-Encoding", ""))
        if compress:
            # Playlists go gzipped to clients that take it (RFC 8216bis 6.2.1, appendix B).
            body = gzip.compress(body, compresslevel=5, mtime=0)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", cache)
        if compress:
            self.send_header("Content-Encoding", "gzip")
        if content_type.startswith(("application/vnd.apple", "application/dash")):
            self.send_header("Vary", "Accept-Encoding")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if body and not head:
            self.wfile.write(body)
            self.body_bytes = len(body)
        self.record(status)

    def reply_error(self, status, message):
        self.reply(status, (message + "\n").encode())

    def reply_media(self, data, cache, content_type="video/mp4"):
        """A whole resource, honouring a single byte range (ffmpeg asks `bytes=0-` by default)."""
        ranged = self.headers.get("Range", "")
        match = re.fullmatch(r"bytes=(\d*)-(\d*)", ranged.strip())
        if match and (match.group(1) or match.group(2)):
            size = len(data)
            if match.group(1):
                first = int(match.group(1))
                last = min(int(match.group(2)), size - 1) if match.group(2) else size - 1
            else:
                first, last = max(0, size - int(match.group(2))), size - 1
            if first >= size or last < first:
                return self.reply(416, b"", headers=[("Content-Range", f"bytes */{size}")])
            return self.reply(206, data[first:last + 1], content_type, cache,
                              headers=[("Content-Range", f"bytes {first}-{last}/{size}"), ("Accept-Ranges", "bytes")])
        self.reply(200, data, content_type, cache, headers=[("Accept-Ranges", "bytes")])

    def do_GET(self):
        self.begin()
        if self.server.missing and self.server.missing.search(self.route):
            return self.reply_error(404, "missing (--missing)")
        if self.server.mode == "hls":
            self.hls_get()
        else:
            self.dash_get()

    do_HEAD = do_GET

    def do_PUT(self):
        self.begin()
        if self.server.mode != "dash":
            self.discard_body()
            return self.reply_error(405, "this origin takes no uploads in hls mode")
        self.dash_put()

    do_POST = do_PUT

    def do_DELETE(self):
        self.begin()
        self.discard_body()
        if self.server.mode != "dash":
            return self.reply_error(405, "this origin takes no uploads in hls mode")
        found = self.server.store.delete(self.route)
        self.reply(204 if found else 404, b"")

    def body_pieces(self):
        """The request body as it arrives: chunked, or by Content-Length."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            while True:
                line = self.rfile.readline(1024)
                if not line:
                    raise ConnectionError("body ended early")
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    return
                left = size
                while left:
                    piece = self.rfile.read1(min(left, 1 << 16))
                    if not piece:
                        raise ConnectionError("body ended early")
                    left -= len(piece)
                    yield piece
                self.rfile.readline(1024)
        else:
            left = int(self.headers.get("Content-Length") or 0)
            while left > 0:
                piece = self.rfile.read1(min(left, 1 << 16))
                if not piece:
                    raise ConnectionError("body ended early")
                left -= len(piece)
                yield piece

    def discard_body(self):
        for _ in self.body_pieces():
            pass

    # HLS

    def hls_get(self):
        stream = self.server.stream
        route = self.route
        target = stream.target_duration
        if route in ("/live.m3u8", "/index.m3u8"):
            return self.hls_playlist()
        if route == "/init.mp4":
            with stream.changed:
                # Asked for before the publisher's first fragment: held like a hinted part.
                stream.changed.wait_for(lambda: stream.init is not None or stream.closing or stream.ended, 3 * target)
                data = stream.init
            self.held = time.time() - self.arrived
            if data is None:
                return self.reply_error(404, "no initialization section yet")
            return self.reply_media(data, f"public, max-age={6 * target}")
        match = re.fullmatch(r"/seg(\d+)(?:\.(\d+))?\.m4s", route)
        if not match:
            return self.reply_error(404, "not found")
        sequence = int(match.group(1))
        index = int(match.group(2)) if match.group(2) is not None else None

        def state():
            return stream.part_state(sequence, index) if index is not None else stream.segment_state(sequence)

        deadline = self.arrived + 3 * target
        with stream.changed:
            found, data = state()
            # 6.2.6: a hinted part is held until all of it can go at the link's full speed.
            while found == "soon":
                left = deadline - time.time()
                if left <= 0:
                    break
                stream.changed.wait(left)
                found, data = state()
        self.held = time.time() - self.arrived
        if found != "ready":
            return self.reply_error(404, "no such part or segment" if found == "never" else "not written in time")
        self.reply_media(data, f"public, max-age={6 * target}")

    def hls_playlist(self):
        stream = self.server.stream
        query = self.query

        def number(name):
            values = query.get(name)
            if not values:
                return None
            if not re.fullmatch(r"\d+", values[0]):
                raise ValueError(name)
            return int(values[0])

        playlist_type = "application/vnd.apple.mpegurl"
        if not stream.low_latency:
            with stream.changed:
                empty = not stream.complete_segments()
                text = stream.playlist()
            if empty and not stream.ended:
                return self.reply_error(404, "no segment yet")
            return self.reply(200, text.encode(), playlist_type, "no-cache")
        try:
            msn, part = number("_HLS_msn"), number("_HLS_part")
        except ValueError as bad:
            return self.reply_error(400, f"{bad} is not a decimal-integer")
        skip = (query.get("_HLS_skip") or [None])[0]
        skip = skip if skip in ("YES", "v2") else None
        if part is not None and msn is None:
            return self.reply_error(400, "_HLS_part without _HLS_msn")
        with stream.changed:
            target = stream.target_duration
            blocking = msn is not None and not stream.ended
            too_far = blocking and stream.too_far(msn, part)
            if blocking and not too_far:
                deadline = self.arrived + 3 * target
                while not stream.reached(msn, part) and not stream.ended and not stream.closing:
                    left = deadline - time.time()
                    if left <= 0:
                        break
                    stream.changed.wait(left)
                reached = stream.reached(msn, part) or stream.ended
            else:
                reached = bool(stream.segments) or stream.ended
            text = stream.playlist(skip) if reached and not too_far else None
        if too_far:
            return self.reply_error(400, "_HLS_msn/_HLS_part too far ahead of the playlist")
        self.held = time.time() - self.arrived if blocking else 0.0
        if text is None:
            if blocking:
                return self.reply_error(503, "the playlist did not reach that part in 3 target durations")
            return self.reply_error(404, "no part yet")
        # Appendix B.1: a blocking response can be cached for six target durations, since its
        # URL names what it holds; the plain playlist changes every part.
        cache = f"public, max-age={6 * target}" if blocking else "no-cache"
        self.reply(200, text.encode(), playlist_type, cache)

    # DASH

    def dash_get(self):
        store = self.server.store
        route = self.route
        if route == "/time":
            return self.reply(200, iso_time(time.time()).encode(), "text/plain; charset=utf-8", "no-store")
        if route.endswith(".mpd"):
            with store.changed:
                manifest = store.manifests.get(route)
            if manifest is None:
                return self.reply_error(404, "no complete manifest yet")
            return self.reply(200, manifest, "application/dash+xml", "no-cache")
        with store.changed:
            upload = store.files.get(route)
            if upload is None:
                wait = store.next_in_series(route)
                if wait:
                    store.changed.wait_for(lambda: route in store.files or store.closing, wait)
                    upload = store.files.get(route)
        if upload is None:
            self.held = time.time() - self.arrived
            return self.reply_error(404, "not found")
        content_type = "audio/mp4" if "audio" in route else "video/mp4"
        if upload.complete:
            self.held = time.time() - self.arrived
            return self.reply_media(bytes(upload.data), "public, max-age=60", content_type)
        self.stream_upload(upload, content_type)

    def stream_upload(self, upload, content_type):
        """An upload in progress, as it arrives: each new piece one HTTP chunk (chunked CMAF)."""
        store = self.server.store
        # An HTTP/1.0 reader cannot take chunks: it gets the bytes as they come and the end of
        # the connection as the end of the file.
        chunked = self.request_version != "HTTP/1.0"
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-cache")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.close_connection = True
        self.end_headers()
        if self.command == "HEAD":
            return self.record(200)
        sent = 0
        try:
            while True:
                with store.changed:
                    store.changed.wait_for(lambda: len(upload.data) > sent or upload.complete or store.closing)
                    piece = bytes(upload.data[sent:])
                    done = upload.complete or store.closing
                if piece:
                    self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n" if chunked else piece)
                    self.wfile.flush()
                    sent += len(piece)
                if done and sent >= len(upload.data):
                    break
            if upload.aborted or store.closing and not upload.complete:
                # No last chunk: the reader must see a cut-off file as cut off, not as whole.
                self.close_connection = True
            elif chunked:
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
        finally:
            self.held = time.time() - self.arrived
            self.body_bytes = sent
            self.record(200)

    def dash_put(self):
        store = self.server.store
        route = self.route
        if route == "/time":
            self.discard_body()
            return self.reply_error(405, "/time is the clock")
        existed = route in store.files
        upload = store.start(route)
        try:
            for piece in self.body_pieces():
                store.append(upload, piece)
                if len(upload.data) > 256 << 20:
                    raise ConnectionError("upload too large")
        except (ConnectionError, ValueError, OSError):
            # An upload cut off is dropped rather than served short as if whole.
            with store.changed:
                if store.files.get(route) is upload:
                    del store.files[route]
                upload.aborted = upload.complete = True
                store.changed.notify_all()
            self.close_connection = True
            self.held = time.time() - self.arrived
            self.body_bytes = len(upload.data)
            return self.record(400)
        store.end(upload)
        self.held = time.time() - self.arrived
        status = 204 if existed else 201
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()
        self.body_bytes = len(upload.data)
        self.record(status)
        self.server.ready.check()


# MARK: - Main

def main():
    parser = argparse.ArgumentParser(description="Low-latency HLS / DASH test origin on 127.0.0.1")
    modes = parser.add_subparsers(dest="mode", required=True)
    hls = modes.add_parser("hls", help="LL-HLS from a fragmented MP4 on stdin")
    dash = modes.add_parser("dash", help="HTTP ingest and origin for ffmpeg's low-latency DASH")
    for sub in (hls, dash):
        sub.add_argument("--port", type=int, required=True)
        sub.add_argument("--log", help="a JSON line per request")
        sub.add_argument("--ready", help="written once there is something to play")
        sub.add_argument("--missing", type=re.compile, help="paths (regex) that answer 404 though listed")
    hls.add_argument("--part", type=float, default=0.333, help="part target, seconds (raised to fit every part)")
    hls.add_argument("--window", type=int, default=15, help="complete segments listed")
    hls.add_argument("--segment", type=float, default=1.0, help="least segment duration, seconds")
    hls.add_argument("--no-ll", action="store_true", help="plain HLS: segments only")
    args = parser.parse_args()
    if args.mode == "hls" and args.window < 3:
        parser.error("--window must be at least 3: a live playlist may not be shorter than 3 target durations")

    stream = store = None
    if args.mode == "hls":
        stream = LiveStream(args.part, args.window, args.segment, not args.no_ll)
        ready = ReadyFile(args.ready, lambda: len(stream.complete_segments()) >= 2 or stream.ended)
    else:
        store = IngestStore()
        ready = ReadyFile(args.ready, store.ready)
    log = RequestLog(args.log)
    try:
        server = Origin((HOST, args.port), Handler, args.mode, stream, store, log, ready)
    except OSError as error:
        print(f"ll_origin: cannot listen on {HOST}:{args.port}: {error}", file=sys.stderr)
        sys.exit(2)
    server.missing = args.missing
    ready.port = server.server_address[1]
    print(f"ll_origin: {args.mode} on http://{HOST}:{ready.port}/", file=sys.stderr, flush=True)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    serving = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    serving.start()
    if stream is not None:
        threading.Thread(target=read_stdin, args=(stream, ready), daemon=True).start()
    while not stop.wait(0.2):
        pass
    # Held requests are woken to answer (503 / 404) before the sockets go.
    for state in (stream, store):
        if state is not None:
            with state.changed:
                state.closing = True
                state.changed.notify_all()
    server.shutdown()
    server.server_close()
    server.close_connections()
    log.close()
    sys.stderr.flush()
    # Handler threads may still be between a woken wait and their socket; they hold nothing
    # that needs finishing, and the interpreter's own teardown would only wait on them.
    os._exit(0)


if __name__ == "__main__":
    main()
