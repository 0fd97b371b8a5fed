import Foundation
import Synchronization

/// What a source has sent a player so far, across its connections: written by the decode thread
/// as packets arrive, read by the render thread.
///
/// The render needs it for two things the picture queue cannot tell: that a live story whose
/// publisher sends sound but no picture is playing (its loading ring goes off), and why a story
/// that never showed a picture failed ("the server accepted the connection and sent nothing" is
/// a different fault from "video arrived but never decoded").
package final class SourceReception: Sendable {
    /// How far the current connection got.
    enum Stage: Int, Sendable, Comparable {
        /// `avformat_open_input` has not returned yet.
        case connecting
        /// The protocol and container answered; stream information is being read.
        case answered
        /// Streams are known; packets are being read.
        case reading

        static func < (a: Stage, b: Stage) -> Bool { a.rawValue < b.rawValue }
    }

    private let stageValue = Atomic<Int>(Stage.connecting.rawValue)
    private let audio = Atomic<Int>(0)
    private let video = Atomic<Int>(0)
    private let announced = Atomic<Bool>(false)
    private let firstVideo = Mutex<Date?>(nil)

    var stage: Stage { Stage(rawValue: stageValue.load(ordering: .acquiring)) ?? .connecting }
    /// Audio packets read, on every connection of this play.
    package var audioPackets: Int { audio.load(ordering: .relaxed) }
    /// Packets of the shown video stream read, on every connection of this play.
    package var videoPackets: Int { video.load(ordering: .relaxed) }

    /// Whether the current connection's container announces a video track before any of its
    /// packets came (`FormatContext.announcesVideo`).
    package var announcesVideo: Bool { announced.load(ordering: .relaxed) }

    package init() {}

    func reached(_ stage: Stage) { stageValue.store(stage.rawValue, ordering: .releasing) }
    func countAudio() { audio.add(1, ordering: .relaxed) }
    /// When this play's first video packet came: a source that sent sound first may send its
    /// video long after opening.
    package var firstVideoPacketAt: Date? { firstVideo.withLock { $0 } }

    func countVideo() {
        if video.add(1, ordering: .relaxed).newValue == 1 { firstVideo.withLock { $0 = $0 ?? Date() } }
    }
    func announce(video: Bool) { announced.store(video, ordering: .relaxed) }

    /// Why no picture came, in the user's terms, for a story whose time ran out.
    package var missingPictureReason: String {
        switch (stage, videoPackets, audioPackets) {
        case (.connecting, _, _): "the source never answered"
        case (_, 0, 0): "the server accepted the connection and sent nothing"
        case (_, 0, _): "only sound arrived"
        case (_, let packets, _): "\(packets) video packets arrived but none decoded to a picture"
        }
    }
}
