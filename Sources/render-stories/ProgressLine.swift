import Foundation

/// A one-line progress display on stderr, shown only when stderr is a terminal.
final class ProgressLine: @unchecked Sendable {
    let isEnabled = isatty(STDERR_FILENO) != 0
    private let started = Date()
    private let lock = NSLock()
    private var lastDraw = Date.distantPast

    func show(done: Int, total: Int?) {
        lock.withLock {
            let now = Date()
            guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
            lastDraw = now
            let elapsed = now.timeIntervalSince(started)
            let fps = elapsed > 0 ? Double(done) / elapsed : 0
            let of = total.map { "/\($0)" } ?? ""
            FileHandle.standardError.write(Data(String(format: "\r\u{1B}[Kframe %d%@  %.1f fps", done, of, fps).utf8))
        }
    }

    func clear() {
        guard isEnabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
