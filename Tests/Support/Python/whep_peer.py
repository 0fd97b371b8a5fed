#!/usr/bin/env python3
"""A WHEP server on 127.0.0.1 that plays a clock-coded picture with sound, for WebRTC tests.

POST /whep with an SDP offer (Content-Type application/sdp) answers 201 with the SDP answer,
every ICE candidate in it (no trickle), and `Location: /whep/<id>`; DELETE /whep/<id> answers
200 and closes that peer. Each peer sends, with aiortc:
  video  H.264 (aiortc's libx264 encoder, from the PyAV wheel; Constrained Baseline) or VP8
         (--codec: the offer's other video codecs are ignored), 30 fps: each picture a 360x640
         clock-coded picture (clock-code.py's code: number and wall-clock ms, drawn with its
         own functions) made when it is sent, so a receiver reads how old each picture is
  sound  a 440 Hz sine as Opus, 20 ms frames
aiortc's DTLS is its own (ECDSA P-256 certificate, ECDHE-ECDSA suites only): the client's
certificate is ECDSA (Sources/CStoryWHEP/story_whep_certificate.h). ICE stays on loopback:
host candidates are 127.0.0.1 only, no STUN or TURN server, and the offer's candidates other
than 127.0.0.0/8 UDP ones are dropped before aiortc sees them, so no packet goes to any other
address (aioice would otherwise check them, and resolve mDNS names).

  whep_peer.py --port P [--no-audio] [--drop 0.02 [--seed N]] [--drop-first N] [--codec h264|vp8]
               [--status 503] [--no-ice] [--stop-after S] [--stop-audio-after S] [--no-retransmit]
               [--ready FILE] [--log FILE]
    --drop F        drops that fraction of the outgoing video RTP packets (retransmissions too)
                    at random, in the sending path, so NACK and PLI recovery can be tested
    --seed N        seeds --drop's choice: a run drops the same packets (by their order) each time
    --drop-first N  drops the first N video RTP packets (the first keyframe: the client must ask
                    for another, since a jitter buffer sees no gap before the first packet)
    --status N      answers every POST with HTTP status N (and no SDP)
    --no-ice        the answer's candidates point at 127.0.0.1:9, where nothing answers, and the
                    offer's candidates are ignored: ICE never connects
    --stop-after S  stops sending media (both tracks end, RTCP goes on) S s after the peer
                    connects; the HTTP server stays up
    --stop-audio-after S  the same for the sound alone: the video goes on
    --no-retransmit NACKs are logged but not answered: only a keyframe (after a PLI) repairs a loss
    --ready FILE    written ("ready <port>") once the server listens
    --log FILE      JSON lines: listening, post, answer, state, connected, nack (the sequence
                    numbers asked for), pli, fir, drop (one a packet), stopped, delete, summary
SIGTERM or SIGINT closes every peer and exits 0.

Install: pip install aiortc==1.16.0 (brings av 18.1.0, whose wheel has libx264, libvpx and libopus,
and aioice 0.13.0; Python 3.11).
"""
import argparse
import asyncio
import fractions
import importlib.util
import json
import math
import os
import random
import signal
import sys
import time
import uuid

import numpy
import aioice.ice
from av import AudioFrame, VideoFrame
from aiortc import RTCConfiguration, RTCPeerConnection, RTCRtpSender, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack
from aiortc.rtcdtlstransport import RTCDtlsTransport
from aiortc.rtp import RtcpPsfbPacket, RtcpRtpfbPacket

# Loopback only: aioice leaves 127.0.0.1 out of its host addresses; here it is the only one.
aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]

_spec = importlib.util.spec_from_file_location("clock_code", os.path.join(os.path.dirname(os.path.abspath(__file__)), "clock-code.py"))
clock_code = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(clock_code)

FPS = 30
VIDEO_CLOCK = 90000
AUDIO_RATE = 48000
AUDIO_SAMPLES = 960  # 20 ms

LOG = None
COUNTS = {"posts": 0, "nacks": 0, "nacked_packets": 0, "plis": 0, "firs": 0, "dropped": 0, "video_packets": 0}


def log(event, **fields):
    if LOG is None:
        return
    LOG.write(json.dumps({"t": round(time.time(), 3), "event": event, **fields}) + "\n")
    LOG.flush()


