import Compositor
@testable import StoryMedia
@testable import StoryModel
import StoryPlayerTestSupport
import XCTest

/// How a stream that never gives a picture ends: with the decoder's reason, never quietly.
final class DecoderEndTests: XCTestCase {
    /// With frame threads the PNG decoder accepts a 16000x16000 picture's packet and refuses it
    /// only when drained at the end of the file; that refusal must still fail the decode. (A
    /// still now opens on one thread whatever is asked, but a video decoder with frame threads
    /// refuses the same way, and so do the poster's early drain and the end of a file.)
    func testARefusalAtTheDrainFailsTheDecode() throws {
        let folder = ScratchFolder()
        folder.write("huge.png", HugePNG.bytes(width: 16000, height: 16000))
        for threads in [1, 2] {
            var limits = DecodeLimits()
            limits.decoderThreads = threads
            let decoder = try MediaDecoder(source: MediaSource(uri: folder.file("huge.png"), relativeTo: "/"), limits: limits)
            defer { decoder.close() }
            XCTAssertThrowsError(try decoder.nextPicture(), "\(threads) threads") { error in
                XCTAssertTrue("\(error)".contains("16000x16000"), "\(threads) threads: \(error)")
            }
            // A poster reads the keyframe alone and drains at once: the same refusal, the same reason.
            let poster = try MediaDecoder(source: MediaSource(uri: folder.file("huge.png"), relativeTo: "/"), limits: limits)
            defer { poster.close() }
            XCTAssertThrowsError(try poster.firstPicture(), "\(threads) threads") { error in
                XCTAssertTrue("\(error)".contains("16000x16000"), "poster, \(threads) threads: \(error)")
            }
        }
    }
}
