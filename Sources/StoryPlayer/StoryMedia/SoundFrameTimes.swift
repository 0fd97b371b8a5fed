internal import CFFmpeg

/// The time of each decoded sound frame, in seconds of its stream's time line: its own timestamp,
/// or, for a frame that came without one, the end of the frame before.
///
/// MPEG-TS carries one PES timestamp for several AAC frames (ffmpeg's muxer packs about 0.3 s
/// in one). The demuxer times the rest from their duration, but only once it knows the rate,
/// which a live HLS segment's 0.1 s analysis may not learn: all but the first frame of each
/// packet then come untimed. Dropped, they left 25 ms heard every 0.3 s; placed at 0, they
/// piled up at the start of the time line.
struct SoundFrameTimes {
    private let timeline: StreamTimeline
    /// Where the next frame starts: the end of the last one timed.
    private var following: Double?

    init(_ timeline: StreamTimeline) {
        self.timeline = timeline
    }

    /// `frame`'s time (`best_effort_timestamp`, else the end of the frame before); nil when it
    /// has no timestamp and no frame was timed before it.
    mutating func time(of frame: Frame) -> Double? {
        time(timestamp: frame.bestEffortTimestamp, samples: frame.sampleCount, rate: frame.sampleRate)
    }

    /// The time of a frame of `samples` samples at `rate` a second with `timestamp`
    /// (`AV_NOPTS_VALUE` when it has none). A frame whose rate is unknown times no frame after it.
    mutating func time(timestamp: Int64, samples: Int32, rate: Int32) -> Double? {
        guard let time = timeline.seconds(timestamp) ?? following else { return nil }
        following = rate > 0 ? time + Double(samples) / Double(rate) : nil
        return time
    }
}
