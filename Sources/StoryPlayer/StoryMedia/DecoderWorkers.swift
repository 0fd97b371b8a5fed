import Foundation
import Synchronization

/// The threads FFmpeg starts for one decoder (the frame threads of a playing video), so that
/// their CPU time can be charged to the decode stage: the decode thread's own CPU clock
/// (`CLOCK_THREAD_CPUTIME_ID`) sees none of the decoding once it is done on other threads.
///
/// FFmpeg keeps its threads' handles to itself. On Linux a new thread starts with its creator's
/// name, so the threads that appear while the decoder opens and carry the opening thread's name
/// are the decoder's. A decode thread's name is its own (`decode #<player> <story>`, set by
/// `nameThisThread`), and opens with threads take turns, so two decoders opening at
/// once do not take each other's threads; a thread another part of the process starts meanwhile
/// (a dispatch worker) has another name. FFmpeg 7.1 and later name their frame threads
/// themselves ("av:h264:df0"), so that name counts too.
package struct DecoderWorkers {
    /// Each thread's CPU clock (`MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)`, the id glibc's
    /// `pthread_getcpuclockid` returns).
    private let clocks: [clockid_t]
    /// The CPU seconds `takeCPUSeconds()` has handed out so far.
    private var taken = 0.0

    static let none = DecoderWorkers(clocks: [])

    /// One open with threads at a time, process-wide (see above).
    private static let opening = Mutex(())

    /// Runs `open`, which may start the decoder's threads, and returns the threads it started.
    static func started<E: Error>(by open: () throws(E) -> Void) throws(E) -> DecoderWorkers {
        try opening.withLock { _ throws(E) in
            let name = threadName("/proc/thread-self/comm")
            let before = Set(threadIDs())
            try open()
            guard let name else { return .none }
            let new = threadIDs().filter { id in
                guard !before.contains(id), let other = threadName("/proc/self/task/\(id)/comm") else { return false }
                return other == name || other.hasPrefix("av:")
            }
            return DecoderWorkers(clocks: new.map { clockid_t(bitPattern: ~UInt32($0) << 3 | 6) })
        }
    }

    /// How many threads the decoder started.
    var count: Int { clocks.count }

    /// The CPU seconds the decoder's threads have used so far (`clock_gettime` on each thread's
    /// clock). Read before the decoder is freed: a thread that has ended has no clock left.
    var cpuSeconds: Double {
        clocks.reduce(0) { total, clock in
            var spec = timespec()
            guard clock_gettime(clock, &spec) == 0 else { return total }
            return total + Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
        }
    }

    /// The CPU seconds the threads used since the last call (since they started, the first time).
    mutating func takeCPUSeconds() -> Double {
        let used = cpuSeconds
        defer { taken = used }
        return used - taken
    }

    // MARK: - /proc

    /// Names the calling thread (its `comm`, as `pthread_setname_np` would, which Swift does not
    /// see here): `name` cut to the 15 bytes a Linux thread name holds, on a character boundary.
    package static func nameThisThread(_ name: String) {
        var cut = ""
        for character in name {
            guard cut.utf8.count + character.utf8.count <= 15 else { break }
            cut.append(character)
        }
        let file = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard file >= 0 else { return }
        defer { close(file) }
        _ = cut.utf8CString.withUnsafeBytes { write(file, $0.baseAddress, $0.count - 1) }
    }

    /// The ids of the process's threads now (the entries of /proc/self/task).
    private static func threadIDs() -> [Int32] {
        guard let directory = opendir("/proc/self/task") else { return [] }
        defer { closedir(directory) }
        var ids: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let id = Int32(name) { ids.append(id) }
        }
        return ids
    }

    /// A thread's name (`comm`: at most 15 bytes and a newline); read with `read(2)`, since a
    /// /proc file says its size is 0.
    private static func threadName(_ path: String) -> String? {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: bytes[..<count], as: UTF8.self).trimmingCharacters(in: .newlines)
    }
}