def clock_picture(number, millis):
    """clock-code.py's picture: grey, with the 8 x 7 squares of the code, black or white."""
    frame = numpy.full((clock_code.HEIGHT, clock_code.WIDTH, 3), 96, dtype=numpy.uint8)
    block = clock_code.BLOCK
    for i, bit in enumerate(clock_code.code_bits(number, millis)):
        row, column = divmod(i, clock_code.COLUMNS)
        x = clock_code.LEFT + column * block
        y = clock_code.TOP + row * block
        frame[y:y + block, x:x + block] = 255 if bit else 0
    return frame


class Stopper:
    """Ends both tracks `stop_after` seconds after the peer connects (never when None)."""

    def __init__(self, stop_after):
        self.stop_after = stop_after
        self.stop_at = None

    def connected(self):
        if self.stop_after is not None and self.stop_at is None:
            self.stop_at = time.time() + self.stop_after

    def stopped(self):
        return self.stop_at is not None and time.time() >= self.stop_at


class ClockTrack(MediaStreamTrack):
    """Clock-coded pictures at 30 fps, each made (and stamped) when it is due."""
    kind = "video"

    def __init__(self, stopper):
        super().__init__()
        self.stopper = stopper
        self.start = None
        self.number = 0

    async def recv(self):
        if self.readyState != "live":
            raise MediaStreamError
        if self.start is None:
            self.start = time.time()
        due = self.start + self.number / FPS
        delay = due - time.time()
        if delay > 0:
            await asyncio.sleep(delay)
        if self.stopper.stopped():
            log("stopped", kind="video", pictures=self.number)
            self.stop()
            raise MediaStreamError
        frame = VideoFrame.from_ndarray(clock_picture(self.number, int(time.time() * 1000)), format="rgb24")
        frame.pts = self.number * (VIDEO_CLOCK // FPS)
        frame.time_base = fractions.Fraction(1, VIDEO_CLOCK)
        self.number += 1
        return frame


class SineTrack(MediaStreamTrack):
    """A 440 Hz sine, 20 ms a frame, mono s16 at 48 kHz."""
    kind = "audio"

    def __init__(self, stopper):
        super().__init__()
        self.stopper = stopper
        self.start = None
        self.samples = 0

    async def recv(self):
        if self.readyState != "live":
            raise MediaStreamError
        if self.start is None:
            self.start = time.time()
        due = self.start + self.samples / AUDIO_RATE
        delay = due - time.time()
        if delay > 0:
            await asyncio.sleep(delay)
        if self.stopper.stopped():
            log("stopped", kind="audio")
            self.stop()
            raise MediaStreamError
        t = (numpy.arange(AUDIO_SAMPLES) + self.samples) / AUDIO_RATE
        wave = (numpy.sin(2 * math.pi * 440 * t) * 8000).astype(numpy.int16)
        frame = AudioFrame.from_ndarray(wave.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = AUDIO_RATE
        frame.pts = self.samples
        frame.time_base = fractions.Fraction(1, AUDIO_RATE)
        self.samples += AUDIO_SAMPLES
        return frame


# The payload types of video packets, from the answers (RTP packets with one of these are
# dropped at random with --drop; RTCP shares the transport and is never dropped).
VIDEO_PTS = set()
DROP = 0.0
_send_rtp = RTCDtlsTransport._send_rtp


DROP_FIRST = 0
CHANCE = random.Random()


async def _send_rtp_dropping(self, data):
    if len(data) >= 12 and not (192 <= data[1] <= 223) and (data[1] & 0x7F) in VIDEO_PTS:
        COUNTS["video_packets"] += 1
        if COUNTS["video_packets"] <= DROP_FIRST or (DROP > 0 and CHANCE.random() < DROP):
            COUNTS["dropped"] += 1
            log("drop", pt=data[1] & 0x7F, seq=int.from_bytes(data[2:4], "big"))
            return
    await _send_rtp(self, data)

RTCDtlsTransport._send_rtp = _send_rtp_dropping

_handle_rtcp = RTCRtpSender._handle_rtcp_packet


async def _handle_rtcp_logging(self, packet):
    if isinstance(packet, RtcpRtpfbPacket) and packet.fmt == 1:
        COUNTS["nacks"] += 1
        COUNTS["nacked_packets"] += len(packet.lost)
        log("nack", kind=self.kind, lost=list(packet.lost))
    elif isinstance(packet, RtcpPsfbPacket) and packet.fmt == 1:
        COUNTS["plis"] += 1
        log("pli", kind=self.kind)
    elif isinstance(packet, RtcpPsfbPacket) and packet.fmt == 4:
        COUNTS["firs"] += 1
        log("fir", kind=self.kind)
    await _handle_rtcp(self, packet)

RTCRtpSender._handle_rtcp_packet = _handle_rtcp_logging

# --no-retransmit: NACKs are logged and ignored, so only a keyframe (PLI) can repair a loss.
RETRANSMIT = True
_retransmit = RTCRtpSender._retransmit


async def _retransmit_unless_told(self, sequence_number):
    if RETRANSMIT:
        await _retransmit(self, sequence_number)

RTCRtpSender._retransmit = _retransmit_unless_told


def loopback_offer(sdp, keep_candidates):
    """The offer with only its 127.0.0.0/8 UDP candidates (none with keep_candidates False)."""
    lines = []
    for line in sdp.splitlines():
        if line.startswith("a=candidate:"):
            parts = line.split()
            # a=candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type>
            if not keep_candidates or len(parts) < 8 or parts[2].lower() != "udp" or not parts[4].startswith("127."):
                continue
        lines.append(line)
    return "\r\n".join(lines) + "\r\n"


def only_video_codec(sdp, name):
    """The offer with its video m-line narrowed to `name` (H264 or VP8) and the RTX of it: the
    codec this server "supports"."""
    lines = sdp.splitlines()
    rtpmap, apt = {}, {}
    for line in lines:
        if line.startswith("a=rtpmap:"):
            pt, _, codec = line[len("a=rtpmap:"):].partition(" ")
            rtpmap[pt] = codec.split("/")[0].upper()
        elif line.startswith("a=fmtp:") and " apt=" in line:
            pt, _, params = line[len("a=fmtp:"):].partition(" ")
            apt[pt] = dict(p.split("=", 1) for p in params.split(";") if "=" in p).get("apt")
    result, in_video, keep = [], False, set()
    for line in lines:
        if line.startswith("m="):
            in_video = line.startswith("m=video ")
            if in_video:
                parts = line.split()
                wanted = {pt for pt in parts[3:] if rtpmap.get(pt) == name.upper()}
                keep = wanted | {pt for pt in parts[3:] if rtpmap.get(pt) == "RTX" and apt.get(pt) in wanted}
                line = " ".join(parts[:3] + [pt for pt in parts[3:] if pt in keep])
        elif in_video and line.startswith(("a=rtpmap:", "a=fmtp:", "a=rtcp-fb:")):
            pt = line.split(":", 1)[1].split(" ", 1)[0]
            if pt not in keep:
                continue
        result.append(line)
    return "\r\n".join(result) + "\r\n"


def unreachable_answer(sdp):
    """The answer with every candidate moved to 127.0.0.1:9 (discard: nothing listens)."""
    lines = []
    for line in sdp.splitlines():
        if line.startswith("a=candidate:"):
            parts = line.split()
            parts[4], parts[5] = "127.0.0.1", "9"
            line = " ".join(parts)
        elif line.startswith("c=IN IP4 "):
            line = "c=IN IP4 127.0.0.1"
        elif line.startswith("m="):
            parts = line.split()
            parts[1] = "9"
            line = " ".join(parts)
        lines.append(line)
    return "\r\n".join(lines) + "\r\n"


def video_payload_types(sdp):
    types = set()
    for line in sdp.splitlines():
        if line.startswith("m=video "):
            types.update(int(pt) for pt in line.split()[3:] if pt.isdigit())
    return types


class Server:
    def __init__(self, args):
        self.args = args
        self.peers = {}

    async def answer(self, offer_sdp):
        args = self.args
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        session = uuid.uuid4().hex[:12]
        stopper = Stopper(args.stop_after)
        audio_stopper = Stopper(args.stop_audio_after if args.stop_audio_after is not None else args.stop_after)

        @pc.on("connectionstatechange")
        async def on_state():
            log("state", session=session, state=pc.connectionState)
            if pc.connectionState == "connected":
                log("connected", session=session)
                stopper.connected()
                audio_stopper.connected()

        offer = only_video_codec(loopback_offer(offer_sdp, not args.no_ice), "VP8" if args.codec == "vp8" else "H264")
        await pc.setRemoteDescription(RTCSessionDescription(offer, "offer"))
        for transceiver in pc.getTransceivers():
            if transceiver.kind == "video":
                pc.addTrack(ClockTrack(stopper))
            elif transceiver.kind == "audio" and not args.no_audio:
                pc.addTrack(SineTrack(audio_stopper))
        await pc.setLocalDescription(await pc.createAnswer())
        sdp = pc.localDescription.sdp
        VIDEO_PTS.update(video_payload_types(sdp))
        if args.no_ice:
            sdp = unreachable_answer(sdp)
        self.peers[session] = pc
        return session, sdp

    async def close(self, session):
        pc = self.peers.pop(session, None)
        if pc is not None:
            await pc.close()
        return pc is not None

    async def handle(self, reader, writer):
        try:
            request = await asyncio.wait_for(reader.readline(), 10)
            method, path, _ = request.decode("latin-1").split(" ", 2)
            headers = {}
            while True:
                line = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1").strip()
                if not line:
                    break
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length", "0"))
            body = (await asyncio.wait_for(reader.readexactly(length), 10)).decode() if length else ""
            status, extra, payload = await self.route(method, path, headers, body)
        except Exception as error:  # a malformed request, or aiortc refusing the offer
            status, extra, payload = 400, {"Content-Type": "text/plain"}, f"{type(error).__name__}: {error}\n"
        reason = {200: "OK", 201: "Created", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
                  415: "Unsupported Media Type"}.get(status, "Status")
        data = payload.encode()
        head = f"HTTP/1.1 {status} {reason}\r\nContent-Length: {len(data)}\r\nConnection: close\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in extra.items()) + "\r\n"
        try:
            writer.write(head.encode() + data)
            await writer.drain()
            writer.close()
        except ConnectionError:
            pass

    async def route(self, method, path, headers, body):
        if method == "POST" and path == "/whep":
            COUNTS["posts"] += 1
            if self.args.status:
                log("post", status=self.args.status)
                return self.args.status, {"Content-Type": "text/plain"}, "refused by --status\n"
            if not headers.get("content-type", "").startswith("application/sdp"):
                log("post", status=415)
                return 415, {"Content-Type": "text/plain"}, "expected application/sdp\n"
            session, sdp = await self.answer(body)
            log("post", status=201, session=session)
            log("answer", session=session, sdp=sdp)
            return 201, {"Content-Type": "application/sdp", "Location": f"/whep/{session}"}, sdp
        if method == "DELETE" and path.startswith("/whep/"):
            closed = await self.close(path[len("/whep/"):])
            log("delete", session=path[len("/whep/"):], found=closed)
            return (200, {}, "") if closed else (404, {}, "")
        if path.startswith("/whep"):
            return 405, {"Allow": "POST, DELETE"}, ""
        return 404, {}, ""


async def main():
    global LOG, DROP, DROP_FIRST, RETRANSMIT, CHANCE
    parser = argparse.ArgumentParser(description="WHEP test server (loopback)")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--no-audio", action="store_true")
    parser.add_argument("--drop", type=float, default=0.0)
    parser.add_argument("--drop-first", type=int, default=0)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--codec", choices=["h264", "vp8"], default="h264")
    parser.add_argument("--status", type=int, default=0)
    parser.add_argument("--no-ice", action="store_true")
    parser.add_argument("--stop-after", type=float, default=None)
    parser.add_argument("--stop-audio-after", type=float, default=None)
    parser.add_argument("--no-retransmit", action="store_true")
    parser.add_argument("--ready")
    parser.add_argument("--log")
    args = parser.parse_args()
    DROP = args.drop
    DROP_FIRST = args.drop_first
    CHANCE = random.Random(args.seed)
    RETRANSMIT = not args.no_retransmit
    if args.log:
        LOG = open(args.log, "a")
    server = Server(args)
    listener = await asyncio.start_server(server.handle, "127.0.0.1", args.port)
    log("listening", port=args.port, options={k: v for k, v in vars(args).items() if k not in ("ready", "log")})
    if args.ready:
        with open(args.ready + ".tmp", "w") as ready:
            ready.write(f"ready {args.port}\n")
        os.replace(args.ready + ".tmp", args.ready)
    done = asyncio.Event()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, done.set)
    await done.wait()
    listener.close()
    for session in list(server.peers):
        await server.close(session)
    log("summary", **COUNTS)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
