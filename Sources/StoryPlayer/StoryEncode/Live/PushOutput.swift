import Foundation
import StoryMedia
import Synchronization

/// `--push URL`: the recording sent to an ingest as it is made: FLV over `rtmp://` and
/// `rtmps://`, MPEG-TS over `srt://`. On a thread of its own, behind a bounded queue, so a slow
/// or absent ingest never holds the encode or the other outputs:
/// - an ingest that refuses or drops the connection is retried with backoff (0.5 s, doubling to
///   8 s), traced `output_lost` then `output_back`;
/// - one that stalls (a write blocked longer than `stallSeconds`) is dropped and retried;
/// - packets that cannot be sent in time (more than `queueSeconds` waiting) are dropped, the
///   whole queue at once, and sending starts again at the next keyframe: `push_dropped` says
///   how many milliseconds of video were lost. Memory stays bounded whatever the ingest does.
/// Timestamps run on across reconnections, as the recording's do.
package final class PushOutput: LiveOutput, Sendable {
    package let name: String
    private let url: String
    private let log: OutputLog
    private let state = Mutex(PushQueue())
    private let wake = DispatchSemaphore(value: 0)
    private let gate = InterruptGate()
    private let done = DispatchSemaphore(value: 0)
    private let streamsBox = Mutex<LiveStreams?>(nil)
    /// Whether a connection is up (its header written, not yet lost).
    private let connected = Atomic<Bool>(false)

    /// How much may wait to be sent before it is dropped.
    package static let queueSeconds = 2.0
    /// How long a write may block before the ingest is taken as stalled.
    package static let stallSeconds = 3.0
    static let backoff = (first: 0.5, most: 8.0)

    package init(url: String, log: OutputLog) {
        self.url = url
        name = url
        self.log = log
    }

    /// The muxer a URL takes: FLV for RTMP, MPEG-TS for SRT (and anything else).
    package static func muxerFormat(for url: String) -> String {
        url.lowercased().hasPrefix("rtmp") ? "flv" : "mpegts"
    }

    package func start(_ streams: LiveStreams) throws(MediaError) {
        streamsBox.withLock { $0 = streams }
        log.update(name) { _ in }
        let thread = Thread { [self] in run(streams) }
        thread.name = "live-stories.push"
        thread.start()
    }

    package func write(_ packet: Packet, stream: LiveStreams.Kind) {
        guard let streams = streamsBox.withLock({ $0 }) else { return }
        let seconds = streams.seconds(packet.presentationTimestamp, stream)
        let dropped = state.withLock { queue in
            queue.add(QueuedPacket(packet: packet, stream: stream, seconds: seconds), limit: Self.queueSeconds)
        }
        if let dropped, dropped > 0 { log.note(.dropped(milliseconds: dropped * 1000), of: name) }
        wake.signal()
    }

    package func prepareToFinish() {
        state.withLock { $0.finishing = true }
        // A push still trying to connect has nothing to close: its try is called off.
        if !connected.load(ordering: .acquiring) { gate.requestStop() }
        wake.signal()
    }

    package func finish() {
        prepareToFinish()
        // What is queued has a few seconds to go out; an ingest that is not there is not waited for.
        if done.wait(timeout: .now() + Self.stallSeconds + 1) == .timedOut {
            gate.requestStop()
            _ = done.wait(timeout: .now() + 2)
        }
        log.update(name) { $0.state = .closed }
    }

    package func abandon() {
        gate.requestStop()
        state.withLock { $0.finishing = true }
        wake.signal()
    }

    // MARK: - The push's thread

    /// Connects, sends what comes, and reconnects with backoff when the ingest goes, until the
    /// recording finishes.
    private func run(_ streams: LiveStreams) {
        var backoff = Self.backoff.first
        var everConnected = false
        // Not connected at the loop's top: a recording that ends does not try again.
        while !gate.isStopped && !state.withLock({ $0.finishing }) {
            guard let connection = connect(streams, after: everConnected) else {
                pause(backoff)
                backoff = min(backoff * 2, Self.backoff.most)
                continue
            }
            everConnected = true
            backoff = Self.backoff.first
            connected.store(true, ordering: .releasing)
            let finished = send(over: connection, streams)
            connected.store(false, ordering: .releasing)
            if finished { break }
        }
        done.signal()
    }

    /// A new connection whose header is written; nil (said once per loss) when the ingest refuses.
    private func connect(_ streams: LiveStreams, after everConnected: Bool) -> PushConnection? {
        do {
            let connection = try PushConnection(url: url, format: Self.muxerFormat(for: url), streams: streams, gate: gate,
                                                stallSeconds: Self.stallSeconds)
            let lost = state.withLock { $0.startAtKeyframe() }
            log.note(everConnected || lostOnce ? .back : .started, of: name)
            if lost > 0 { log.note(.dropped(milliseconds: lost * 1000), of: name) }
            lostOnce = false
            return connection
        } catch {
            noteLost("\(error)")
            return nil
        }
    }

    private let lostState = Mutex(false)
    private var lostOnce: Bool {
        get { lostState.withLock { $0 } }
        set { lostState.withLock { $0 = newValue } }
    }

    private func noteLost(_ error: String) {
        guard !lostOnce else { return }
        lostOnce = true
        log.note(.lost(error: error), of: name)
    }

    /// Sends queued packets until the connection fails (false: reconnect) or the recording
    /// finishes with the queue sent (true).
    private func send(over connection: PushConnection, _ streams: LiveStreams) -> Bool {
        while true {
            let next = state.withLock { $0.next() }
            guard let next else {
                if state.withLock({ $0.finishing }) {
                    connection.finish()
                    return true
                }
                _ = wake.wait(timeout: .now() + 0.5)
                continue
            }
            let bytes = Int64(next.packet.size)
            let status = connection.write(next.packet, stream: next.stream, streams: streams)
            guard status >= 0 else {
                noteLost("\(connection.failure("cannot send to \(url)", status))")
                return gate.isStopped
            }
            log.update(name) { $0.bytes += bytes }
        }
    }

    /// Waits `seconds` unless the recording stops first.
    private func pause(_ seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end && !gate.isStopped && !state.withLock({ $0.finishing }) {
            _ = wake.wait(timeout: .now() + min(0.1, end.timeIntervalSinceNow))
        }
    }
}
