import Foundation
import StoryMedia
import Synchronization

/// One of a recording's outputs that never end (`--hls`, `--segments`, `--push`): it takes the
/// packets of the recording's one encode (`LiveEncoder`), each a reference of its own, and says
/// what happens to it in the recording's `OutputLog`.
///
/// `start`, `write` and `finish` come from the encoder's thread, in order; an output that sends
/// over the network does so on a thread of its own, so that a slow ingest never holds the encode.
package protocol LiveOutput: AnyObject {
    /// How the trace and summary name it: "hls", "segments", or the push's URL.
    var name: String { get }
    /// Sets the output up for `streams`; throws when it cannot be written at all (a folder that
    /// cannot be made). A server that is not there yet is not an error: it is retried.
    func start(_ streams: LiveStreams) throws(MediaError)
    /// A packet of `streams.video` or `streams.audio`, stamped in its stream's time base.
    func write(_ packet: Packet, stream: LiveStreams.Kind)
    /// The recording is about to stop cleanly: an output that waits for a server in its own
    /// time stops waiting now, so that every output's `finish` runs at once, not one after the other.
    func prepareToFinish()
    /// The recording stopped cleanly: what is open is finished (a segment, the playlist's
    /// `EXT-X-ENDLIST`, a push's trailer).
    func finish()
    /// The recording stops at once: nothing more is written or waited for.
    func abandon()
}

extension LiveOutput {
    package func prepareToFinish() {}
}

/// The streams of a recording's one encode: what each output's muxer is given.
package struct LiveStreams: Sendable {
    package enum Kind: Sendable { case video, audio }
    package let video: CodecParameters
    package let audio: CodecParameters?
    package let fps: Double
    /// Frames from one keyframe to the next (fixed: scene cuts make none).
    package let gopFrames: Int
    /// Wall time of the video's timestamp 0, in seconds since 1970: a segment's UTC name.
    package let startedAt: Double

    package func parameters(_ kind: Kind) -> CodecParameters? { kind == .video ? video : audio }

    /// Seconds of a timestamp in `kind`'s time base.
    package func seconds(_ ticks: Int64, _ kind: Kind) -> Double {
        guard let base = parameters(kind)?.timeBase, base.den != 0 else { return 0 }
        return Double(ticks) * Double(base.num) / Double(base.den)
    }
}

/// What happened to an output, said once, for the trace.
package struct OutputEvent: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case started
        case lost(error: String)
        case back
        case segmentClosed(file: String, seconds: Double, bytes: Int64)
        case dropped(milliseconds: Double)
    }
    package var output: String
    package var kind: Kind
}

/// An output's running state, for the summary.
package struct OutputStatus: Sendable, Equatable {
    package enum State: String, Sendable { case starting, running, lost, closed }
    package var output: String
    package var state: State = .starting
    package var bytes: Int64 = 0
    package var droppedMilliseconds: Double = 0
}

/// The outputs' events and states, written by their threads and read by the render's: the
/// render thread takes the events into the trace and the states into the summary.
package final class OutputLog: Sendable {
    private let events = Mutex<[OutputEvent]>([])
    private let states = Mutex<[String: OutputStatus]>([:])
    private let order = Mutex<[String]>([])

    package init() {}

    package func note(_ kind: OutputEvent.Kind, of output: String) {
        events.withLock { $0.append(OutputEvent(output: output, kind: kind)) }
        update(output) { status in
            switch kind {
            case .started, .back: status.state = .running
            case .lost: status.state = .lost
            case .dropped(let milliseconds): status.droppedMilliseconds += milliseconds
            case .segmentClosed: break
            }
        }
    }

    package func update(_ output: String, _ change: (inout OutputStatus) -> Void) {
        states.withLock { states in
            if states[output] == nil { order.withLock { $0.append(output) } }
            var status = states[output] ?? OutputStatus(output: output)
            change(&status)
            states[output] = status
        }
    }

    /// The events noted since the last call, oldest first.
    package func takeEvents() -> [OutputEvent] { events.withLock { taken in defer { taken = [] }; return taken } }

    /// Every output's state, in the order they were first noted.
    package var statuses: [OutputStatus] {
        let names = order.withLock { $0 }
        return states.withLock { states in names.compactMap { states[$0] } }
    }
}

/// A packet on its way from the encoder's thread to a push's: it belongs to one queue at a time
/// (the encoder hands its own reference over and keeps none), which the compiler cannot see
/// through the class, hence the unchecked conformance.
struct QueuedPacket: @unchecked Sendable {
    let packet: Packet
    let stream: LiveStreams.Kind
    /// Its presentation time, in seconds.
    let seconds: Double
}
