internal import CFFmpeg
internal import CStoryWHEP
import Foundation
import StoryMedia
import Synchronization

/// Owns one WebRTC session of a WHEP play (`story_whep_session`, CStoryWHEP: GStreamer's
/// webrtcbin, every call of which stays in that C target); closes it with `story_whep_close`.
///
/// The session receives the server's tracks (H.264 and Opus), and hands them on muxed as
/// MPEG-TS (Matroska for VP8), which the play's demuxer reads through a `SegmentInput` as it
/// reads a DASH representation's segments: so a WebRTC source is decoded, clocked and traced as
/// any pushed live source is. Its jitter buffer (rtpbin's) reorders packets and waits for the
/// ones NACK asks again; a packet lost for good makes the depayloader ask for a keyframe (PLI).
///
/// Read by one thread (the decode thread, inside the demuxer's calls); `figures` may be read
/// from any thread, which `story_whep_status_get` allows. Closed by whoever drops the last
/// reference, which is that thread as its demuxer closes.
final class WHEPSession: SegmentFeed {
    private let pointer: OpaquePointer
    private let gate: InterruptGate
    private(set) var failure: MediaError?
    private(set) var ended = false
    /// The session's URL on the server (the 201's `Location`), deleted as the session closes.
    var resource: String?

    /// How long one read waits before it looks at the gate again: `stop()` must be answered
    /// within 100 ms.
    static let pollMilliseconds: Int32 = 50

    /// `story_whep_load` once per process: GStreamer opened, its elements checked.
    private static let loaded = Mutex<Result<Void, MediaError>?>(nil)

    static func load() throws(MediaError) {
        let result = loaded.withLock { state -> Result<Void, MediaError> in
            if let state { return state }
            var message = [CChar](repeating: 0, count: 512)
            let status = story_whep_load(&message, message.count)
            let result: Result<Void, MediaError> = status == 0 ? .success(())
                : .failure(MediaError(.open, "WebRTC (WHEP) cannot play here", cause: WHEPSession.text(message)))
            state = result
            return result
        }
        try result.get()
    }

    /// `story_whep_create`: the pipeline, receiving video and `audio`, its jitter buffer holding
    /// packets up to `jitterMilliseconds`, ICE on `localAddress` alone when given.
    init(jitterMilliseconds: Int, audio: Bool, localAddress: String?, gate: InterruptGate) throws(MediaError) {
        self.gate = gate
        var message = [CChar](repeating: 0, count: 512)
        let created: OpaquePointer? = localAddress.withOptionalCString { address in
            var options = story_whep_options(jitter_latency_ms: Int32(jitterMilliseconds), want_audio: audio ? 1 : 0, want_vp8: 1,
                                             local_address: address)
            return story_whep_create(&options, &message, message.count)
        }
        guard let created else { throw MediaError(.open, "cannot start a WebRTC session", cause: WHEPSession.text(message)) }
        pointer = created
    }

    /// `story_whep_offer`: the offer to post, once ICE has gathered every candidate.
    func offer(timeout: Double) throws(MediaError) -> String {
        var message = [CChar](repeating: 0, count: 512)
        var sdp: UnsafeMutablePointer<CChar>?
        let status = interruptible { story_whep_offer(pointer, &sdp, Int32(timeout * 1000), &message, message.count) }
        guard status == 0, let sdp else {
            throw MediaError(.open, "cannot make a WebRTC offer", cause: WHEPSession.text(message))
        }
        defer { free(sdp) }
        return String(cString: sdp)
    }

    /// `story_whep_answer`: the server's answer, read for its video codec (`WHEPAnswer`), set;
    /// ICE and DTLS start.
    func answer(_ sdp: String) throws(MediaError) {
        var video = try WHEPAnswer.parse(sdp).sessionVideo
        var message = [CChar](repeating: 0, count: 512)
        guard interruptible({ story_whep_answer(pointer, sdp, &video, &message, message.count) }) == 0 else {
            throw MediaError(.open, "the WHEP endpoint's answer was refused", cause: WHEPSession.text(message))
        }
    }

    /// Runs `call` (which waits inside GStreamer, deaf to the gate) while a watcher thread calls
    /// `story_whep_interrupt` once the gate closes or times out: `stop()` is answered at once, not
    /// after the offer's or answer's own wait.
    private func interruptible(_ call: () -> Int32) -> Int32 {
        let done = Atomic<Bool>(false)
        // story_whep_interrupt may be called from any thread while the session lives, which it
        // does until `call` returns (the watcher is waited for before that); the pointer is
        // an opaque handle the compiler cannot see is safe to send.
        nonisolated(unsafe) let session = pointer
        let gate = gate
        let watcher = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { watcher.signal() }
            while !done.load(ordering: .acquiring) {
                if gate.reason != nil {
                    story_whep_interrupt(session)
                    return
                }
                usleep(20_000)
            }
        }
        thread.start()
        let status = call()
        done.store(true, ordering: .releasing)
        watcher.wait()
        return status
    }

    // MARK: - Reading

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
        while true {
            if gate.reason != nil { return cffmpeg_averror_exit() }
            let read = story_whep_read(pointer, buffer, count, WHEPSession.pollMilliseconds)
            if read > 0 { return Int32(read) }
            if read < 0 {
                let why = String(cString: story_whep_error(pointer))
                if why.contains("end of stream") {
                    ended = true
                    return FFmpegError.endOfFile
                }
                failure = MediaError(.read, "the WebRTC session ended", cause: why.isEmpty ? "the connection closed" : why)
                return cffmpeg_averror(EIO)
            }
        }
    }

    // MARK: - Figures

    /// What the session says of itself (`story_whep_status_get`).
    struct Figures: Sendable, Equatable {
        /// How long video packets stay in the jitter buffer (ms).
        var jitterDepthMs: Double
        var jitterLatencyMs: Int
        var packetsReceived, packetsLost, nacksSent, plisSent: UInt64
        var videoCodec: String
    }

    var figures: Figures {
        var status = story_whep_status()
        story_whep_status_get(pointer, &status)
        let codec = withUnsafeBytes(of: status.video_codec) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return Figures(jitterDepthMs: status.jitter_depth_ms, jitterLatencyMs: Int(status.jitter_latency_ms),
                       packetsReceived: status.packets_received, packetsLost: status.packets_lost,
                       nacksSent: status.nacks_sent, plisSent: status.plis_sent, videoCodec: codec)
    }

    /// `story_whep_close`, after the session's resource on the server is deleted (WHEP's end of
    /// a session: the server stops sending at once rather than at its ICE timeout).
    deinit {
        if let resource {
            let deleting = InterruptGate()
            deleting.arm(seconds: WHEPSession.deleteTimeout)
            _ = try? WHEPSignalling.exchange("DELETE", resource, timeout: WHEPSession.deleteTimeout, gate: deleting)
            deleting.disarm()
        }
        story_whep_close(pointer)
    }

    /// A message the C side wrote into `buffer`, up to its terminating zero.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The longest a session's DELETE may hold its decode thread as it unwinds.
    static let deleteTimeout = 0.5
}

extension Optional where Wrapped == String {
    /// `body` with this string as a C string, or with NULL.
    fileprivate func withOptionalCString<Result>(_ body: (UnsafePointer<CChar>?) -> Result) -> Result {
        switch self {
        case .some(let text): text.withCString { body($0) }
        case .none: body(nil)
        }
    }
}
