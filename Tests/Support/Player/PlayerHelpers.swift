import Compositor
import Foundation
import StoryMedia
import StoryModel
import StoryPlayback
import StoryRender
import StoryTrace
// Scratch folders, the seeded generator, fixture paths, the programs and live servers: exported,
// so that every test file of a player test target sees them without an import of its own.
@_exported import StoryTestSupport
import XCTest

extension Storyboard {
    /// A storyboard from JSON text, with paths relative to `folder`.
    public static func parse(_ json: String, folder: String = Fixture.testsFolder.path) throws(StoryboardError) -> Storyboard {
        try Storyboard(json: Data(json.utf8), folder: folder)
    }
}

/// The one way tests run a render: into `folder` (a fresh scratch folder unless given), with
/// `threads` rasterizer and PNG threads and whatever else `configure` sets. Returns the
/// summary, the trace and the folder.
@discardableResult
public func render(_ board: Storyboard, into folder: ScratchFolder = ScratchFolder(), threads: Int = 2,
            options configure: (inout RenderOptions) -> Void = { _ in })
    throws -> (summary: RenderSummary, trace: [TraceEvent], folder: ScratchFolder) {
    var options = RenderOptions(outputFolder: folder.path)
    options.threads = threads
    configure(&options)
    let render = StoryRenderer(storyboard: board, options: options)
    let summary = try render.run()
    return (summary, render.trace.events, folder)
}

extension Array where Element == TraceEvent {
    public func of(_ kind: TraceEvent.Kind, story: String? = nil) -> [TraceEvent] {
        filter { $0.event == kind && (story == nil || $0.story == story) }
    }
}

/// A play from time 0 of Fixtures/counter.mp4 (30 pictures at 30 fps, each picture's time k/30)
/// as story `id`, on a canvas its size, with its story player.
public func playCounterClip(_ id: String, playback: PlaybackClock = .virtual,
                     limits: DecodeLimits = DecodeLimits()) throws -> (StoryPlaybackController, ItemPlayer) {
    let story = Story(id: id, items: [StoryItem(source: MediaSource(uri: Fixture.path("counter.mp4"), relativeTo: "/"))])
    let player = StoryPlaybackController(story: story, canvas: Canvas(width: 96, height: 160, fps: 30), limits: limits, playback: playback,
                             trace: LifecycleTrace())
    return (player, try XCTUnwrap(player.play(item: 0, at: 0)))
}

/// The colour's strongest channel ("red", "green" or "blue") when it leads the other two by more
/// than 60 levels, else "mixed" and the colour.
public func dominantChannel(_ colour: RGBAColor) -> String {
    let channels = [("red", colour.red), ("green", colour.green), ("blue", colour.blue)].sorted { $0.1 > $1.1 }
    return channels[0].1 > channels[1].1 + 60 ? channels[0].0 : "mixed \(colour)"
}

/// Runs the ffmpeg CLI quietly (`-v error -y`) to make a test's media; a failure fails the test
/// that asked, with the arguments.
public func ffmpeg(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: LiveServers.which("ffmpeg")!)
    process.arguments = ["-v", "error", "-y"] + arguments
    try process.run()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, "ffmpeg \(arguments)", file: file, line: line)
}
