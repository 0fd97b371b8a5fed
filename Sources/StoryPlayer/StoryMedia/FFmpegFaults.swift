import Synchronization

/// The FFmpeg calls a test can make fail (`FFmpegFaults`).
enum FFmpegCall: Sendable, Hashable {
    case openInput, openCodec, readFrame, sendPacket, scale
    /// The MP4 muxer: `avio_open`, `avformat_write_header`, `av_interleaved_write_frame`.
    case openOutput, writeHeader, writeFrame
}

/// Fault injection for tests, in the spirit of swift-system's `Mocking.swift`: the FFmpeg owners
/// ask `injected(_:)` before each call that can fail, and a test makes the Nth call of one kind
/// return an AVERROR code instead, to see that the failure reaches the trace or the caller and
/// that every owner is freed. Internal: only `@testable` code can arm it.
///
/// Built only with `ENABLE_FFMPEG_FAULTS` (debug builds, which the tests are: see
/// Package.swift); elsewhere `injected(_:)` is a constant nil the optimiser removes. Armed off,
/// it costs one relaxed atomic load per call.
enum FFmpegFaults {
    #if ENABLE_FFMPEG_FAULTS
    private struct Rule {
        var failing: ClosedRange<Int>
        var code: Int32
        var calls = 0
    }

    private static let armed = Atomic<Bool>(false)
    private static let rules = Mutex<[FFmpegCall: Rule]>([:])

    /// Makes the `nth` call (1-based, counted from now) of `call` return `code`, and the
    /// `times - 1` calls after it (`.max`: every call from the `nth` on, which a test needs when
    /// several threads, a player and a preload, make the same call in no fixed order).
    static func fail(_ call: FFmpegCall, nth: Int = 1, times: Int = 1, with code: Int32) {
        precondition(nth >= 1 && times >= 1, "calls are counted from 1")
        let last = times == .max ? Int.max : nth + times - 1
        rules.withLock { $0[call] = Rule(failing: nth...last, code: code) }
        armed.store(true, ordering: .relaxed)
    }

    /// Forgets every fault.
    static func reset() {
        armed.store(false, ordering: .relaxed)
        rules.withLock { $0.removeAll() }
    }

    /// The code to return instead of making `call`, or nil to make it.
    @inline(__always)
    static func injected(_ call: FFmpegCall) -> Int32? {
        guard armed.load(ordering: .relaxed) else { return nil }
        return rules.withLock { rules in
            guard var rule = rules[call] else { return nil }
            rule.calls += 1
            rules[call] = rule
            return rule.failing.contains(rule.calls) ? rule.code : nil
        }
    }
    #else
    /// Release builds have no seam: every call is made.
    @inline(__always)
    static func injected(_ call: FFmpegCall) -> Int32? { nil }
    #endif
}
