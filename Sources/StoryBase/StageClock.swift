#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// The stages a frame goes through, for `stages_ms` in `summary.json`.
public enum PipelineStage: String, Sendable, CaseIterable {
    /// Demuxing and decoding the pictures players show, opening their sources included.
    case decode
    /// Posters and probes of the preload window: sources opened and first keyframes decoded
    /// before a story plays, work that FFmpeg playing the same clips does not do.
    case preload
    case convert, raster, overlay
    /// The backdrop behind an opening, pulled or closing viewer: its blur and dim.
    case blur
    case encode
}

/// Adds up the CPU time each pipeline stage spends, across all threads.
///
/// Stages are timed with the calling thread's CPU clock (`CLOCK_THREAD_CPUTIME_ID`), not the wall
/// clock, so a stage that waits for a core is not charged for the wait, and the totals can be
/// compared with the render's wall time to see how busy the cores were.
public final class StageClock: Sendable {
    private let totals = Mutex<[PipelineStage: Double]>([:])
    /// A shard's cost of reaching its first frame, apart from the stages (which it overlaps:
    /// decoding forward is decode time too).
    private let shard = Mutex(ShardCost())

    public init() {}

    /// Runs `body` and charges its CPU time to `stage`.
    @inlinable
    public func measure<T, E: Error>(_ stage: PipelineStage, _ body: () throws(E) -> T) throws(E) -> T {
        let start = StageClock.threadCPUSeconds()
        defer { add(stage, StageClock.threadCPUSeconds() - start) }
        return try body()
    }

    public func add(_ stage: PipelineStage, _ seconds: Double) {
        totals.withLock { $0[stage, default: 0] += seconds }
    }

    /// Adds `count` of a shard's `part` and the CPU seconds they took (`ShardCost`).
    public func addShardCost(_ part: ShardCost.Part, count: Int = 1, seconds: Double) {
        shard.withLock {
            $0[part].count += count
            $0[part].cpuSeconds += seconds
        }
    }

    /// Counts pictures a shard's decoding forward saved: discarded by the decoder, or not converted.
    public func addShardSavings(droppable: Int = 0) {
        shard.withLock { $0.droppablePackets += droppable }
    }

    /// A shard's cost of reaching its first frame so far.
    public var shardCost: ShardCost { shard.withLock { $0 } }

    /// CPU seconds charged to each stage so far.
    public var seconds: [PipelineStage: Double] {
        totals.withLock { $0 }
    }

    /// This thread's CPU time in seconds.
    public static func threadCPUSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
