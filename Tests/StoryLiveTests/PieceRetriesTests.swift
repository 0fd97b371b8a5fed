import Foundation
@testable import StoryLive
@testable import StoryMedia
import StoryPlayerTestSupport
import XCTest

/// The backoff a live feed asks again on for a piece its list names but its server did not give
/// (`PieceRetries`), and when it gives up, on made-up clocks: no sleeping, no server.
final class PieceRetriesTests: XCTestCase {
    /// `AVERROR_HTTP_NOT_FOUND` (`FFERRTAG(0xF8, '4', '0', '4')`), as FFmpeg's HTTP protocol
    /// returns it for a 404.
    static let notFound: Int32 = -(0xF8 | 0x34 << 8 | 0x30 << 16 | 0x34 << 24)
    let missing = MediaError(.open, "cannot open http://cdn.example/seg7.2.m4s", cause: FFmpegError(PieceRetriesTests.notFound))

    func testFFmpegsHTTPCodesAreSaidAsTheirStatus() {
        XCTAssertEqual(FFmpegError(PieceRetriesTests.notFound).message, "Server returned 404 Not Found", "the code is FFmpeg's")
        XCTAssertEqual(missing.httpStatus, "HTTP 404 Not Found")
        XCTAssertNil(MediaError(.open, "cannot open x", averror: -5).httpStatus, "EIO is no HTTP status")
    }

    func testTheWaitDoublesFromThePieceLengthToFourTimesIt() {
        let retries = PieceRetries(pieces: "LL-HLS parts", first: 1.0 / 3)
        let waits = (1...7).map { retries.delay(retry: $0) }
        let expected: [Double] = [1, 2, 4, 4, 4, 4, 4].map { $0 / 3 }
        for (wait, want) in zip(waits, expected) { XCTAssertEqual(wait, want, accuracy: 1e-9, "\(waits)") }
        // A playlist's own figure, bounded both ways: never a busy loop, never minutes.
        XCTAssertEqual(PieceRetries(pieces: "", first: 0).first, 0.05)
        XCTAssertEqual(PieceRetries(pieces: "", first: 3600).first, 10)
    }

    /// Six retries, then the last failure, with the URL and the status in the user's words.
    func testItGivesUpAfterSixRetriesSayingWhatTheServerAnswered() throws {
        var retries = PieceRetries(pieces: "LL-HLS parts", first: 0.5)
        var now = 100.0
        for n in 1...PieceRetries.retries {
            guard case .retry(let wait) = retries.failed("http://cdn.example/seg7.\(n).m4s", error: missing, secondsLeft: nil, now: now) else {
                return XCTFail("retry \(n) was not given")
            }
            now += wait
        }
        guard case .giveUp(let failure) = retries.failed("http://cdn.example/seg7.9.m4s", error: missing, secondsLeft: nil, now: now) else {
            return XCTFail("the seventh failure in a row gives up")
        }
        XCTAssertEqual(failure.code, .read)
        XCTAssertEqual(failure.description, "gave up on the LL-HLS parts after 7 failed fetches in 9.5 s: "
                       + "http://cdn.example/seg7.9.m4s answered HTTP 404 Not Found")
    }

    /// A piece that came starts the schedule again; one that failed three times is passed over,
    /// and passing over does not.
    func testAPieceThatCameStartsTheScheduleAgainAndAPassedOverOneDoesNot() {
        var retries = PieceRetries(pieces: "DASH segments", first: 1)
        XCTAssertEqual(retries.failed("a", error: missing, secondsLeft: nil, now: 0), .retry(after: 1))
        XCTAssertEqual(retries.failed("a", error: missing, secondsLeft: nil, now: 1), .retry(after: 2))
        XCTAssertFalse(retries.passesOver)
        XCTAssertEqual(retries.failed("a", error: missing, secondsLeft: nil, now: 3), .retry(after: 4))
        XCTAssertTrue(retries.passesOver, "three failures of one piece")
        retries.passedOver()
        XCTAssertFalse(retries.passesOver)
        XCTAssertEqual(retries.failed("b", error: missing, secondsLeft: nil, now: 7), .retry(after: 4), "the schedule goes on")
        retries.arrived()
        XCTAssertEqual(retries.failed("c", error: missing, secondsLeft: nil, now: 20), .retry(after: 1), "and starts again")
    }

    /// A wait that would outlast the call the feed serves gives up now, with the status, rather
    /// than leave the gate to time out with nothing to say.
    func testItGivesUpBeforeTheGatesDeadline() {
        var retries = PieceRetries(pieces: "LL-HLS parts", first: 1)
        XCTAssertEqual(retries.failed("a", error: missing, secondsLeft: 8, now: 0), .retry(after: 1))
        XCTAssertEqual(retries.failed("a", error: missing, secondsLeft: 7, now: 1), .retry(after: 2))
        guard case .giveUp(let failure) = retries.failed("a", error: missing, secondsLeft: 4.4, now: 3) else {
            return XCTFail("a 4 s wait with 4.4 s left gives up")
        }
        XCTAssertTrue(failure.description.hasSuffix("after 3 failed fetches in 3.0 s: a answered HTTP 404 Not Found"), failure.description)
    }

    /// Another failure (no HTTP status) is kept as it was said.
    func testAFailureWithoutAStatusKeepsItsOwnWords() {
        var retries = PieceRetries(pieces: "LL-HLS parts", first: 1)
        let refused = MediaError(.open, "cannot open http://cdn.example/x.m4s", cause: "Connection refused")
        guard case .giveUp(let failure) = retries.failed("http://cdn.example/x.m4s", error: refused, secondsLeft: 0, now: 0) else {
            return XCTFail("no time left")
        }
        XCTAssertEqual(failure.cause as? MediaError, refused)
    }
}
