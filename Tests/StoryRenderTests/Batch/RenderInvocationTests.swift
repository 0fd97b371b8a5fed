import Foundation
import StoryEncode
import StoryMedia
import StoryModel
import StoryPlayback
import StoryRender
import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// `RenderInvocation`: the arguments of one `render-stories render` that a batch's row or the
/// studio's Render button starts, and what its exit status means.
final class RenderInvocationTests: XCTestCase {
    func testArgumentsPutTheValuesInTheirNamesOrderBetweenTheOptions() {
        let invocation = RenderInvocation(storyboard: "board.json", output: "out/0001", options: ["--quiet", "--mp4", "out/0001/a.mp4"],
                                          values: ["lang": "fr", "length": "1.5"], closingOptions: ["--size", "90x160"])
        XCTAssertEqual(invocation.arguments, ["render", "board.json", "--output", "out/0001", "--quiet", "--mp4", "out/0001/a.mp4",
                                              "--set", "lang=fr", "--set", "length=1.5", "--size", "90x160"])
    }

    func testEveryFileAnOptionNamesIsPutIntoTheRowsFolderWhicheverWayItIsWritten() {
        let placed = RenderInvocation.placingFiles(of: ["--mp4", "clip.mp4", "--preset", "reels", "--gif=a.gif", "--contact-sheet", "sheet.png",
                                                        "--timeline=lanes.png", "--set", "lang=fr"], in: "out/B_2")
        XCTAssertEqual(placed.options, ["--mp4", "out/B_2/clip.mp4", "--preset", "reels", "--gif", "out/B_2/a.gif",
                                        "--contact-sheet", "out/B_2/sheet.png", "--timeline", "out/B_2/lanes.png", "--set", "lang=fr"])
        XCTAssertEqual(placed.files, ["out/B_2/clip.mp4", "out/B_2/a.gif", "out/B_2/sheet.png", "out/B_2/lanes.png"])
        // A file option without its value is left for render to refuse, not read past the end.
        XCTAssertEqual(RenderInvocation.placingFiles(of: ["--webm"], in: "out").options, ["--webm"])
    }

    /// The list is kept in one place: a clip format render can write is a file a row places.
    func testEveryClipFormatsFlagNamesAFile() {
        for format in ExportFormat.allCases {
            XCTAssertTrue(RenderInvocation.fileOptions.contains(format.flag), format.flag)
        }
        XCTAssertEqual(Set(RenderInvocation.fileOptions), ["--mp4", "--webm", "--mov", "--gif", "--webp", "--apng", "--contact-sheet", "--timeline"])
    }

    func testExitStatusesMeanWhatTheHelpSays() {
        typealias Exit = RenderInvocation.Exit
        XCTAssertEqual(Exit(status: 0), .done)
        XCTAssertEqual(Exit(status: 3), .doneWithFailedStories)
        XCTAssertEqual(Exit(status: 1), .outputError)
        XCTAssertEqual(Exit(status: 2), .usage)
        XCTAssertEqual(Exit(status: 128 + SIGINT), .interrupted(signal: SIGINT))
        XCTAssertEqual(Exit(status: 128 + SIGTERM), .interrupted(signal: SIGTERM))
        XCTAssertEqual(Exit(status: 137), .other(137))
        XCTAssertEqual([0, 3, 1, 2, 130, 143, 137].map { Exit(status: $0).rendered }, [true, true, false, false, false, false, false])
        for status: Int32 in [0, 1, 2, 3, 130, 143, 137] { XCTAssertEqual(Exit(status: status).status, status) }
        // A render a signal ended (a crash, SIGQUIT's 3) wrote nothing whole, whatever the number.
        XCTAssertEqual(Exit(status: SIGQUIT, bySignal: true), .killed(signal: SIGQUIT))
        XCTAssertFalse(Exit(status: SIGQUIT, bySignal: true).rendered)
    }

    func testTheExitOfARealProcessIsRead() throws {
        func exit(_ script: String) throws -> RenderInvocation.Exit {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", script]
            try process.run()
            process.waitUntilExit()
            return RenderInvocation.Exit(process)
        }
        XCTAssertEqual(try exit("exit 3"), .doneWithFailedStories)
        XCTAssertEqual(try exit("exit 130"), .interrupted(signal: SIGINT))
        XCTAssertEqual(try exit("kill -QUIT $$"), .killed(signal: SIGQUIT))
    }
}
