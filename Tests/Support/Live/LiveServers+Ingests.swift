import Foundation

/// The far ends a recorder pushes to, as a platform's ingest is: they receive, and the test
/// reads back what they received with ffprobe.
extension ServerSet {
    /// An SRT listener on a free UDP port, `ffmpeg -i 'srt://127.0.0.1:PORT?mode=listener' -c
    /// copy` into `file` (MPEG-TS), as a platform's SRT ingest takes one caller. Ready once the
    /// port is bound. The listener ends when its caller closes.
    public func srtListener(into file: String) throws -> (port: Int, process: ServerProcess) {
        let port = LiveServers.freePort()
        let process = try start("ffmpeg", ["-v", "error", "-nostdin", "-y", "-i", "srt://127.0.0.1:\(port)?mode=listener",
                                           "-c", "copy", "-f", "mpegts", file], name: "srt-listener-\(port)")
        guard LiveServers.waitUntil(10, { LiveServers.udpBound(port: port) }) else {
            throw LiveServers.unavailable("ffmpeg's SRT listener did not bind port \(port): \(process.output)")
        }
        return (port, process)
    }

    /// A viewer of an RTMP stream on nginx, copying what nginx serves into `file` (FLV): what a
    /// platform's player would receive of a push. Start it once the stream is published: nginx-rtmp
    /// sent nothing to an ffmpeg viewer that came before its publisher. FFmpeg 5.1's RTMP reader
    /// does not end at nginx's unpublish, and a SIGTERM does not break its blocked read (it was
    /// killed with its last 32 KB unwritten), so it ends after 3 s without data (`-rw_timeout`)
    /// and writes each packet through.
    public func rtmpReader(_ url: String, into file: String) throws -> ServerProcess {
        try start("ffmpeg", ["-v", "error", "-nostdin", "-y", "-rw_timeout", "3000000", "-i", url, "-c", "copy",
                             "-flush_packets", "1", "-f", "flv", file],
                  name: "rtmp-reader-\(UUID().uuidString.prefix(8))")
    }

    /// A TCP listener that accepts and then relays to `port` (nginx) for `seconds`, then stops
    /// reading from its client and never closes: an ingest that stalls mid-stream. Its socket's
    /// receive buffer is small (8 KB) so the sender's writes block soon after, as they do behind
    /// a dead route. Returns its port.
    public func stallingRelay(to port: Int, after seconds: Double) throws -> Int {
        let listen = LiveServers.freePort()
        let script = """
        import socket, threading, time
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
        s.bind(("127.0.0.1", \(listen))); s.listen(16); held = []
        def relay(c):
            u = socket.create_connection(("127.0.0.1", \(port))); held.append(u)
            def back():
                while True:
                    b = u.recv(65536)
                    if not b: return
                    c.sendall(b)
            threading.Thread(target=back, daemon=True).start()
            end = time.time() + \(seconds)
            c.settimeout(0.2)
            while time.time() < end:
                try: b = c.recv(65536)
                except socket.timeout: continue
                if not b: return
                u.sendall(b)
            while True: time.sleep(3600)
        while True:
            c, _ = s.accept(); held.append(c)
            threading.Thread(target=relay, args=(c,), daemon=True).start()
        """
        let relay = try start("python3", ["-c", script], name: "stalling-relay-\(listen)")
        guard LiveServers.waitUntil(10, { LiveServers.tcpListening(port: listen) }) else {
            throw LiveServers.unavailable("the stalling relay did not start: \(relay.output)")
        }
        return listen
    }
}

extension ServerProcess {
    /// Waits up to `seconds` for the process to end by itself; whether it did.
    @discardableResult
    public func waitForExit(_ seconds: Double) -> Bool {
        LiveServers.waitUntil(seconds) { !isRunning }
    }
}

/// Cheap live participants with sound, of the two families users publish with: a moving test
/// picture (160x90, 30 fps, H.264 with a 1 s GOP) and a 440 Hz tone (AAC), pushed over RTMP.
public enum TestPatternPublisher: String, CaseIterable {
    case ffmpeg, gstreamer

    public func arguments(_ url: String) -> (program: String, arguments: [String]) {
        switch self {
        case .ffmpeg:
            return ("ffmpeg", ["-v", "error", "-nostdin", "-re", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=30",
                               "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-c:v", "libx264",
                               "-preset", "ultrafast", "-tune", "zerolatency", "-g", "30", "-pix_fmt", "yuv420p",
                               "-c:a", "aac", "-f", "flv", url])
        case .gstreamer:
            let pipeline = "videotestsrc is-live=true pattern=ball ! video/x-raw,width=160,height=90,framerate=30/1 ! videoconvert "
                + "! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! h264parse ! queue ! flvmux name=m streamable=true "
                + "! rtmp2sink location=\(url) audiotestsrc is-live=true wave=sine freq=440 ! audioconvert ! avenc_aac ! aacparse "
                + "! queue ! m."
            return ("gst-launch-1.0", ["-q"] + pipeline.split(separator: " ").map(String.init))
        }
    }
}

extension ServerSet {
    /// Starts a test-pattern publisher into `url` and waits until a viewer can play it there.
    public func publishTestPattern(_ family: TestPatternPublisher, to url: String) throws -> ServerProcess {
        let command = family.arguments(url)
        try LiveServers.require(command.program)
        let publisher = try start(command.program, command.arguments, name: "pattern-\(family.rawValue)-\(UUID().uuidString.prefix(8))")
        guard LiveServers.waitUntil(20, { LiveServers.plays(url) || !publisher.isRunning }), publisher.isRunning else {
            throw LiveServers.unavailable("\(family) published nothing playable to \(url): \(publisher.output)")
        }
        return publisher
    }
}

extension LiveServers {
    /// Whether ffprobe finds a video stream at `url` within 3 s.
    public static func plays(_ url: String) -> Bool {
        let ffprobe = which("ffprobe") ?? "/usr/bin/ffprobe"
        let outcome = try? ExternalProgram.outcome(ffprobe, ["-v", "error", "-rw_timeout", "3000000", "-select_streams", "v",
                                                             "-show_entries", "stream=codec_type", "-of", "csv=p=0", url])
        return outcome?.status == 0 && String(decoding: outcome?.stdout ?? Data(), as: UTF8.self).contains("video")
    }
}
