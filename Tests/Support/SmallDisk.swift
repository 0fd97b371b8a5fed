import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real file system of a few megabytes (tmpfs, mounted in a scratch folder), for tests of what
/// a render leaves when the disk fills up. Unmounted with the last reference to it.
///
/// Mounting needs root, which `make test` and CI have. Elsewhere the test is skipped, except under
/// CI=true, where a disk that cannot be made fails the test: CI must never pass by skipping it.
public final class SmallDisk: @unchecked Sendable {
    // @unchecked: every stored property is a `let` of a Sendable type; the class is only
    // unchecked because `deinit` runs a process.
    public let path: String
    private let scratch: ScratchFolder

    public struct CannotMount: Error, CustomStringConvertible {
        public let description: String
    }

    /// Mounts a tmpfs of `megabytes` MiB, or throws (with why) when this process cannot.
    public init(megabytes: Int) throws {
        scratch = ScratchFolder()
        path = scratch.file("disk")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard geteuid() == 0 else { throw CannotMount(description: "mounting a tmpfs needs root (make test runs as root)") }
        let outcome = try ExternalProgram.outcome("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path])
        guard outcome.status == 0 else {
            throw CannotMount(description: "mount -t tmpfs failed: " + String(decoding: outcome.stderr, as: UTF8.self))
        }
    }

    /// Fills the disk with a file of its own until `bytes` are free, as another program writing
    /// to the same disk would.
    public func leave(freeBytes bytes: Int64) throws {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { throw CannotMount(description: "statvfs \(path) failed") }
        let free = Int64(info.f_bavail) * Int64(info.f_frsize)
        let filler = (path as NSString).appendingPathComponent("filler")
        let fd = open(filler, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        defer { close(fd) }
        guard fd >= 0, free > bytes, posix_fallocate(fd, 0, off_t(free - bytes)) == 0 else {
            throw CannotMount(description: "cannot fill \(path) to \(bytes) bytes free (\(free) free)")
        }
    }

    deinit {
        _ = try? ExternalProgram.outcome("/usr/bin/umount", ["-l", path])
    }
}
