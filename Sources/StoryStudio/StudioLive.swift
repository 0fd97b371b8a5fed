import Compositor
import Foundation
import StoryPlayer
import Synchronization

/// The live stories of the storyboard, as the studio shows them (issue 31, item 7).
///
/// A frame never opens a live source itself: every live item is drawn from a local picture,
/// its loading state (the ring over the canvas background) until a picture has arrived, then
/// the latest picture. A reader per live story fetches pictures, and only while its story is on
/// screen in the page: it starts when a frame showing the story is drawn and stops when the
/// page shows a frame without it. Each picture is one `StillRender` of the story alone, which
/// opens the stream, decodes its first picture and closes it; a new one is fetched every
/// `interval` seconds, so the page shows a picture at most a few seconds old.
final class StudioLive: Sendable {
    enum Showing: Sendable, Equatable {
        case loading(reason: String?)
        case picture(at: Date)

        var word: String {
            if case .picture = self { return "picture" }
            return "loading"
        }
    }

    private struct Reader {
        var showing: Showing = .loading(reason: nil)
        /// The latest picture's file (nil: the loading picture).
        var picture: String?
        var running = false
    }

    private struct State {
        var readers: [String: Reader] = [:]
        /// Counts pictures that arrived: a frame drawn before the last one is stale.
        var generation = 0
    }

    let folder: String
    let interval: Double
    private let state = Mutex(State())
    /// Called when a new picture arrived (the page draws its frame again).
    let arrived: @Sendable () -> Void

    init(interval: Double = 1.0, arrived: @escaping @Sendable () -> Void) {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("live-stories-studio-\(getpid())-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        self.interval = interval
        self.arrived = arrived
    }

    var generation: Int { state.withLock { $0.generation } }

    /// What each live story shows now, by id.
    func showing(_ ids: [String]) -> [(id: String, showing: Showing)] {
        state.withLock { state in ids.map { ($0, state.readers[$0]?.showing ?? .loading(reason: nil)) } }
    }

    /// `board` with each live item drawn from a local picture: the latest one of its story, or
    /// the loading picture. Nothing in the result opens a network source for a live story.
    func preview(_ board: Storyboard) -> Storyboard {
        var preview = board
        let pictures = state.withLock { $0.readers.mapValues(\.picture) }
        for (s, story) in board.stories.enumerated() {
            for (i, item) in story.items.enumerated() where item.isLive {
                let file = pictures[story.id].flatMap { $0 } ?? loadingPicture(for: board)
                preview.stories[s].items[i] = StoryItem(source: MediaSource(uri: file, relativeTo: folder),
                                                        duration: item.duration ?? StoryItem.defaultLiveDuration)
            }
        }
        return preview
    }

    /// The loading state as a picture: the ring over the canvas background, at the canvas size.
    private func loadingPicture(for board: Storyboard) -> String {
        let canvas = board.canvas
        let file = (folder as NSString).appendingPathComponent("loading-\(canvas.width)x\(canvas.height).png")
        if !FileManager.default.fileExists(atPath: file) {
            var picture = RGBAImage(width: canvas.width, height: canvas.height, fill: canvas.background.isOpaque ? canvas.background : .black)
            StoryOverlay.drawLoadingRing(on: &picture, avatar: nil, at: 0.25)
            try? picture.writePNG(to: file)
        }
        return file
    }

    /// The page shows a frame on which these live stories are: their readers run, the others stop.
    func onScreen(_ ids: Set<String>, of board: Storyboard) {
        var start: [Story] = []
        state.withLock { state in
            for (id, reader) in state.readers where reader.running && !ids.contains(id) {
                state.readers[id]?.running = false
            }
            for story in board.stories where ids.contains(story.id) && story.items.contains(where: \.isLive) {
                if state.readers[story.id]?.running == true { continue }
                state.readers[story.id, default: Reader()].running = true
                start.append(story)
            }
        }
        for story in start { read(story, of: board) }
    }

    /// Whether `id`'s reader should go on.
    private func running(_ id: String) -> Bool { state.withLock { $0.readers[id]?.running == true } }

    private func read(_ story: Story, of board: Storyboard) {
        var alone = board
        alone.stories = [Story(id: story.id, poster: story.poster, items: [story.items.first { $0.isLive }!])]
        alone.script = []
        alone.duration = nil
        let thread = Thread { [self, alone] in
            var count = 0
            while running(story.id) {
                let started = Date()
                do {
                    let still = try StillRender.render(alone, pageOffset: 0, time: 0, overlay: false, threads: 1)
                    if let problem = still.problems.first {
                        state.withLock { $0.readers[story.id]?.showing = .loading(reason: problem) }
                    } else if running(story.id) {
                        count += 1
                        let file = (folder as NSString).appendingPathComponent("\(story.id.hashValue & 0xffffff)-\(count).png")
                        try still.image.writePNG(to: file)
                        let old = state.withLock { state -> String? in
                            let old = state.readers[story.id]?.picture
                            state.readers[story.id]?.picture = file
                            state.readers[story.id]?.showing = .picture(at: Date())
                            state.generation += 1
                            return old
                        }
                        if let old { try? FileManager.default.removeItem(atPath: old) }
                        arrived()
                    }
                } catch {
                    state.withLock { $0.readers[story.id]?.showing = .loading(reason: "\(error)") }
                }
                let rest = interval - Date().timeIntervalSince(started)
                if rest > 0 { Thread.sleep(forTimeInterval: rest) }
            }
        }
        thread.name = "studio live \(story.id)"
        thread.start()
    }

    /// Stops every reader and removes the pictures.
    func close() {
        state.withLock { state in
            for id in state.readers.keys { state.readers[id]?.running = false }
        }
        try? FileManager.default.removeItem(atPath: folder)
    }
}
