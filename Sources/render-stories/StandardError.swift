#if canImport(Glibc)
import Glibc
#endif

/// Messages and progress on stderr, written so that a reader who has gone (`| head -2`, a
/// closed log) never ends the render: SIGPIPE is ignored for the whole process, and a write
/// that fails is reported back instead of trapping, as `FileHandle.write` would.
enum StandardError {
    /// Called first in `main`: a closed pipe becomes an `EPIPE` the writers see, not a signal
    /// that kills the render with its frames, trace and summary unwritten.
    static func ignoreClosedPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Writes `text` whole; false when stderr no longer takes it (its reader has gone).
    @discardableResult
    static func write(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            bytes = bytes.dropFirst(n)
        }
        return true
    }
}
