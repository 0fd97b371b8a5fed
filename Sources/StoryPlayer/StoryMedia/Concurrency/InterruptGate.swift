internal import CFFmpeg
import Glibc
import Synchronization

#if canImport(Glibc)
#endif

/// Lets a blocking FFmpeg call give up: every open and read runs under this gate's interrupt
/// callback, which FFmpeg polls while it waits for the network (about every 100 ms). The call
/// gives up when the player is stopped, or when the current wait passes its deadline.
package final class InterruptGate: Sendable {
    package enum Reason: Sendable, Equatable { case stopped, timedOut }

    private let stopped = Atomic<Bool>(false)
    /// CLOCK_MONOTONIC nanoseconds after which the current wait is abandoned.
    private let deadline = Atomic<UInt64>(.max)

    package init() {}

    /// Abandons any wait now and for good.
    package func requestStop() { stopped.store(true, ordering: .releasing) }

    package var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// Starts a wait that may last `seconds`.
    package func arm(seconds: Double) {
        deadline.store(InterruptGate.now() &+ InterruptGate.nanoseconds(seconds), ordering: .releasing)
    }

    /// No deadline (work that does not wait for the network).
    package func disarm() { deadline.store(.max, ordering: .releasing) }

    /// How long the current wait has left (seconds, 0 once past), nil when it has no deadline:
    /// what a feed retrying a piece may still spend before the call it serves times out.
    package var secondsLeft: Double? {
        let end = deadline.load(ordering: .acquiring)
        guard end != .max else { return nil }
        let now = InterruptGate.now()
        return end > now ? Double(end - now) / 1e9 : 0
    }

    /// Why the current call should stop, if it should.
    package var reason: Reason? {
        if isStopped { return .stopped }
        return InterruptGate.now() > deadline.load(ordering: .acquiring) ? .timedOut : nil
    }

    /// The callback FFmpeg calls (`AVIOInterruptCB`). It holds the gate unretained, so only
    /// `FormatContext` and `FeedPageStream`, which keep the gate alive as long as themselves, install it.
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(callback: { opaque in
            guard let opaque else { return 0 }
            return Unmanaged<InterruptGate>.fromOpaque(opaque).takeUnretainedValue().reason == nil ? 0 : 1
        }, opaque: Unmanaged.passUnretained(self).toOpaque())
    }

    /// `seconds` in nanoseconds, 0 for a negative or NaN wait and at most a century, so that no
    /// wait a caller asks for can trap the conversion or wrap the deadline.
    static func nanoseconds(_ seconds: Double) -> UInt64 {
        seconds > 0 ? UInt64(min(seconds, 3.2e9) * 1e9) : 0
    }

    package static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Sleeps up to `seconds`, waking early when the gate is stopped. Returns false if stopped.
    package func sleep(seconds: Double) -> Bool {
        let end = InterruptGate.now() &+ InterruptGate.nanoseconds(seconds)
        while InterruptGate.now() < end {
            if isStopped { return false }
            usleep(10_000)
        }
        return !isStopped
    }
}
