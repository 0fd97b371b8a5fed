#if canImport(Glibc)
import Glibc
#endif

/// The folders an output goes into, made as `mkdir -p` makes them, for every output alike (the
/// render's folder, its contact sheet, timeline and MP4, a still, a timeline picture).
///
/// Errors name the folder the user gave and say why in plain words ("a is a file, not a
/// folder"), never a temporary name or a Foundation error number.
public enum OutputFolder {
    // MARK: - Making folders

    /// Makes `folder` and the folders above it, and checks that a file can be created in it.
    public static func make(_ folder: String) throws(FileError) {
        let folder = folder.isEmpty ? "." : folder
        var prefix = folder.hasPrefix("/") ? "/" : ""
        for part in folder.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + part
            var info = stat()
            if stat(prefix, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    throw FileError(.write, "cannot create the folder \(folder)", cause: "\(prefix) is a file, not a folder")
                }
                continue
            }
            if mkdir(prefix, 0o777) == 0 { continue }
            let number = errno
            // Made by another process meanwhile.
            if number == EEXIST, stat(prefix, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { continue }
            throw FileError(.write, "cannot create the folder \(folder)", cause: reason(number, creating: prefix))
        }
        try checkWritable(folder)
    }

    /// Makes the folder a file at `path` goes into.
    public static func make(forFile path: String) throws(FileError) {
        try make(folder(of: path))
    }

    /// The folder of `path` ("." for a bare name).
    public static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    // MARK: - Checks

    /// A folder that exists may still refuse files (read-only, another user's, `/proc`).
    static func checkWritable(_ folder: String) throws(FileError) {
        let probe = (folder.hasSuffix("/") ? folder : folder + "/") + ".write-test-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw FileError(.write, "cannot write in the folder \(folder)", cause: reason(errno, creating: probe))
        }
        close(fd)
        unlink(probe)
    }

    /// Why creating `path` failed, in plain words, with the system's own in brackets when they
    /// add something.
    package static func reason(_ number: Int32, creating path: String) -> String {
        let parent = folder(of: path)
        switch number {
        case EACCES, EPERM: return "permission denied in \(parent)"
        case EROFS: return "\(parent) is on a read-only file system"
        case ENOSPC, EDQUOT: return "no space left on the disk"
        case ENOTDIR: return "a part of \(path) is a file, not a folder"
        case EISDIR: return "\(path) is a folder"
        case ENAMETOOLONG: return "the name is too long"
        // When the folder above exists, yet the system says it does not: a file system that
        // takes no new entries, such as /proc or /sys.
        case ENOENT:
            var info = stat()
            guard stat(parent, &info) == 0 else { return "the folder \(parent) does not exist" }
            return "\(parent) does not take new files or folders"
        default: return String(cString: strerror(number)).lowercased()
        }
    }
}
