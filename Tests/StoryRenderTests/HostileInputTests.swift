import Foundation
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// Seeded mutations of good inputs: whatever a storyboard or a media file holds, the program
/// answers with a result or an error, never a trap or a hang. The seeds are fixed, so a failure
/// here reproduces; the CLI was fuzzed the same way with a few hundred more cases.
final class HostileInputTests: XCTestCase {
    // MARK: - Storyboards

    /// Values no storyboard should hold, put where any value of the demo stands.
    static let hostileValues = ["0", "-1", "1e-9", "1.5", "1e300", "-1e300", "15", "241", "8193", "86401",
                                "\"\"", "\"x\"", "null", "true", "[]", "{}", "[1e300]"]

    func testMutatedStoryboardsParseOrNameAPath() throws {
        let demo = try String(contentsOfFile: Fixture.sample("demo.json"), encoding: .utf8)
        // Values, not keys: a scalar after ':', '[' or ',' that no ':' follows.
        let values = try NSRegularExpression(pattern: #"(?<=[:\[,])\s*(-?[0-9][0-9.eE+-]*|"[^"]*"|true|false|null)(?!\s*:)"#)
        let spans = values.matches(in: demo, range: NSRange(demo.startIndex..., in: demo)).map { $0.range(at: 1) }
        XCTAssertGreaterThan(spans.count, 50, "the demo's values were found")
        var random = SplitMix64(seed: 7)
        var parsed = 0, rejected = 0
        for round in 0..<300 {
            let text = NSMutableString(string: demo)
            let picks = (0..<Int.random(in: 1...3, using: &random)).map { _ in spans.randomElement(using: &random)! }
            for span in Set(picks.map { $0.location }).sorted(by: >) {
                let range = picks.first { $0.location == span }!
                text.replaceCharacters(in: range, with: Self.hostileValues.randomElement(using: &random)!)
            }
            do {
                let board = try Storyboard.parse(text as String, folder: Fixture.sample(""))
                parsed += 1
                let (summary, events, _) = try render(board.overriding(width: 36, height: 64, fps: 5, duration: 0.6))
                XCTAssertEqual(summary.frames, 3, "round \(round)")
                XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [], "round \(round)")
            } catch let error as StoryboardError {
                rejected += 1
                XCTAssertFalse(error.message.isEmpty, "round \(round)")
            }
        }
        XCTAssertGreaterThan(parsed, 5, "some mutations are still valid storyboards, and render")
        XCTAssertGreaterThan(rejected, 200, "most are not")
    }

    // MARK: - Media

    /// A story whose video had bytes flipped, zeroed or cut off either plays what it can or fails
    /// with the error card; the render always delivers every frame and a clean lifecycle.
    func testCorruptedVideosPlayOrFailAndTheRenderGoesOn() throws {
        let good = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixture.path("counter.mp4"))))
        var random = SplitMix64(seed: 11)
        let folder = ScratchFolder()
        var failures = 0
        for round in 0..<40 {
            var bytes = good
            switch round % 3 {
            case 0:
                for _ in 0..<Int.random(in: 1...40, using: &random) {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
            case 1:
                bytes.removeLast(Int.random(in: 1..<bytes.count, using: &random))
            default:
                let start = Int.random(in: 0..<bytes.count, using: &random)
                let end = min(bytes.count, start + Int.random(in: 1...600, using: &random))
                for i in start..<end { bytes[i] = 0 }
            }
            let name = "broken-\(round).mp4"
            folder.write(name, bytes)
            let board = try Storyboard.parse("""
            {"canvas": {"width": 36, "height": 64, "fps": 10}, "duration": 1.2,
             "stories": [{"id": "broken", "items": [{"uri": "\(name)"}]},
                         {"id": "good", "items": [{"uri": "\(Fixture.path("counter.mp4"))"}]}],
             "script": [{"at": 0.5, "action": "swipe", "direction": "next"}]}
            """, folder: folder.path)
            let (summary, events, _) = try render(board)
            XCTAssertEqual(summary.frames, 12, "round \(round): the render goes on")
            XCTAssertEqual(events.of(.firstFrame, story: "good").count, 1, "round \(round): the next story plays")
            XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [], "round \(round)")
            failures += summary.failedStories.count
        }
        XCTAssertGreaterThan(failures, 5, "some corruptions are fatal to the story, and were reported")
    }
}
