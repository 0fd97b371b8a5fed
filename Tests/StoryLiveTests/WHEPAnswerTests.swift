internal import CStoryWHEP
@testable import StoryLive
import StoryMedia
import XCTest

/// The WHEP server's SDP answer read as servers write it (pure: no server): the video codec
/// the server picked and the video m-line's payload types, which the WebRTC session needs
/// before webrtcbin takes the answer.
final class WHEPAnswerTests: XCTestCase {
    /// An answer as aiortc and webrtcbin write one: a session part, then sound before video, each
    /// with its candidates and fingerprint; the video section takes H.264 (102) and its RTX (103).
    private let answer = """
        v=0
        o=- 3912345678 3912345678 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=msid-semantic:WMS *
        m=audio 54321 UDP/TLS/RTP/SAVPF 111
        c=IN IP4 127.0.0.1
        a=mid:0
        a=rtpmap:111 opus/48000/2
        a=candidate:1 1 UDP 2130706431 127.0.0.1 54321 typ host
        a=fingerprint:sha-256 AB:CD:EF
        m=video 54321 UDP/TLS/RTP/SAVPF 102 103
        c=IN IP4 127.0.0.1
        a=mid:1
        a=rtpmap:102 H264/90000
        a=fmtp:102 packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:103 rtx/90000
        a=fmtp:103 apt=102
        a=candidate:1 1 UDP 2130706431 127.0.0.1 54321 typ host
        a=fingerprint:sha-256 AB:CD:EF
        """

    func testTheVideoSectionsCodecAndPayloadTypesAreRead() throws {
        let parsed = try WHEPAnswer.parse(answer.replacingOccurrences(of: "\n", with: "\r\n"))
        XCTAssertEqual(parsed.videoCodec, .h264)
        XCTAssertEqual(parsed.videoPayloadTypes, [102, 103], "the RTX payload type too, for the depth probes")
        XCTAssertEqual(parsed.media.map(\.kind), ["audio", "video"])
        XCTAssertEqual(parsed.media[0], WHEPAnswer.Media(kind: "audio", port: 54321, transport: "UDP/TLS/RTP/SAVPF",
                                                         payloadTypes: [111], encodings: [111: "opus"]))
        XCTAssertEqual(parsed.media[1].encodings, [102: "H264", 103: "rtx"], "each section keeps its own rtpmaps")
    }

    func testBareLineFeedsReadAsCRLFs() throws {
        XCTAssertEqual(try WHEPAnswer.parse(answer), try WHEPAnswer.parse(answer.replacingOccurrences(of: "\n", with: "\r\n")))
    }

    /// The codec is the first payload type's, whatever the others are (VP8 chosen, H.264 kept
    /// second); the name is read without regard to case.
    func testTheFirstPayloadTypeDecidesTheCodec() throws {
        let vp8 = answer.replacingOccurrences(of: "SAVPF 102 103", with: "SAVPF 96 102 103")
            .replacingOccurrences(of: "a=rtpmap:102 H264/90000", with: "a=rtpmap:96 vp8/90000\na=rtpmap:102 H264/90000")
        let parsed = try WHEPAnswer.parse(vp8)
        XCTAssertEqual(parsed.videoCodec, .vp8)
        XCTAssertEqual(parsed.videoPayloadTypes, [96, 102, 103])
    }

    /// A video section the server rejected (port 0) is passed over for the next one.
    func testARejectedVideoSectionIsPassedOver() throws {
        let rejected = "v=0\nm=video 0 UDP/TLS/RTP/SAVPF 96\na=rtpmap:96 VP8/90000\n"
        let parsed = try WHEPAnswer.parse(rejected + answer)
        XCTAssertEqual(parsed.videoCodec, .h264)
        XCTAssertEqual(parsed.videoPayloadTypes, [102, 103])
        XCTAssertEqual(parsed.media.first?.port, 0)
    }

    func testAnAnswerWithoutUsableVideoIsRefusedWithItsReason() {
        let audioOnly = answer.components(separatedBy: "m=video")[0]
        assertRefused("", because: "the answer is empty")
        assertRefused(audioOnly, because: "the answer accepts no video (no video m-line with a payload type)")
        assertRefused(answer.replacingOccurrences(of: "m=video 54321", with: "m=video 0"),
                      because: "the answer accepts no video (no video m-line with a payload type)")
        assertRefused(answer.replacingOccurrences(of: "a=rtpmap:102 H264/90000", with: ""),
                      because: "the answer accepts no video (no video m-line with a payload type)")
        assertRefused(answer.replacingOccurrences(of: "H264/90000", with: "AV1/90000"),
                      because: "the answer's video codec is neither H.264 nor VP8")
        assertRefused("<html>not found</html>", because: "the answer accepts no video (no video m-line with a payload type)")
    }

    /// Fields that are no payload type (0-127) are left out rather than read as 0.
    func testFieldsThatAreNoPayloadTypeAreLeftOut() throws {
        let odd = answer.replacingOccurrences(of: "SAVPF 102 103", with: "SAVPF 102 x 300 103 ")
        XCTAssertEqual(try WHEPAnswer.parse(odd).videoPayloadTypes, [102, 103])
    }

    /// What the C session is told: the codec, and exactly the video section's payload types.
    func testTheSessionIsToldTheCodecAndTheVideoPayloadTypes() throws {
        let video = try WHEPAnswer.parse(answer).sessionVideo
        XCTAssertEqual(video.video_codec, Int32(STORY_WHEP_CODEC_H264))
        let marked = withUnsafeBytes(of: video.video_payload_types) { types in types.indices.filter { types[$0] != 0 } }
        XCTAssertEqual(marked, [102, 103], "not the sound's 111")
    }

    private func assertRefused(_ sdp: String, because reason: String, line: UInt = #line) {
        XCTAssertThrowsError(try WHEPAnswer.parse(sdp), line: line) { error in
            let error = error as? MediaError
            XCTAssertEqual(error?.message, "the WHEP endpoint's answer was refused", line: line)
            XCTAssertEqual(error.flatMap { $0.cause.map { "\($0)" } }, reason, line: line)
        }
    }
}
