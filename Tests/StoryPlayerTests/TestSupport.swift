import Compositor
import Foundation
import StoryPlayer
import XCTest

/// Paths to committed fixtures and samples, and scratch folders that clean up after themselves.
enum Fixture {
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let packageRoot = testsFolder.deletingLastPathComponent().deletingLastPathComponent()

    static func path(_ name: String) -> String { testsFolder.appendingPathComponent("Fixtures/\(name)").path }
    static func sample(_ name: String) -> String { packageRoot.appendingPathComponent("samples/\(name)").path }
}

final class ScratchFolder: Sendable {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("live-stories-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) -> String {
        let target = file(name)
        FileManager.default.createFile(atPath: target, contents: Data(bytes))
        return target
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

extension Storyboard {
    /// A storyboard from JSON text, with paths relative to `folder`.
    static func parse(_ json: String, folder: String = Fixture.testsFolder.path) throws(StoryboardError) -> Storyboard {
        try Storyboard(json: Data(json.utf8), folder: folder)
    }
}

/// The one way tests run a render: into `folder` (a fresh scratch folder unless given), with
/// `threads` rasterizer and PNG threads and whatever else `configure` sets. Returns the
/// summary, the trace and the folder.
@discardableResult
func render(_ board: Storyboard, into folder: ScratchFolder = ScratchFolder(), threads: Int = 2,
            options configure: (inout RenderOptions) -> Void = { _ in })
    throws -> (summary: RenderSummary, trace: [TraceEvent], folder: ScratchFolder) {
    var options = RenderOptions(outputFolder: folder.path)
    options.threads = threads
    configure(&options)
    let render = StoryRender(storyboard: board, options: options)
    let summary = try render.run()
    return (summary, render.trace.events, folder)
}

extension Array where Element == TraceEvent {
    func of(_ kind: TraceEvent.Kind, story: String? = nil) -> [TraceEvent] {
        filter { $0.event == kind && (story == nil || $0.story == story) }
    }
}
