import Foundation
@testable import StoryLive
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// A live stream whose playlist or manifest lists pieces its server answers 404 for (an origin or
/// CDN that lost them): the story fails with the status and the piece's URL, the piece is asked
/// for again on a backoff (`PieceRetries`), not every few hundredths of a second with a reload
/// each time, and no `opened` is traced before any of its media came. Against `ll_origin.py`
/// on 127.0.0.1, whose request log is how the test counts what the player asked for.
final class MissingLivePiecesTests: LiveServerTestCase {
    /// A live story of `seconds` on the storyboard's default timeouts (open 8 s, read 10 s, 3
    /// reconnects), as a new user's board has them.
    func board(_ url: String, seconds: Double) throws -> Storyboard {
        try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": \(seconds), "clock": "virtual",
         "stories": [{"id": "live", "items": [{"uri": "\(url)", "live": true, "duration": \(seconds)}]}]}
        """, folder: servers.folder.path)
    }

    /// The origin's GETs of media pieces (paths `piece` matches), in order (a DASH publisher's
    /// uploads to the same paths are not counted).
    func pieceRequests(_ origin: LowLatencyOrigin, matching piece: String) -> [(path: String, t: Double, status: Int)] {
        origin.requests().compactMap { request in
            guard request["method"] as? String == "GET", let path = request["path"] as? String, path.range(of: piece, options: .regularExpression) != nil,
                  let t = request["t"] as? Double, let status = request["status"] as? Int else { return nil }
            return (path, t, status)
        }
    }

    /// Renders `board`; the story must fail once, with `expected` in its reason, and trace no
    /// `opened` (nothing of the stream's media ever came). Returns the failure's reason.
    func assertFailsWithoutOpening(_ board: Storyboard, expected: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let (_, events, _) = try render(board, threads: 1)
        let failed = events.of(.failed)
        XCTAssertEqual(failed.count, 1, "\(events.map(\.jsonLine))", file: file, line: line)
        let reason = failed.first?.error ?? "none"
        XCTAssertTrue(reason.contains(expected), "the reason names the status: \(reason)", file: file, line: line)
        XCTAssertEqual(events.of(.opened).map(\.jsonLine), [], "opened before any media came: \(reason)", file: file, line: line)
        XCTAssertEqual(events.of(.firstFrame), [], file: file, line: line)
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [], file: file, line: line)
        return reason
    }

    /// Checks the origin's requests of media pieces against the backoff (`PieceRetries`, first
    /// wait `first`): at most its tries in all (the failed open is not reconnected), each piece
    /// at most `passOverAfter` times, and each retry no sooner than its wait. Only lower bounds
    /// on the gaps: a sleep is never shorter, however busy the machine.
    func assertBackedOff(_ pieces: [(path: String, t: Double, status: Int)], first: Double, file: StaticString = #filePath, line: UInt = #line) {
        let schedule = PieceRetries(pieces: "", first: first)
        let list = pieces.map { String(format: "%@ %.2f", $0.path, $0.t - (pieces.first?.t ?? 0)) }
        XCTAssertFalse(pieces.isEmpty, file: file, line: line)
        XCTAssertTrue(pieces.allSatisfy { $0.status == 404 }, "\(list)", file: file, line: line)
        XCTAssertLessThanOrEqual(pieces.count, PieceRetries.retries + 1, "tries in all: \(list)", file: file, line: line)
        let most = Dictionary(grouping: pieces, by: \.path).values.map(\.count).max() ?? 0
        XCTAssertLessThanOrEqual(most, PieceRetries.passOverAfter, "tries of one piece: \(list)", file: file, line: line)
        // 20 ms for the log's rounding of arrival times to milliseconds, and the clocks' grain.
        let early = pieces.indices.dropFirst().filter { pieces[$0].t - pieces[$0 - 1].t < schedule.delay(retry: $0) - 0.02 }
        XCTAssertEqual(early, [], "retries sooner than their wait: \(list)", file: file, line: line)
    }

    /// Every part and segment of a Low-Latency HLS playlist answers 404: the play gives up on
    /// the backoff's last try, 6-7 s in (the open timeout is 8 s), and fails with the status.
    /// Before, the part was asked for every 0.18 s with a reload each time (46 requests in 8 s,
    /// 10 of one part), `opened` was traced at the open timeout with no part fetched, and the
    /// story never failed.
    func testLowLatencyHLSWhosePartsAnswer404FailsWithTheStatus() throws {
        let origin = try servers.lowLatencyHLS(missing: "^/seg")
        let playlist = try XCTUnwrap(PlaylistWatch.fetch(origin.url, gate: InterruptGate(), timeout: 5))
        let reason = try assertFailsWithoutOpening(board(origin.url, seconds: 14), expected: "HTTP 404 Not Found")
        XCTAssertNotNil(reason.range(of: #"/seg\d+(\.\d+)?\.m4s answered HTTP 404 Not Found"#, options: .regularExpression),
                        "the reason names the part: \(reason)")
        let pieces = pieceRequests(origin, matching: #"^/seg\d+(\.\d+)?\.m4s$"#)
        print("LL-HLS parts answering 404: \(pieces.count) requests; \(reason)")
        assertBackedOff(pieces, first: try XCTUnwrap(playlist.partTarget))
    }

    /// The same for low-latency DASH whose media segments answer 404 (the initialization
    /// segments are there): the segment is asked for on the same backoff, from a chunk's
    /// duration (ffmpeg's 1 s segments of 0.2 s chunks), and the story fails with the status.
    /// Before, it was asked for every 0.1 s with a manifest read each time (74-76 requests in
    /// 8 s, 10 of one segment), and `opened` was traced at the open timeout with nothing fetched.
    func testDASHWhoseSegmentsAnswer404FailsWithTheStatus() throws {
        let origin = try servers.lowLatencyDASH(missing: "/chunk-stream")
        let manifest = try XCTUnwrap(DASHManifest(text: String(decoding: FeedPageStream.download(origin.url, timeout: 5, limit: 1 << 20),
                                                                as: UTF8.self)))
        let first = DASHSegmentFeed.firstRetryWait(try XCTUnwrap(manifest.video), manifest: manifest, clockOffset: 0)
        XCTAssertEqual(first, 0.2, accuracy: 0.01, "a chunk of ffmpeg's low-latency DASH")
        let reason = try assertFailsWithoutOpening(board(origin.url, seconds: 14), expected: "HTTP 404 Not Found")
        XCTAssertNotNil(reason.range(of: #"chunk-stream0-\d+\.m4s answered HTTP 404 Not Found"#, options: .regularExpression),
                        "the reason names the video segment: \(reason)")
        let pieces = pieceRequests(origin, matching: #"/chunk-stream0-\d+\.m4s$"#)
        print("DASH segments answering 404: \(pieces.count) requests; \(reason)")
        assertBackedOff(pieces, first: first)
    }

    /// Plain HLS (no parts) is read by FFmpeg's demuxer, which asks for each segment once and
    /// passes over one it cannot open: its requests need no backoff, but its open timed out
    /// saying only "no answer within 8 s". The timeout now says what the segments answered.
    func testPlainHLSWhoseSegmentsAnswer404SaysSoWhenItsOpenTimesOut() throws {
        let origin = try servers.lowLatencyHLS(plain: true, missing: "^/seg")
        let reason = try assertFailsWithoutOpening(board(origin.url, seconds: 14), expected: "HTTP 404 Not Found")
        XCTAssertNotNil(reason.range(of: #"no answer within 8 s opening .*: the last asked for was .*/seg\d+\.m4s\)$"#,
                                     options: .regularExpression), reason)
        let pieces = pieceRequests(origin, matching: #"^/seg\d+\.m4s$"#)
        print("plain HLS segments answering 404: \(pieces.count) requests; \(reason)")
        XCTAssertEqual(Dictionary(grouping: pieces, by: \.path).values.map(\.count).max(), 1, "each segment asked for once: \(pieces)")
    }
}
