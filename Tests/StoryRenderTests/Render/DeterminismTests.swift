import Compositor
import Foundation
import StoryEncode
import StoryMedia
import StoryModel
import StoryPlayback
import StoryRender
import StoryTrace
import StoryPlayerTestSupport
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
            let a = try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(first.folder.path, n)))
            let b = try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(second.folder.path, n)))
            XCTAssertEqual(a, b, "frame \(n)")
        }
        XCTAssertEqual(first.trace.map(\.event), second.trace.map(\.event))
        XCTAssertEqual(first.trace.map(\.t), second.trace.map(\.t))
    }

    /// A player may hold two converted pictures ahead of the one shown (issue 33: with one,
    /// the render waited each frame for the next picture's conversion, since it looks at the
    /// next picture before it shows the current one). How deep the queue is changes when
    /// pictures are converted, never which one a frame shows: the demo and the bundled room
    /// give the same bytes with one picture queued and with two, and the room shows more than
    /// one picture (so its video did play).
    func testTheDepthOfThePictureQueueChangesNoPixel() throws {
        for (name, duration) in [("demo.json", 5.2), ("room.json", 2.0)] {
            let board = try Storyboard(contentsOf: Fixture.sample(name)).overriding(width: 144, height: 256, fps: 10, duration: duration)
            let one = try render(board) { $0.limits.queuedPictures = 1 }
            let two = try render(board) { $0.limits.queuedPictures = 2 }
            XCTAssertEqual(one.summary.frames, Int(duration * 10), name)
            var distinct = Set<Data>()
            for n in 0..<one.summary.frames {
                let a = try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(one.folder.path, n)))
                let b = try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(two.folder.path, n)))
                XCTAssertEqual(a, b, "\(name) frame \(n)")
                distinct.insert(a)
            }
            XCTAssertGreaterThan(distinct.count, one.summary.frames / 2, "\(name): the frames change as the video plays")
        }
    }

    func testOutputFolderThatCannotBeWrittenFailsBeforeAnyWork() throws {
        let scratch = ScratchFolder()
        let blocker = scratch.write("not-a-folder", [1])
        let board = try Storyboard(contentsOf: Fixture.sample("demo.json"))
        let render = StoryRenderer(storyboard: board, options: RenderOptions(outputFolder: blocker + "/out"))
        XCTAssertThrowsError(try render.run()) { error in
            XCTAssertEqual((error as? RenderError)?.code, .output)
        }
        XCTAssertEqual(render.trace.events, [], "no player was created")
    }

    func testStaleFramesFromALongerRenderAreRemoved() throws {
        let board = try Storyboard(contentsOf: Fixture.sample("demo.json")).overriding(width: 36, height: 64, fps: 5, duration: 1)
        let folder = ScratchFolder()
        FileManager.default.createFile(atPath: StoryRenderer.framePath(folder.path, 99), contents: Data([1]))
        try render(board, into: folder)
        XCTAssertFalse(FileManager.default.fileExists(atPath: StoryRenderer.framePath(folder.path, 99)))
        XCTAssertTrue(FileManager.default.fileExists(atPath: StoryRenderer.framePath(folder.path, 4)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: StoryRenderer.framePath(folder.path, 5)))
    }
}

extension DeterminismTests {
    /// A play's decode thread stops after the first picture past where the render foresees the
    /// play ends (issue 33: the pictures decoded ahead were wasted at every stop). The demo, with
    /// its taps, hold, drags, swipe, pull and dismiss, and a cube of two clips give the same
    /// bytes and the same trace with the foresight and without it, and no player needed a
    /// picture past what was foreseen.
    func testForeseeingWherePlaysEndChangesNoPixel() throws {
        let demo = try Storyboard(contentsOf: Fixture.sample("demo.json")).overriding(width: 72, height: 128, fps: 10)
        let cube = try Storyboard.parse("""
            {"canvas": {"width": 96, "height": 160, "fps": 30}, "transition": {"style": "cube", "duration": 0.3},
             "duration": 0.9,
             "stories": [{"id": "a", "items": [{"uri": "Fixtures/counter.mp4"}]},
                         {"id": "b", "items": [{"uri": "Fixtures/counter.mp4"}]}],
             "script": [{"at": 0.2, "action": "swipe", "direction": "next"}]}
            """)
        for (name, board) in [("demo", demo), ("cube", cube)] {
            var results: [(frames: Int, trace: [TraceEvent], folder: ScratchFolder, foreseen: Int, lifts: Int)] = []
            for foresees in [true, false] {
                let folder = ScratchFolder()
                var options = RenderOptions(outputFolder: folder.path)
                options.threads = 2
                options.foreseesPlayEnds = foresees
                let render = StoryRenderer(storyboard: board, options: options)
                let summary = try render.run()
                results.append((summary.frames, render.trace.events, folder, render.playEndsForeseen, render.reachLifts))
            }
            let (on, off) = (results[0], results[1])
            XCTAssertEqual(on.frames, off.frames, name)
            XCTAssertGreaterThan(on.frames, 8, name)
            XCTAssertGreaterThanOrEqual(on.foreseen, 2, "\(name): the ends of its plays were foreseen")
            XCTAssertEqual(off.foreseen, 0, name)
            XCTAssertEqual(on.lifts, 0, "\(name): no play needed a picture past its foreseen end")
            for n in 0..<on.frames {
                let a = try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(on.folder.path, n)))
                let b = try Data(contentsOf: URL(fileURLWithPath: StoryRenderer.framePath(off.folder.path, n)))
                XCTAssertEqual(a, b, "\(name) frame \(n)")
            }
            XCTAssertEqual(on.trace.map(\.event), off.trace.map(\.event), name)
            XCTAssertEqual(on.trace.map(\.t), off.trace.map(\.t), name)
            XCTAssertEqual(on.trace.map(\.pictures), off.trace.map(\.pictures), name)
        }
    }
}
