#!/usr/bin/env python3
"""A WHEP endpoint on 127.0.0.1 built on an unmodified aiortc 1.16: the interoperability peer.

aiortc's own RTCPeerConnection, as a stock aiortc server makes it: its DTLS certificate is
the ECDSA P-256 one it generates, its DTLS context offers only the ECDHE-ECDSA cipher suites
(aiortc/rtcdtlstransport.py, RTCCertificate._create_ssl_context), and, answering an actpass
offer, it is the DTLS client. Nothing of aiortc is patched but where ICE looks: aioice's host
addresses are 127.0.0.1 alone (it leaves loopback out otherwise) and the offer's candidates
other than 127.0.0.0/8 UDP ones are dropped, so no packet leaves this machine. (whep_peer.py,
the peer of the other WHEP tests, patches aiortc to drop packets and log feedback.)

POST /whep with an SDP offer answers 201 with the answer (every candidate in it, no trickle)
and `Location: /whep/<id>`; DELETE /whep/<id> closes that peer. Each peer sends the first
video codec of the offer that aiortc takes (H.264 first in ours) with clock-coded 360x640
pictures at 30 fps (clock-code.py's code: number and wall-clock ms, so a receiver reads how
old each picture is), and a 440 Hz sine as Opus: plain MediaStreamTracks, aiortc's public API.

  whep_aiortc.py --port P [--ready FILE] [--log FILE]
    --ready FILE  written ("ready <port>") once the server listens
    --log FILE    JSON lines: listening, post, state (each connection state), dtls (the cipher
                  suite aiortc negotiated and the key type of the receiver's certificate),
                  delete
SIGTERM or SIGINT closes every peer and exits 0.
"""
import argparse
import asyncio
import fractions
import importlib.util
import json
import math
import os
import signal
import struct
import sys
import time
import uuid

import aioice.ice
import numpy
from av import AudioFrame, VideoFrame
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

# ICE only: loopback is the one host address (aioice leaves 127.0.0.1 out of its list).
aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]

_spec = importlib.util.spec_from_file_location("clock_code", os.path.join(os.path.dirname(os.path.abspath(__file__)), "clock-code.py"))
clock_code = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(clock_code)

FPS = 30
AUDIO_RATE = 48000
AUDIO_SAMPLES = 960  # 20 ms
LOG = None


def log(event, **fields):
    if LOG is not None:
        LOG.write(json.dumps({"t": round(time.time(), 3), "event": event, **fields}) + "\n")
        LOG.flush()


class ClockTrack(MediaStreamTrack):
    """Clock-coded pictures at 30 fps, each made (and stamped) when it is due."""
    kind = "video"

    def __init__(self):
        super().__init__()
        self.start, self.number = None, 0

    async def recv(self):
        if self.readyState != "live":
            raise MediaStreamError
        self.start = self.start or time.time()
        delay = self.start + self.number / FPS - time.time()
        if delay > 0:
            await asyncio.sleep(delay)
        picture = numpy.frombuffer(clock_code.rgb24_picture(self.number, int(time.time() * 1000)), dtype=numpy.uint8)
        frame = VideoFrame.from_ndarray(picture.reshape(clock_code.HEIGHT, clock_code.WIDTH, 3), format="rgb24")
        frame.pts, frame.time_base = self.number * 3000, fractions.Fraction(1, 90000)
        self.number += 1
        return frame


class SineTrack(MediaStreamTrack):
    """A 440 Hz sine, 20 ms a frame, mono s16 at 48 kHz."""
    kind = "audio"

    def __init__(self):
        super().__init__()
        self.start, self.samples = None, 0

    async def recv(self):
        if self.readyState != "live":
            raise MediaStreamError
        self.start = self.start or time.time()
        delay = self.start + self.samples / AUDIO_RATE - time.time()
        if delay > 0:
            await asyncio.sleep(delay)
        wave = [int(math.sin(2 * math.pi * 440 * (self.samples + i) / AUDIO_RATE) * 8000) for i in range(AUDIO_SAMPLES)]
        frame = AudioFrame(format="s16", layout="mono", samples=AUDIO_SAMPLES)
        frame.planes[0].update(struct.pack(f"<{AUDIO_SAMPLES}h", *wave))
        frame.sample_rate, frame.pts, frame.time_base = AUDIO_RATE, self.samples, fractions.Fraction(1, AUDIO_RATE)
        self.samples += AUDIO_SAMPLES
        return frame


