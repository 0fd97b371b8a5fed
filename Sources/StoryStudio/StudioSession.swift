import Foundation
import StoryPlayer
import Synchronization

/// The storyboard being previewed: its last good reading, the errors of the last reading if it
/// failed, and the watch on its files that reloads it (hot reload).
final class StudioSession: Sendable {
    struct State {
        /// The last reading without errors; it stays when an edit breaks the storyboard, so
        /// the page keeps its last good frame.
        var board: StudioBoard?
        var problems: [StudioProblem] = []
        var readings = 0
        /// What each watched file looked like at the last reading.
        var stamps: [String: FileStamp] = [:]
    }

    /// A file's modification time and size: a save changes one of them.
    struct FileStamp: Equatable {
        let modified: Double
        let size: UInt64
        let inode: UInt64

        init?(_ path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            size = UInt64(info.st_size)
            inode = UInt64(info.st_ino)
        }
    }

    /// The message every page gets when the storyboard was read again.
    struct Reloaded: Encodable {
        let type = "board"
        let version: Int
        let problems: [StudioProblem]
    }

    let path: String
    /// The variant shown: values of the storyboard's parameters (`--set`, a row, the form),
    /// read at each reading.
    let parameters: @Sendable () -> [String: String]
    let hub: StudioHub
    private let state = Mutex(State())
    private let watching = Atomic<Bool>(false)

    /// Called with each new good reading, before the pages hear of it.
    let reloaded: @Sendable (StudioBoard) -> Void

    /// What frames draw for a storyboard (`StudioLive.preview`).
    let preview: @Sendable (Storyboard) -> Storyboard

    init(path: String, parameters: @escaping @Sendable () -> [String: String] = { [:] }, hub: StudioHub, preview: @escaping @Sendable (Storyboard) -> Storyboard = { $0 },
         reloaded: @escaping @Sendable (StudioBoard) -> Void = { _ in }) {
        self.path = path
        self.parameters = parameters
        self.hub = hub
        self.preview = preview
        self.reloaded = reloaded
    }

    var board: StudioBoard? { state.withLock { $0.board } }
    var problems: [StudioProblem] { state.withLock { $0.problems } }
    /// The version the page shows: the last good reading's.
    var version: Int { state.withLock { $0.board?.version ?? 0 } }

    /// Reads the storyboard again, keeps it if it has no errors, and tells every page.
    func reload() {
        let reading = state.withLock { state -> Int in
            state.readings += 1
            return state.readings
        }
        // Stamped before reading, so a save during the read is seen at the next look.
        let stampsBefore = stamps(of: StudioBoard.watchedFiles(path, board: board?.board))
        let result: Result<StudioBoard, StudioLoadFailure>
        do {
            result = .success(try StudioBoard.load(path, parameters: parameters(), version: reading, preview: preview))
        } catch {
            result = .failure(error)
        }
        let (version, problems, kept) = state.withLock { state -> (Int, [StudioProblem], Bool) in
            switch result {
            case .success(let board) where board.version < (state.board?.version ?? 0):
                // Two readings overlapped (a save seen by the watcher, a variant chosen in the
                // page): the later one is kept, whichever finished last.
                return (state.board?.version ?? 0, state.problems, false)
            case .success(let board):
                state.board = board
                state.problems = []
                state.stamps = stamps(of: StudioBoard.watchedFiles(path, board: board.board))
                    .merging(stampsBefore) { now, _ in now }
            case .failure(let failure):
                state.problems = failure.problems
                state.stamps = stampsBefore
            }
            return (state.board?.version ?? 0, state.problems, true)
        }
        if kept, case .success(let board) = result { reloaded(board) }
        hub.broadcast(Reloaded(version: version, problems: problems))
    }

    private func stamps(of files: [String]) -> [String: FileStamp] {
        Dictionary(uniqueKeysWithValues: files.map { ($0, FileStamp($0)) }.compactMap { path, stamp in stamp.map { (path, $0) } })
    }

    /// Whether a watched file changed (or appeared, or went) since the last reading.
    func changed() -> Bool {
        let known = state.withLock { $0.stamps }
        let files = Set(known.keys).union(StudioBoard.watchedFiles(path, board: board?.board))
        return files.contains { FileStamp($0) != known[$0] }
    }

    /// Looks at the files every `interval` seconds on a thread of its own, and reloads on a
    /// change. Polling, not inotify: editors save by renaming a new file over the old one,
    /// which a watch on the old inode misses, and ten looks a second at a few files cost nothing.
    func watch(every interval: Double = 0.05) {
        guard watching.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        let thread = Thread { [self] in
            while watching.load(ordering: .relaxed) {
                if changed() { reload() }
                Thread.sleep(forTimeInterval: interval)
            }
        }
        thread.name = "studio watch"
        thread.start()
    }

    func stopWatching() { watching.store(false, ordering: .relaxed) }
}
