import Foundation
import StoryBase
import StoryModel

/// Limits that protect the process from hostile or broken media.
public struct DecodeLimits: Sendable {
    /// The most pixels a picture may have (width × height). A 16000×16000 image fails with a
    /// clear error instead of allocating a gigabyte.
    public var maxPixels: Int = 8192 * 8192
    /// Decoder threads per stream, for everything but playing a recorded video: posters, probes,
    /// pictures (one keyframe each, where threads only add their start-up).
    public var decoderThreads: Int = 1
    /// Decoder threads of a playing recorded video (FFmpeg's frame threads): two from four cores
    /// up, else one. Frame threads decode the same pictures, bit for bit, but cost FFmpeg 6-7 %
    /// more CPU (`ffmpeg -threads 2` against `-threads 1`, and our decode stage alike). On two
    /// cores they no longer buy time: with each picture converted on a thread of its own
    /// (`DecodeThread`), the decode thread and the render's own work fill both cores, and one
    /// decoder thread rendered as fast as two (bench board 682 against 682 ms, one story at rest
    /// 497 against 503 ms). That holds for story bit rates; a heavy stream is another matter
    /// (`heavyPlaybackThreads`). Live sources keep one thread: frame threads hold a picture back per
    /// thread, and a live story shows the newest.
    public var playbackThreads: Int = max(1, min(2, ProcessInfo.processInfo.activeProcessorCount / 2))
    /// Decoder threads of a playing recorded video whose stream is heavy (`heavyBitsPerPixel`):
    /// two from two cores up. A noisy CRF-18 clip as phones record it spends ~3 bits a pixel and
    /// costs ~35 ms a picture to decode at 720x1280 on one thread, three times what the rest of a
    /// frame costs (convert, raster, PNG): a story at rest then waits on its one decode thread
    /// while the other core idles, and frame threads put both cores to work (issue 33; see
    /// `decoderThreads(for:)`).
    public var heavyPlaybackThreads: Int = min(2, ProcessInfo.processInfo.activeProcessorCount)
    /// Bits per pixel (the stream's bit rate over width × height × frame rate) from which a
    /// stream is heavy. Story bit rates (5 Mbit/s at 720p30, 8 at 1080p30) spend 0.13-0.18;
    /// x264's CRF 23 on sensor noise 1.7, CRF 18 about 3.
    public var heavyBitsPerPixel: Double = 0.5
    /// Set by the player for a playing recorded video: its decoder opens with
    /// `heavyPlaybackThreads` when the stream is heavy. nil for everything else (posters, probes,
    /// live sources, which keep one thread: see `playbackThreads`).
    package var heavyDecoderThreads: Int?
    /// Converted pictures a decode thread may hold ahead of the one shown (memory: each is one
    /// canvas, 8 MB at 1080x1920). The player looks at the next picture before it shows the
    /// current one (is it due too?), and that next picture waits in this queue until its
    /// time. With room for one, the convert thread then had nowhere to put the picture after
    /// it and stood idle while the frame was drawn, and the frame waited for that conversion:
    /// a room at 720x1280, whose large video converts in about 4 ms and draws in about 8,
    /// took 12-13 ms a frame. With two it takes 8-9 (`bench/room-throughput.sh`); a cube of
    /// two stories, whose frames draw in a third of that, is as fast either way.
    public var queuedPictures: Int = 2
    /// How far a recorded play's decode thread may run ahead of its convert thread, in bytes of
    /// decoded pictures (`picturesAhead(each:)`): 16 MB is eleven 720x1280 pictures (4:2:0,
    /// 8 bits), five at 1080x1920, one at 4K. A room's participants keep one picture (0 here):
    /// nine of them would hold 150 MB more.
    ///
    /// When the next story starts to play, the frame waits for its first picture: a noisy
    /// keyframe and the pictures its reordering waits for, 30-50 ms of one core at 720x1280.
    /// With one picture of room, the story still on screen had stopped decoding by then, and
    /// the other core stood idle. With this room it decodes on into the wait, and the pictures it
    /// needs during the turn are ready sooner: the 90-frame cube of `bench/compare-ffmpeg.sh`
    /// took 0.57 and 0.62 s against 0.62 and 0.67 (two runs, medians of 5, alternated), at
    /// 17-25 MB more peak RSS.
    public var decodeAheadBytes: Int = 16 << 20
    /// Waiting limits for network sources.
    public var timeouts = Timeouts()
    /// The storyboard's `protocols`, narrowing each source's own list.
    public var protocols: [String]?
    /// The storyboard's `latency`, under each live item's own.
    public var latency = LiveLatency()

    public init() {}
}

// MARK: - Decoding ahead

extension DecodeLimits {
    /// The most decoded pictures a play holds ahead, whatever their size: past about a dozen,
    /// a longer run ahead fills no wait the bench shows.
    package static let mostPicturesAhead = 12

    /// How many decoded pictures of `bytes` each a recorded play's decode thread may queue for
    /// its convert thread: as many as fit in `decodeAheadBytes`, from 1 to `mostPicturesAhead`.
    package func picturesAhead(each bytes: Int) -> Int {
        guard bytes > 0 else { return 1 }
        return min(DecodeLimits.mostPicturesAhead, max(1, decodeAheadBytes / bytes))
    }

    /// The most pictures a play's threads hold past the one on screen: the decoded ones a
    /// recorded play runs ahead by (`mostPicturesAhead`), the converted queue, and one in each
    /// thread's hand. The render's foresight of where plays end looks at least this far ahead.
    package var picturesInFlight: Int { DecodeLimits.mostPicturesAhead + queuedPictures + 2 }
}