def loopback_offer(sdp):
    """The offer with only its 127.0.0.0/8 UDP candidates."""
    lines = []
    for line in sdp.splitlines():
        parts = line.split()
        # a=candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type>
        if line.startswith("a=candidate:") and (len(parts) < 8 or parts[2].lower() != "udp" or not parts[4].startswith("127.")):
            continue
        lines.append(line)
    return "\r\n".join(lines) + "\r\n"


def dtls_figures(pc):
    """What aiortc's DTLS agreed on: its cipher suite and the receiver's certificate's key."""
    for transceiver in pc.getTransceivers():
        ssl = getattr(transceiver.sender.transport, "_ssl", None)  # read only, for the log
        if ssl is None:
            continue
        peer = ssl.get_peer_certificate(as_cryptography=True)
        key = peer.public_key() if peer is not None else None
        curve = getattr(getattr(key, "curve", None), "name", None)
        return {"cipher": ssl.get_cipher_name(), "peer_key": type(key).__name__ if key is not None else None, "peer_curve": curve}
    return {}


class Server:
    def __init__(self):
        self.peers = {}

    async def answer(self, offer_sdp):
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        session = uuid.uuid4().hex[:12]

        @pc.on("connectionstatechange")
        async def on_state():
            log("state", session=session, state=pc.connectionState)
            if pc.connectionState == "connected":
                log("dtls", session=session, **dtls_figures(pc))

        await pc.setRemoteDescription(RTCSessionDescription(loopback_offer(offer_sdp), "offer"))
        for transceiver in pc.getTransceivers():
            pc.addTrack(ClockTrack() if transceiver.kind == "video" else SineTrack())
        await pc.setLocalDescription(await pc.createAnswer())
        self.peers[session] = pc
        return session, pc.localDescription.sdp

    async def handle(self, reader, writer):
        try:
            method, path, _ = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1").split(" ", 2)
            headers = {}
            while (line := (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1").strip()):
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length", "0"))
            body = (await asyncio.wait_for(reader.readexactly(length), 10)).decode() if length else ""
            status, extra, payload = await self.route(method, path, headers, body)
        except Exception as error:  # a malformed request, or aiortc refusing the offer
            status, extra, payload = 400, {"Content-Type": "text/plain"}, f"{type(error).__name__}: {error}\n"
        data = payload.encode()
        head = f"HTTP/1.1 {status} Status\r\nContent-Length: {len(data)}\r\nConnection: close\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in extra.items()) + "\r\n"
        try:
            writer.write(head.encode() + data)
            await writer.drain()
            writer.close()
        except ConnectionError:
            pass

    async def route(self, method, path, headers, body):
        if method == "POST" and path == "/whep":
            if not headers.get("content-type", "").startswith("application/sdp"):
                return 415, {"Content-Type": "text/plain"}, "expected application/sdp\n"
            session, sdp = await self.answer(body)
            log("post", status=201, session=session)
            return 201, {"Content-Type": "application/sdp", "Location": f"/whep/{session}"}, sdp
        if method == "DELETE" and path.startswith("/whep/"):
            pc = self.peers.pop(path[len("/whep/"):], None)
            log("delete", session=path[len("/whep/"):], found=pc is not None)
            if pc is not None:
                await pc.close()
            return (200, {}, "") if pc is not None else (404, {}, "")
        return 404, {}, ""


async def main():
    global LOG
    parser = argparse.ArgumentParser(description="WHEP endpoint on an unmodified aiortc (loopback)")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ready")
    parser.add_argument("--log")
    args = parser.parse_args()
    if args.log:
        LOG = open(args.log, "a")
    server = Server()
    listener = await asyncio.start_server(server.handle, "127.0.0.1", args.port)
    log("listening", port=args.port)
    if args.ready:
        with open(args.ready + ".tmp", "w") as ready:
            ready.write(f"ready {args.port}\n")
        os.replace(args.ready + ".tmp", args.ready)
    done = asyncio.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(number, done.set)
    await done.wait()
    listener.close()
    for pc in list(server.peers.values()):
        await pc.close()


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
