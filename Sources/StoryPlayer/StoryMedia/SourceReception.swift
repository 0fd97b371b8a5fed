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
    package enum Stage: Int, Sendable, Comparable {
        /// `avformat_open_input` has not returned yet.
        case connecting
        /// The protocol and container answered; stream information is being read.
        case answered
        /// Streams are known; packets are being read.
        case reading

        package static func < (a: Stage, b: Stage) -> Bool { a.rawValue < b.rawValue }
    }

    private let stageValue = Atomic<Int>(Stage.connecting.rawValue)
    private let audio = Atomic<Int>(0)
    private let video = Atomic<Int>(0)
    private let announced = Atomic<Bool>(false)
    private let firstVideo = Mutex<Date?>(nil)
    /// What the video decoder said of the packets before its first picture.
    private let decoding = Mutex<(codec: String?, setsSeen: Bool, keyframes: Int, lastMessage: String?)>((nil, false, 0, nil))

    var stage: Stage { Stage(rawValue: stageValue.load(ordering: .acquiring)) ?? .connecting }
    /// Audio packets read, on every connection of this play.
    package var audioPackets: Int { audio.load(ordering: .relaxed) }
    /// Packets of the shown video stream read, on every connection of this play.
    package var videoPackets: Int { video.load(ordering: .relaxed) }

    /// Whether the current connection's container announces a video track before any of its
    /// packets came (`FormatContext.announcesVideo`).
    package var announcesVideo: Bool { announced.load(ordering: .relaxed) }

    package init() {}

    package func reached(_ stage: Stage) { stageValue.store(stage.rawValue, ordering: .releasing) }
    package func countAudio() { audio.add(1, ordering: .relaxed) }
    /// When this play's first video packet came: a source that sent sound first may send its
    /// video long after opening.
    package var firstVideoPacketAt: Date? { firstVideo.withLock { $0 } }

    func countVideo() {
        if video.add(1, ordering: .relaxed).newValue == 1 { firstVideo.withLock { $0 = $0 ?? Date() } }
    }
    func announce(video: Bool) { announced.store(video, ordering: .relaxed) }

    /// The video's codec (FFmpeg's name), and what one of its packets before the first picture
    /// held (`VideoParameterSets`): its parameter sets (or the container's extradata had them),
    /// a keyframe.
    func noteVideo(codec: String, found: VideoParameterSets.Found) {
        decoding.withLock { state in
            state.codec = codec
            if found.sequenceParameterSet { state.setsSeen = true }
            if found.keyframe { state.keyframes += 1 }
        }
    }

    /// The decoder's last complaint (FFmpeg's words) before the first picture.
    func noteDecoder(message: String) { decoding.withLock { $0.lastMessage = message } }

    /// Why video that arrived never gave a picture, for the failure ("no decodable picture:
    /// …"): parameter sets that never came, or what the decoder said. `span` says over what
    /// time, as "in the 8 s since opening".
    package func undecodableReason(span: String? = nil) -> String {
        let (codec, setsSeen, keyframes, message) = decoding.withLock { ($0.codec, $0.setsSeen, $0.keyframes, $0.lastMessage) }
        let said = message.map { "; FFmpeg: \($0)" } ?? ""
        let when = span.map { " \($0)" } ?? ""
        let keyframesSeen = keyframes > 0 ? "\(keyframes) of them keyframes" : "no keyframe among them"
        if let codec, VideoParameterSets.reads(codec: codec), !setsSeen {
            // Without a keyframe either, the sets may yet come with one (a long GOP joined
            // late): said, not assumed away. GStreamer's x264enc sent no keyframe a late SRT
            // viewer could see in 3 s, and its h264parse no sets at all.
            let name = codec == "h264" ? "H.264" : "HEVC"
            let or = keyframes > 0 ? "" : ", or its keyframes are further apart than this"
            return "missing parameter sets (\(videoPackets) \(name) packets\(when), \(keyframesSeen), none with a sequence "
                + "parameter set: the publisher sends them only at its start\(or); GStreamer's h264parse "
                + "config-interval=-1 sends them with every keyframe\(said))"
        }
        return "\(videoPackets) video packets arrived\(when) (\(keyframesSeen)) but none decoded to a picture\(said)"
    }

    /// Why no picture came, in the user's terms, for a story whose time ran out.
    package var missingPictureReason: String {
        switch (stage, videoPackets, audioPackets) {
        case (.connecting, _, _): "the source never answered"
        case (_, 0, 0): "the server accepted the connection and sent nothing"
        case (_, 0, _): "only sound arrived"
        default: undecodableReason()
        }
    }
}
