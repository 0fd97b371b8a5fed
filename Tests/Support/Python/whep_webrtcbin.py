#!/usr/bin/env python3
"""A WHEP endpoint on 127.0.0.1 whose sender is GStreamer's own webrtcbin (1.22, as Debian 12
ships it), for interoperability tests: another WebRTC stack than the client's aiortc peers.

Each POST /whep (an SDP offer) gets a pipeline of stock elements:
  appsrc (clock-coded 360x640 RGB pictures at 30 fps: clock-code.py's code, number and
          wall-clock ms, made when due) ! videoconvert ! x264enc (zerolatency, constrained
          baseline, one slice a picture) ! rtph264pay ! webrtcbin
  audiotestsrc (440 Hz sine) ! opusenc ! rtpopuspay ! webrtcbin
and 201 with webrtcbin's answer (every candidate in it, no trickle) and `Location:
/whep/<id>`; DELETE /whep/<id> stops that pipeline. webrtcbin is left as it comes: its own
DTLS certificate (GStreamer 1.22's generated RSA 2048 one), its own cipher list, and,
answering an actpass offer, the DTLS client's side. ICE stays on loopback: the ICE agent's only
local address is 127.0.0.1 and the offer's candidates other than 127.0.0.0/8 UDP ones are
dropped.

  whep_webrtcbin.py --port P [--setup passive] [--ready FILE] [--log FILE]
    --setup passive  answers a=setup:passive: webrtcbin is then the DTLS server, with its RSA
                     certificate, and the receiver the DTLS client (ECDHE-RSA suites)
    --ready FILE     written ("ready <port>") once the server listens
    --log FILE       JSON lines: listening, post, state (each connection state), dtls (the key
                     of each side's certificate, as `openssl x509 -text` reads it, and the
                     sender's DTLS role), delete
SIGTERM or SIGINT stops every pipeline and exits 0.

Needs PyGObject and GStreamer's typelibs (Debian: python3-gi, gir1.2-gst-plugins-bad-1.0), and
x264enc (gstreamer1.0-plugins-ugly), opusenc (-base), webrtcbin (-bad), the ICE agent
(gstreamer1.0-nice). When the python3 on PATH has no `gi` (a pyenv one, say), the script runs
again under Debian's /usr/bin/python3, where python3-gi is.
"""
import os
import sys

try:
    import gi
except ImportError:
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3", *sys.argv])
    raise

gi.require_version("Gst", "1.0")
gi.require_version("GstSdp", "1.0")
gi.require_version("GstWebRTC", "1.0")
from gi.repository import Gst, GstSdp, GstWebRTC  # noqa: E402

import argparse  # noqa: E402
import http.server  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("clock_code", os.path.join(HERE, "clock-code.py"))
clock_code = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(clock_code)

FPS = 30
KEPT = []  # objects whose wrappers must never be dropped (Sender.__init__ says why)
LOG_LOCK = threading.Lock()
LOG = None


def log(event, **fields):
    if LOG is not None:
        with LOG_LOCK:
            LOG.write(json.dumps({"t": round(time.time(), 3), "event": event, **fields}) + "\n")
            LOG.flush()


def certificate_key(pem):
    """A certificate's key as `openssl x509 -text` names it: "ecdsa prime256v1", "rsa 2048"."""
    if not pem:
        return None
    text = subprocess.run(["openssl", "x509", "-noout", "-text"], input=pem, capture_output=True, text=True).stdout
    if "id-ecPublicKey" in text:
        curve = re.search(r"ASN1 OID: (\S+)", text)
        return "ecdsa " + (curve.group(1) if curve else "?")
    if "rsaEncryption" in text:
        bits = re.search(r"Public-Key: \((\d+) bit\)", text)
        return "rsa " + (bits.group(1) if bits else "?")
    return "other"


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


def payload_type(sdp, kind, codec):
    """The offer's payload type for `codec` in its `kind` m-line."""
    in_kind = False
    for line in sdp.splitlines():
        if line.startswith("m="):
            in_kind = line.startswith(f"m={kind} ")
        elif in_kind and line.startswith("a=rtpmap:") and line.split(" ", 1)[1].upper().startswith(codec + "/"):
            return int(line[len("a=rtpmap:"):].split(" ", 1)[0])
    return None


def wait_promise(promise, what):
    if promise.wait() != Gst.PromiseResult.REPLIED:
        raise RuntimeError(f"webrtcbin did not answer {what}")
    reply = promise.get_reply()
    error = reply.get_value("error") if reply is not None and reply.has_field("error") else None
    if error is not None:
        raise RuntimeError(f"{what}: {error}")
    return reply


