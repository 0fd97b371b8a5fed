internal import CFFmpeg

/// A stream's timestamps as media seconds from the stream's first one.
///
/// FFmpeg counts a stream's time in `time_base` units from an arbitrary `start_time`. The
/// arithmetic is in `Double`, and conversions back are clamped, because both numbers come from
/// the file: a crafted stream must not make `pts - start_time` overflow and trap.
struct StreamTimeline {
    /// Seconds per timestamp unit (`av_q2d(time_base)`).
    let unit: Double
    /// The stream's first timestamp (`start_time`), or 0 when it has none.
    let start: Int64

    init(_ stream: UnsafePointer<AVStream>) {
        self.init(unit: av_q2d(stream.pointee.time_base),
                  start: stream.pointee.start_time == cffmpeg_nopts_value() ? 0 : stream.pointee.start_time)
    }

    init(unit: Double, start: Int64) {
        self.unit = unit
        self.start = start
    }

    /// The same stream timed from `seconds` after its start (an item's trim, `ClipTrim`): a
    /// timestamp there is 0, earlier ones negative.
    func starting(after seconds: Double) -> StreamTimeline {
        seconds > 0 ? StreamTimeline(unit: unit, start: timestamp(seconds)) : self
    }

    /// Media seconds of timestamp `pts`; nil for `AV_NOPTS_VALUE`.
    func seconds(_ pts: Int64) -> Double? {
        pts == cffmpeg_nopts_value() ? nil : (Double(pts) - Double(start)) * unit
    }

    /// Seconds of a length in timestamp units (a stream's `duration`).
    func seconds(length: Int64) -> Double {
        Double(length) * unit
    }

    /// The timestamp at `seconds`, rounded down, clamped to what an `Int64` holds.
    func timestamp(_ seconds: Double) -> Int64 {
        let offset = unit > 0 ? (seconds / unit).rounded(.down) : 0
        let units = offset.isFinite ? Int64(min(max(offset, -9.2e18), 9.2e18)) : offset > 0 ? .max : .min
        let (sum, overflow) = start.addingReportingOverflow(units)
        return overflow ? (units > 0 ? .max : .min) : sum
    }
}
