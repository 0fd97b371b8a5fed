import Compositor
import Foundation
import XCTest

/// A re-render into a finished folder killed with SIGKILL half-way (issue 61, item 1): nothing
/// of the process runs after the signal, so what must hold is what was done before it. The
/// folder no longer claims to be a finished render (the earlier summary and trace were removed
/// before the first frame), and every frame file in it is whole, as written by rename.
final class KilledReRenderTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    func testAReRenderKilledHalfWayLeavesNoSummaryAndOnlyWholeFrames() throws {
        let out = folder.file("out")
        let first = try cli.run(["render", cli.demo, "--duration", "4", "--size", "90x160", "--output", out, "--quiet"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/summary.json"))

        let render = Process()
        render.executableURL = URL(fileURLWithPath: TestPrograms.renderStories)
        render.arguments = ["render", cli.demo, "--duration", "4", "--size", "360x640", "--output", out, "--quiet"]
        render.standardError = FileHandle.nullDevice
        try render.run()
        // Killed once the new render has written a few of its frames (read from the disk: a
        // frame at the new size), long before its end (120 frames).
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, render.isRunning {
            if let image = try? RGBAImage(contentsOfPNG: out + "/frame-000005.png"), image.width == 360 { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        XCTAssertTrue(render.isRunning, "the render was still going when it was killed")
        kill(render.processIdentifier, SIGKILL)
        render.waitUntilExit()
        XCTAssertEqual(render.terminationReason, .uncaughtSignal)

        let names = try FileManager.default.contentsOfDirectory(atPath: out)
        XCTAssertFalse(names.contains("summary.json"), "the earlier summary does not describe the folder")
        XCTAssertFalse(names.contains("lifecycle.jsonl"), "nor does its trace")
        let frames = names.filter { $0.hasPrefix("frame-") && $0.hasSuffix(".png") }
        XCTAssertFalse(frames.isEmpty)
        for name in frames {
            // Whole: it decodes (a file cut short would not), at one of the two renders' sizes.
            let image = try RGBAImage(contentsOfPNG: out + "/" + name)
            XCTAssertTrue([90, 360].contains(image.width), name)
        }
    }
}
