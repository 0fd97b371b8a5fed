#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The temporary files of this process that are not yet renamed into place (`AtomicFile`'s and
/// the MP4 writer's), so that a process ending at once (a second Ctrl-C) can remove them first:
/// no `.name.pid-n.tmp` is ever left behind, whatever the number of signals.
public enum TemporaryFiles {
    private struct State {
        var paths: Set<String> = []
        /// Set by `removeAll`: the process is ending, and no new temporary file may appear.
        var closed = false
        /// Targets whose placing is noted (`watch`), and those of them renamed into place.
        var watched: Set<String> = []
        var placed: Set<String> = []
    }

    private static let state = Mutex(State())

    // MARK: - Registration

    /// Notes `path` as a temporary file about to be made by a writer that creates it itself
    /// (FFmpeg's muxer). A path noted once the process is ending is harmless: it is never renamed.
    static func note(_ path: String) {
        state.withLock { _ = $0.paths.insert(path) }
    }

    /// Creates `path` (exclusively, for writing) and notes it, in one step under the lock, so
    /// that `removeAll` never runs between the two and misses it. -1 with `errno` set when it
    /// cannot be created, or with `ECANCELED` once the process is ending.
    static func create(_ path: String) -> Int32 {
        state.withLock { state in
            guard !state.closed else {
                errno = ECANCELED
                return -1
            }
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 { state.paths.insert(path) }
            return fd
        }
    }

    /// `path` was removed.
    static func forget(_ path: String) {
        state.withLock { _ = $0.paths.remove(path) }
    }

    /// Removes the temporary file at `path` (`unlink(2)`) and forgets it: for a writer that
    /// gives up on its file.
    package static func discard(_ path: String) {
        state.withLock { state in
            unlink(path)
            state.paths.remove(path)
        }
    }

    /// Renames `temporary` to `path` (`rename(2)`) and forgets it, in one step under the lock,
    /// so that what `wasPlaced` says after `removeAll` is what is on disk. -1 with `errno` set
    /// when it cannot be renamed, or with `ECANCELED` once the process is ending (its temporary
    /// file is gone then).
    package static func place(_ temporary: String, at path: String) -> Int32 {
        state.withLock { state in
            guard !state.closed else {
                errno = ECANCELED
                return -1
            }
            let status = rename(temporary, path)
            if status == 0 {
                state.paths.remove(temporary)
                if state.watched.contains(path) { state.placed.insert(path) }
            }
            return status
        }
    }

    // MARK: - What was finished

    /// Notes whether each of `paths` (a render's clips) gets renamed into place, for a message
    /// that names only what a process ending at once did not finish. Only these are kept: a
    /// render's frames are many.
    public static func watch(_ paths: [String]) {
        state.withLock { $0.watched.formUnion(paths) }
    }

    /// Whether `path`, watched, has been renamed into place by this process.
    public static func wasPlaced(_ path: String) -> Bool {
        state.withLock { $0.placed.contains(path) }
    }

    // MARK: - Ending at once

    /// Removes every temporary file still open and refuses new ones: for a process about to
    /// `_exit` without finishing its writers.
    public static func removeAll() {
        state.withLock { state in
            state.closed = true
            for path in state.paths { unlink(path) }
            state.paths.removeAll()
        }
    }
}
