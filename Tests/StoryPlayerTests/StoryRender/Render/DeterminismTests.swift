import Compositor
import Foundation
import StoryPlayer
import XCTest

final class DeterminismTests: XCTestCase {
    /// Two renders of the demo (small, first 5.2 s: a video, a photo and the auto-advance cube
    /// turn) give identical PNG bytes, with different thread counts too.
    func testReRenderIsByteIdentical() throws {
        let board = try Storyboard(contentsOf: Fixture.sample("demo.json")).overriding(width: 90, height: 160, fps: 10, duration: 5.2)
        let first = try render(board, threads: 2)
        let second = try render(board, threads: 3)
        XCTAssertEqual(first.summary.frames, 52)
        XCTAssertEqual(first.summary.peakAlivePlayers, 2, "the range includes a transition")
        for n in 0..<first.summary.frames {
            let a = try Data(contentsOf: URL(fileURLWithPath: StoryRender.framePath(first.folder.path, n)))
            let b = try Data(contentsOf: URL(fileURLWithPath: StoryRender.framePath(second.folder.path, n)))
            XCTAssertEqual(a, b, "frame \(n)")
        }
        XCTAssertEqual(first.trace.map(\.event), second.trace.map(\.event))
        XCTAssertEqual(first.trace.map(\.t), second.trace.map(\.t))
    }

    func testOutputFolderThatCannotBeWrittenFailsBeforeAnyWork() throws {
        let scratch = ScratchFolder()
        let blocker = scratch.write("not-a-folder", [1])
        let board = try Storyboard(contentsOf: Fixture.sample("demo.json"))
        let render = StoryRender(storyboard: board, options: RenderOptions(outputFolder: blocker + "/out"))
        XCTAssertThrowsError(try render.run()) { error in
            XCTAssertEqual((error as? RenderError)?.code, .output)
        }
        XCTAssertEqual(render.trace.events, [], "no player was created")
    }

    func testStaleFramesFromALongerRenderAreRemoved() throws {
        let board = try Storyboard(contentsOf: Fixture.sample("demo.json")).overriding(width: 36, height: 64, fps: 5, duration: 1)
        let folder = ScratchFolder()
        FileManager.default.createFile(atPath: StoryRender.framePath(folder.path, 99), contents: Data([1]))
        try render(board, into: folder)
        XCTAssertFalse(FileManager.default.fileExists(atPath: StoryRender.framePath(folder.path, 99)))
        XCTAssertTrue(FileManager.default.fileExists(atPath: StoryRender.framePath(folder.path, 4)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: StoryRender.framePath(folder.path, 5)))
    }
}
