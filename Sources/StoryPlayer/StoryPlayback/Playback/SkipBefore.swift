import Synchronization

/// The player's word to a live item's convert thread: pictures of time line `epoch` older than
/// `time` are already late, so they are passed over without being converted. That is how a
/// live player catches up with its edge cheaply: decoding cannot be skipped (later pictures
/// refer to earlier ones), converting can.
final class SkipBefore: Sendable {
    private let bound = Mutex<(epoch: Int, time: Double)>((0, -.infinity))
    private let skipped = Atomic<Int>(0)

    func set(_ time: Double, epoch: Int) {
        bound.withLock { $0 = (epoch, time) }
    }

    /// Whether a picture of `time` on time line `epoch` is late; counts it if so.
    func passesOver(_ time: Double, epoch: Int) -> Bool {
        let late = bound.withLock { $0.epoch == epoch && time < $0.time }
        if late { skipped.add(1, ordering: .relaxed) }
        return late
    }

    /// Counts pictures the decode thread passed over itself (a pushed source's opening burst).
    func count(passedOver pictures: Int) {
        if pictures > 0 { skipped.add(pictures, ordering: .relaxed) }
    }

    /// Pictures passed over so far.
    var count: Int { skipped.load(ordering: .relaxed) }
}
