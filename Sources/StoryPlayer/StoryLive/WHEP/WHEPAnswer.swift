internal import CStoryWHEP
import StoryMedia

/// The WHEP server's SDP answer (the 201's body), read for what the WebRTC session must know
/// before webrtcbin takes it: which video codec the server picked, which decides the container
/// the session muxes into (MPEG-TS for H.264, Matroska for VP8) and so must be known before any
/// stream arrives, and the video m-line's payload types, which tell the jitter-depth probes the
/// video packets from the sound's. webrtcbin parses the whole answer itself (ICE credentials,
/// candidates, fingerprints) and refuses one it cannot use; this reads no more than that.
///
/// Read as RFC 8866 writes it: a line is `<type>=<value>`, ended by CRLF or a bare LF (some
/// servers write one or the other); a media section is an `m=` line and the lines after it.
struct WHEPAnswer: Equatable, Sendable {
    /// One media section: `m=<kind> <port> <transport> <payload type>...` and its `a=rtpmap`s.
    struct Media: Equatable, Sendable {
        var kind: String
        /// 0: the server rejected this section (RFC 8866 §5.14).
        var port: Int
        var transport: String
        var payloadTypes: [Int]
        /// `a=rtpmap:<payload type> <encoding>/<clock rate>`: each payload type's encoding name.
        var encodings: [Int: String] = [:]
    }

    enum VideoCodec: Equatable, Sendable {
        case h264, vp8
    }

    /// Every media section, in order.
    var media: [Media]
    /// The codec of the video section's first payload type (the server's choice).
    var videoCodec: VideoCodec
    /// Every payload type of the video section (its codec's, and its RTX's, FEC's...).
    var videoPayloadTypes: [Int]

    /// Reads `sdp`; throws (with the reason as the cause) when it is empty, accepts no video
    /// (no video m-line with a port and a payload type), or picked a codec other than H.264 or VP8.
    static func parse(_ sdp: String) throws(MediaError) -> WHEPAnswer {
        func refused(_ why: String) -> MediaError {
            MediaError(.open, "the WHEP endpoint's answer was refused", cause: why)
        }
        guard !sdp.isEmpty else { throw refused("the answer is empty") }
        let media = sections(of: sdp)
        guard let video = media.first(where: { $0.kind == "video" && $0.port != 0 && !$0.payloadTypes.isEmpty }),
              let first = video.payloadTypes.first, let encoding = video.encodings[first] else {
            throw refused("the answer accepts no video (no video m-line with a payload type)")
        }
        let codec: VideoCodec
        switch encoding.uppercased() {
        case "H264": codec = .h264
        case "VP8": codec = .vp8
        default: throw refused("the answer's video codec is neither H.264 nor VP8")
        }
        return WHEPAnswer(media: media, videoCodec: codec, videoPayloadTypes: video.payloadTypes)
    }

    /// The media sections of `sdp`; the session's lines before the first `m=` are skipped.
    static func sections(of sdp: String) -> [Media] {
        var media: [Media] = []
        // `isNewline`: CRLF is one Character in Swift, equal to neither "\r" nor "\n".
        for line in sdp.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("m=") {
                media.append(mediaLine(line.dropFirst(2)))
            } else if line.hasPrefix("a=rtpmap:"), !media.isEmpty, let (type, name) = rtpmap(line.dropFirst(9)) {
                media[media.count - 1].encodings[type] = name
            }
        }
        return media
    }

    /// `<kind> <port>[/<count>] <transport> <payload type>...`; a field that is no payload type
    /// (0-127) is left out, and an unreadable port reads as 0 (rejected).
    private static func mediaLine(_ value: Substring) -> Media {
        let fields = value.split(separator: " ")
        let port = fields.count > 1 ? fields[1].split(separator: "/").first.flatMap { Int($0) } ?? 0 : 0
        let types = fields.dropFirst(3).compactMap { Int($0) }.filter { (0..<128).contains($0) }
        return Media(kind: fields.first.map(String.init) ?? "", port: port,
                     transport: fields.count > 2 ? String(fields[2]) : "", payloadTypes: types)
    }

    /// `<payload type> <encoding>/<clock rate>[/<channels>]`.
    private static func rtpmap(_ value: Substring) -> (Int, String)? {
        let fields = value.split(separator: " ", maxSplits: 1)
        guard fields.count == 2, let type = Int(fields[0]), let name = fields[1].split(separator: "/").first else { return nil }
        return (type, String(name))
    }
}

extension WHEPAnswer {
    /// What `story_whep_answer` is told of the answer: the codec, and a 1 at each video payload type.
    var sessionVideo: story_whep_answer_video {
        var video = story_whep_answer_video()
        video.video_codec = Int32(videoCodec == .vp8 ? STORY_WHEP_CODEC_VP8 : STORY_WHEP_CODEC_H264)
        withUnsafeMutableBytes(of: &video.video_payload_types) { types in
            for type in videoPayloadTypes { types[type] = 1 }
        }
        return video
    }
}
