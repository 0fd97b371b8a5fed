internal import CFFmpeg
import Foundation
import Compositor
import StoryModel

/// What the source is, as opened and decoded so far.
extension MediaDecoder {
    /// The demuxer's name, e.g. "hls".
    package var formatName: String { format?.formatName ?? "heif" }

    /// Whether the video stream is known yet (a cover art's is not video: see `isSoundOnly`).
    var hasVideo: Bool { (track != nil && !isSoundOnly) || photoFacts != nil }
    /// The video stream's duration in seconds, when the container says; a trimmed video's is
    /// the length of its cut.
    package var duration: Double? {
        // A cover art's stream lasts one picture; the sound is what lasts.
        let whole = isSoundOnly ? format?.duration : track?.duration ?? format?.duration
        guard let trim else { return whole }
        return trim.length(ofFileLasting: whole)
    }

    /// Whether its pictures start mid-file (a trim with an `in`): a play seeks there first.
    package var startsMidFile: Bool { (trim?.start ?? 0) > 0 }

    /// A trim that starts at or after the file's end shows nothing: say so, with both numbers,
    /// rather than play an item of no length.
    func checkTrimFits(_ source: MediaSource) throws(MediaError) {
        guard let trim, let whole = isSoundOnly ? format?.duration : track?.duration ?? format?.duration,
              trim.start >= whole else { return }
        throw MediaError(.seek, "\"in\" \(ObjectReader.format(trim.start)) s is past the end of \(source), which lasts \(ObjectReader.format(whole)) s")
    }
    /// The video's keyframes in media seconds, in order, as the container's index lists them
    /// (`FormatContext.keyframeTimes`): `seek(to:)` lands on the last one at or before the time
    /// it is given. Empty for a photo, a live stream, and a container whose index cannot say
    /// (MPEG-TS, Matroska at opening, a clip cut by an edit list).
    package var keyframeTimes: [Double] {
        guard let track, let format, !closed, !isStill, !isSoundOnly else { return [] }
        let shift = trim?.start ?? 0
        return format.keyframeTimes(ofStream: track.index).map { $0 - shift }.sorted()
    }
    var quarterTurns: Int { orientation.quarterTurns }
    /// How the shown picture is put upright: the first decoded picture's orientation (a
    /// photo's EXIF), else the stream's display matrix.
    var orientation: PictureOrientation { firstOrientation ?? track?.orientation ?? .upright }
    var codecName: String { photoFacts?.codec ?? track?.codecName ?? "none" }
    var codedWidth: Int { photoFacts?.width ?? track.flatMap { $0.codec.width > 0 ? $0.codec.width : nil } ?? track?.codedWidth ?? 0 }
    var codedHeight: Int { photoFacts?.height ?? track.flatMap { $0.codec.height > 0 ? $0.codec.height : nil } ?? track?.codedHeight ?? 0 }
    var sampleAspectRatio: Double { track?.sampleAspectRatio ?? 1 }
    /// The video stream's first timestamp in seconds: a picture's `time` plus this is its
    /// timestamp as the source wrote it.
    package var videoStartSeconds: Double { track.map { Double($0.timeline.start) * $0.timeline.unit } ?? 0 }
    /// Frames per second as the stream declares it; 0 when unknown.
    package var frameRate: Double { track?.frameRate ?? 0 }
    /// The shown stream's transfer and primaries (`probe`): the decoder's once it has decoded,
    /// else the container's.
    var colour: VideoColour {
        if let photoFacts { return photoFacts.colour }
        guard let track, let stream = format?.description(ofStream: track.index) else { return VideoColour() }
        return VideoColour(decoder: track.codec, stream: stream)
    }
    /// Seconds to add to the pictures' time to find the same moment in the item's sound
    /// (`ItemAudio`, timed from its own stream's first timestamp).
    package var soundOffset: Double {
        guard let format, let track, !isSoundOnly else { return 0 }
        let index = format.bestStream(AVMEDIA_TYPE_AUDIO)
        guard index >= 0, let audio = format.description(ofStream: index) else { return 0 }
        return track.timeline.startSeconds - audio.timeline.startSeconds
    }

    /// The URLs a live HLS demuxer opened so far, in order (its playlist, then its segments).
    package var openedURLs: [String] { format?.openedURLs ?? [] }

    /// Every audio and video stream of the source, as the container describes it now.
    var streams: [StreamFacts] {
        if let photoFacts { return [.video(index: 0, codec: photoFacts.codec, width: photoFacts.width, height: photoFacts.height, fps: 0)] }
        guard let format else { return [] }
        return format.streams.compactMap { stream in
            let i = Int(stream.index)
            switch stream.type {
            case AVMEDIA_TYPE_VIDEO where stream.index == track?.index:
                return .video(index: i, codec: stream.codecName, width: codedWidth, height: codedHeight, fps: frameRate)
            case AVMEDIA_TYPE_VIDEO:
                return .video(index: i, codec: stream.codecName, width: stream.width, height: stream.height, fps: 0)
            case AVMEDIA_TYPE_AUDIO:
                return .audio(index: i, codec: stream.codecName, channels: stream.channels, sampleRate: stream.sampleRate)
            default:
                return nil
            }
        }
    }
}

/// One stream of a source, as `probe` lists it.
public enum StreamFacts: Sendable, Equatable {
    case video(index: Int, codec: String, width: Int, height: Int, fps: Double)
    case audio(index: Int, codec: String, channels: Int, sampleRate: Int)
}
