#if canImport(Glibc)
import Glibc
#endif

/// Writes files whole or not at all: into a temporary file beside the target, then `rename(2)`.
///
/// A reader (or a crash) never sees a half-written frame: the target path either does not
/// exist yet or holds the complete file.
public enum AtomicFile {
    public static func write(_ bytes: [UInt8], to path: String) throws(FileError) {
        // withUnsafeBytes rethrows untyped errors; Result keeps the type.
        try bytes.withUnsafeBytes { raw in
            Result { () throws(FileError) in try write(raw, to: path) }
        }.get()
    }

    /// Writes bytes the caller owns (a reused encoder buffer), with no copy into an array.
    ///
    /// Errors name `path`, the file the caller asked for, never the temporary one, and say why
    /// in plain words.
    public static func write(_ raw: UnsafeRawBufferPointer, to path: String) throws(FileError) {
        let temporary = name(besides: path)
        let fd = TemporaryFiles.create(temporary)
        guard fd >= 0 else {
            throw FileError(.write, "cannot write \(path)", cause: OutputFolder.reason(errno, creating: path))
        }
        var written = 0
        var failure: String?
        while written < raw.count {
            let n = Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
            if n < 0 {
                if errno == EINTR { continue }
                failure = OutputFolder.reason(errno, creating: path)
                break
            }
            written += n
        }
        if close(fd) != 0 || failure != nil {
            let message = failure ?? OutputFolder.reason(errno, creating: path)
            remove(temporary)
            throw FileError(.write, "cannot write \(path)", cause: message)
        }
        guard TemporaryFiles.place(temporary, at: path) == 0 else {
            let message = OutputFolder.reason(errno, creating: path)
            remove(temporary)
            throw FileError(.write, "cannot write \(path)", cause: message)
        }
    }

    private static func remove(_ temporary: String) {
        unlink(temporary)
        TemporaryFiles.forget(temporary)
    }

    /// Reads a whole file.
    public static func read(_ path: String) throws(FileError) -> [UInt8] {
        guard let file = fopen(path, "rb") else {
            throw FileError(.read, "cannot open \(path)", cause: systemMessage())
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
            if n < chunk.count {
                if ferror(file) != 0 {
                    throw FileError(.read, "cannot read \(path)", cause: systemMessage())
                }
                return bytes
            }
        }
    }

    /// A name in the same folder (so `rename` stays on one file system) that no other writer
    /// uses: for writers that fill a file in steps (the MP4 muxer) and rename it when complete.
    /// The path is noted (`TemporaryFiles`), so that a process ending at once removes the file.
    public static func temporaryPath(for path: String) -> String {
        let temporary = name(besides: path)
        TemporaryFiles.note(temporary)
        return temporary
    }

    private static func name(besides path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return "\(folder).\(name).\(getpid())-\(UInt64.random(in: 0...UInt64.max)).tmp"
    }

    static func systemMessage() -> String {
        String(cString: strerror(errno))
    }
}