class Sender:
    """One WHEP session: a pipeline that sends the clock pictures and the sine."""

    def __init__(self, session, offer, setup):
        self.session = session
        video_pt, audio_pt = payload_type(offer, "video", "H264"), payload_type(offer, "audio", "OPUS")
        if video_pt is None:
            raise ValueError("the offer has no H.264")
        description = (
            "webrtcbin name=w bundle-policy=max-bundle "
            "appsrc name=pictures is-live=true format=time do-timestamp=true "
            f"caps=video/x-raw,format=RGB,width={clock_code.WIDTH},height={clock_code.HEIGHT},framerate={FPS}/1 "
            "! videoconvert ! video/x-raw,format=I420 "
            # threads=1: one slice a picture. With x264's sliced threads (4-5 slices on this
            # machine) the receiver showed the first slice of each picture and its muxer stalled
            # (measured; an open matter of its own, docs/live.md). qp-min: the flat picture took
            # x264 to QP 0, lossless coding that constrained baseline cannot carry.
            "! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=60 bitrate=1500 qp-min=18 threads=1 "
            "! video/x-h264,profile=constrained-baseline "
            f"! rtph264pay config-interval=-1 aggregate-mode=zero-latency pt={video_pt} "
            f"! application/x-rtp,media=video,encoding-name=H264,payload={video_pt} ! w. ")
        if audio_pt is not None:
            description += ("audiotestsrc is-live=true wave=sine freq=440 volume=0.25 ! audioconvert ! audioresample "
                            f"! opusenc ! rtpopuspay pt={audio_pt} "
                            f"! application/x-rtp,media=audio,encoding-name=OPUS,payload={audio_pt} ! w. ")
        self.pipeline = Gst.parse_launch(description)
        self.webrtc = self.pipeline.get_by_name("w")
        self.pictures = self.pipeline.get_by_name("pictures")
        self.running = True
        ice = self.webrtc.get_property("ice-agent")
        # webrtcbin holds its ICE object by the floating reference it was made with, and
        # PyGObject sinks a floating reference when it wraps an object: dropped with the
        # wrapper, that reference was webrtcbin's, the ICE object was finalized (its thread,
        # which runs libnice's checks, with it) and ICE never connected, 1 run in 6 (measured).
        # The wrappers are kept for as long as the process runs.
        KEPT.append(ice)
        agent = ice.get_property("agent")
        KEPT.append(agent)
        agent.set_property("upnp", False)
        ice.emit("add-local-ip-address", "127.0.0.1")
        self.pipeline.set_state(Gst.State.PLAYING)
        self.answer = self.negotiate(loopback_offer(offer), setup)
        threading.Thread(target=self.feed, daemon=True).start()
        threading.Thread(target=self.watch, daemon=True).start()

    def negotiate(self, offer, setup):
        _, message = GstSdp.SDPMessage.new_from_text(offer)
        remote = GstWebRTC.WebRTCSessionDescription.new(GstWebRTC.WebRTCSDPType.OFFER, message)
        promise = Gst.Promise.new()
        self.webrtc.emit("set-remote-description", remote, promise)
        wait_promise(promise, "set-remote-description")
        # The reply owns the answer (PyGObject does not copy it): both are kept until it is set.
        answered = Gst.Promise.new()
        self.webrtc.emit("create-answer", None, answered)
        reply = wait_promise(answered, "create-answer")
        answer = reply.get_value("answer")
        if setup == "passive":
            text = answer.sdp.as_text().replace("a=setup:active", "a=setup:passive")
            _, message = GstSdp.SDPMessage.new_from_text(text)
            answer = GstWebRTC.WebRTCSessionDescription.new(GstWebRTC.WebRTCSDPType.ANSWER, message)
        promise = Gst.Promise.new()
        self.webrtc.emit("set-local-description", answer, promise)
        wait_promise(promise, "set-local-description")
        del reply, answered
        deadline = time.time() + 15
        while self.webrtc.get_property("ice-gathering-state") != GstWebRTC.WebRTCICEGatheringState.COMPLETE:
            if time.time() > deadline:
                raise RuntimeError("ICE gathering did not complete")
            time.sleep(0.02)
        return self.webrtc.get_property("local-description").sdp.as_text()

    # States are polled, not signalled: no Python runs on GStreamer's threads (a handler on
    # webrtcbin's thread would hold its lock while it waits for the GIL).
    # The bus is read here too, as gst-launch-1.0 does: a LATENCY message (webrtcbin's
    # streams come after PLAYING) has the pipeline's latency recalculated. Without it rtpsession
    # warned "Can't determine running time for this packet" for every packet, and the receiver
    # sent 150-170 NACKs in 8 s for packets never lost (0 with it; measured).
    def watch(self):
        state = None
        bus = self.pipeline.get_bus()
        while self.running:
            message = bus.pop_filtered(Gst.MessageType.LATENCY | Gst.MessageType.ERROR | Gst.MessageType.WARNING)
            while message is not None:
                if message.type == Gst.MessageType.LATENCY:
                    self.pipeline.recalculate_latency()
                else:
                    log("bus", session=self.session, type=message.type.first_value_nick,
                        text=str(message.parse_error()[0] if message.type == Gst.MessageType.ERROR else message.parse_warning()[0]))
                message = bus.pop_filtered(Gst.MessageType.LATENCY | Gst.MessageType.ERROR | Gst.MessageType.WARNING)
            now = self.webrtc.get_property("connection-state")
            if now != state:
                state = now
                log("state", session=self.session, state=state.value_nick)
                if state == GstWebRTC.WebRTCPeerConnectionState.CONNECTED:
                    self.log_dtls()
            time.sleep(0.05)

    def log_dtls(self):
        # get-transceivers' GArray is of no use from Python: the first, by index (bundled: one transport).
        transceiver = self.webrtc.emit("get-transceiver", 0)
        transport = transceiver.get_property("sender").get_property("transport") if transceiver is not None else None
        if transport is not None:
            log("dtls", session=self.session, sender_role="client" if transport.get_property("client") else "server",
                sender_key=certificate_key(transport.get_property("certificate")),
                receiver_key=certificate_key(transport.get_property("remote-certificate")))

    def feed(self):
        """Pushes a picture when each is due, stamped as it is made."""
        start, number = time.time(), 0
        while self.running:
            delay = start + number / FPS - time.time()
            if delay > 0:
                time.sleep(delay)
            buffer = Gst.Buffer.new_wrapped(clock_code.rgb24_picture(number, int(time.time() * 1000)))
            flow = self.pictures.emit("push-buffer", buffer)
            if flow != Gst.FlowReturn.OK:
                log("pictures", session=self.session, pushed=number, flow=flow.value_nick)
                return
            number += 1
        log("pictures", session=self.session, pushed=number)

    def stop(self):
        self.running = False
        self.pipeline.set_state(Gst.State.NULL)


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "whep-webrtcbin"

    def reply(self, status, body=b"", headers=None):
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        if self.path != "/whep":
            return self.reply(404)
        if not self.headers.get("Content-Type", "").startswith("application/sdp"):
            return self.reply(415, b"expected application/sdp\n")
        offer = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
        session = uuid.uuid4().hex[:12]
        try:
            sender = Sender(session, offer, self.server.setup)
        except Exception as error:  # a refused offer: the client reads why
            log("post", status=400, error=str(error))
            return self.reply(400, f"{type(error).__name__}: {error}\n".encode(), {"Content-Type": "text/plain"})
        self.server.senders[session] = sender
        log("post", status=201, session=session)
        self.reply(201, sender.answer.encode(), {"Content-Type": "application/sdp", "Location": f"/whep/{session}"})

    def do_DELETE(self):
        session = self.path[len("/whep/"):] if self.path.startswith("/whep/") else ""
        sender = self.server.senders.pop(session, None)
        log("delete", session=session, found=sender is not None)
        if sender is not None:
            sender.stop()
        self.reply(200 if sender is not None else 404)

    def log_message(self, *_):
        pass


def main():
    global LOG
    parser = argparse.ArgumentParser(description="WHEP endpoint whose sender is GStreamer's webrtcbin (loopback)")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--setup", choices=["active", "passive"], default="active")
    parser.add_argument("--ready")
    parser.add_argument("--log")
    args = parser.parse_args()
    Gst.init(None)
    if args.log:
        LOG = open(args.log, "a")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    server.setup, server.senders = args.setup, {}
    log("listening", port=args.port, setup=args.setup, gstreamer=Gst.version_string())
    if args.ready:
        with open(args.ready + ".tmp", "w") as ready:
            ready.write(f"ready {args.port}\n")
        os.replace(args.ready + ".tmp", args.ready)
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: threading.Thread(target=server.shutdown).start())
    server.serve_forever()
    for sender in list(server.senders.values()):
        sender.stop()


if __name__ == "__main__":
    main()
    sys.exit(0)
