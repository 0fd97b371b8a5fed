import Foundation
import StoryPlayer

/// A gesture of the script, as a mark on the page's timeline.
struct StudioMark: Sendable, Codable, Equatable {
    let at: Double
    let frame: Int
    let action: String
}

/// The storyboard as it was last read without errors, with what the page shows beside the
/// player. Built once per edit; every frame request of that version reads it.
struct StudioBoard: Sendable {
    let board: Storyboard
    /// Counts every successful read, so the page and the frame cache tell edits apart.
    let version: Int
    let frameCount: Int
    /// `lifecycle.jsonl` lines (`StudioLanes.trace`).
    let trace: String
    let marks: [StudioMark]
    /// The ids of the stories that are live streams (item 7: the page says what they show).
    let liveStories: [String]

    /// Reads the storyboard at `path`; every error it has, each with its JSON path, on failure.
    /// `preview` is what the frames draw instead of the storyboard (live items as local
    /// pictures, `StudioLive`); the lanes are its lifecycle, so they open no live source either.
    static func load(_ path: String, parameters: [String: String] = [:], version: Int,
                     preview: (Storyboard) -> Storyboard) throws(StudioLoadFailure) -> StudioBoard {
        let board: Storyboard
        do {
            board = try Storyboard(contentsOf: path, parameters: parameters)
        } catch {
            throw StudioLoadFailure(problems: StudioProblem.all(error))
        }
        // A missing file is an error with its path here too, as `render` refuses it.
        let missing = board.missingLocalFiles
        guard missing.isEmpty else {
            throw StudioLoadFailure(problems: missing.map { StudioProblem(.storyboard, path: $0.path, "no such file \($0.file)") })
        }
        // So is a captions file that cannot be read (`render` exits 2 on it).
        do {
            try board.checkCaptions()
        } catch {
            throw StudioLoadFailure(problems: StudioProblem.all(error))
        }
        do {
            let (trace, count) = try StudioLanes.trace(of: preview(board))
            let fps = board.canvas.fps
            let marks = board.script.map {
                StudioMark(at: $0.at, frame: min(count - 1, Int(($0.at * fps).rounded())), action: StudioBoard.name(of: $0.gesture))
            }
            let live = board.stories.filter { $0.items.contains { $0.isLive } }.map(\.id)
            return StudioBoard(board: board, version: version, frameCount: count, trace: trace, marks: marks, liveStories: live)
        } catch {
            throw StudioLoadFailure(problems: [StudioProblem(.storyboard, error.message, cause: error.cause.map { "\($0)" })])
        }
    }

    /// The script's action names, as the storyboard spells them.
    static func name(of gesture: ScriptAction.Gesture) -> String {
        switch gesture {
        case .swipe(let direction, _): "swipe \(direction.rawValue)"
        case .drag: "drag"
        case .pull: "pull"
        case .release: "release"
        case .tap(let x): x < 1.0 / 3 ? "tap back" : "tap"
        case .hold: "hold"
        case .dismiss: "dismiss"
        }
    }

    /// The files whose saving re-renders the frame: the storyboard and every local file it names.
    static func watchedFiles(_ path: String, board: Storyboard?) -> [String] {
        var files = [path]
        guard let board else { return files }
        func add(_ source: MediaSource?) {
            guard let source, !source.isRemote, source.refusal == nil else { return }
            files.append(source.location)
        }
        add(board.backdrop?.picture)
        add(board.music?.source)
        files += board.captionSources.map(\.file) + board.layerFiles
        for story in board.stories {
            add(story.poster)
            add(story.music?.source)
            for item in story.items {
                add(item.source)
                add(item.poster)
                for participant in item.room?.participants ?? [] {
                    add(participant.source)
                    add(participant.avatar)
                }
            }
        }
        return Array(Set(files)).sorted()
    }
}

/// Every problem of a storyboard that could not be loaded.
struct StudioLoadFailure: Error, Sendable {
    let problems: [StudioProblem]
}
