package import CFFmpeg
import Synchronization

// One owner per C resource, as in swift-system: each class frees its object in `deinit` and
// in `close()`, so a stopped player can free everything at once without waiting for ARC.
// None of these types leaves the module.

/// Owns an `AVFormatContext` opened by `avformat_open_input`; frees it with `avformat_close_input`.
/// Its calls are its methods (`readFrame(into:)`, `seek`, `bestStream`, `findStreamInfo`,
/// `openDecoder`), and what it says of its streams comes out as Swift values
/// (`FormatContext+Streams`): the pointer never leaves it.
package final class FormatContext {
    private var pointer: UnsafeMutablePointer<AVFormatContext>?
    /// FFmpeg's interrupt callback holds this gate unretained; the context holds it strongly, so
    /// the gate lives as long as FFmpeg can call it.
    private let gate: InterruptGate?
    /// The input a segment feed (DASH, Low-Latency HLS) gives the demuxer (`init(input:)`), closed with it.
    let input: SegmentInput?
    /// What the demuxer opened, when asked to note it (`DemuxerOpenings`): FFmpeg holds it
    /// unretained as the context's `opaque`, so the context keeps it.
    private let openings: DemuxerOpenings?

    /// Demuxers allocated and not yet freed, process-wide: how tests and benchmarks see that a
    /// stopped player's FFmpeg objects really went away.
    static let alive = Atomic<Int>(0)

    /// `avformat_open_input` with the given options (protocol whitelist, timeouts).
    /// `name` is how messages refer to the source (a path rather than the `file:` URL opened).
    /// Blocking calls run under `gate`'s interrupt callback.
    /// With `openings`, the URLs the demuxer opens (its playlist and segments) are noted there.
    convenience init(url: String, name: String, options: [String: String], gate: InterruptGate?,
                     openings: DemuxerOpenings? = nil) throws(MediaError) {
        try self.init(opening: url, input: nil, name: name, options: options, gate: gate, openings: openings)
    }

    /// `avformat_open_input` on `input` (`AVFMT_FLAG_CUSTOM_IO`), probing its format: a DASH
    /// representation's segments, read in order by this program rather than by FFmpeg's DASH
    /// demuxer (`DASHSegmentFeed`). Takes `input` over: closing this closes it.
    package convenience init(input: SegmentInput, name: String, options: [String: String], gate: InterruptGate) throws(MediaError) {
        try self.init(opening: "", input: input, name: name, options: options, gate: gate)
    }

    private init(opening url: String, input: SegmentInput?, name: String, options: [String: String],
                 gate: InterruptGate?, openings: DemuxerOpenings? = nil) throws(MediaError) {
        self.gate = gate
        self.input = input
        self.openings = openings
        guard let allocated = avformat_alloc_context() else {
            input?.close()
            throw MediaError(.open, "cannot open \(name)", cause: "out of memory")
        }
        FormatContext.alive.add(1, ordering: .relaxed)
        if let gate { allocated.pointee.interrupt_callback = gate.callback }
        input?.install(in: allocated)
        openings?.install(in: allocated)
        var context: UnsafeMutablePointer<AVFormatContext>? = allocated
        var dictionary = FFmpegDictionary(options)
        let status: Int32
        if let injected = FFmpegFaults.injected(.openInput) {
            avformat_free_context(allocated)
            context = nil
            status = injected
        } else {
            // On failure avformat_open_input frees the context and sets it to NULL; a custom
            // input it leaves to its owner.
            status = dictionary.withUnsafeDictionary { avformat_open_input(&context, url, nil, $0) }
        }
        guard status >= 0, let context else {
            FormatContext.alive.subtract(1, ordering: .relaxed)
            // A DASH feed knows why its segments did not come, which the status cannot say.
            let failure = input?.failure
            input?.close()
            throw failure ?? MediaError(.open, "cannot open \(name)", averror: status)
        }
        pointer = context
    }

    /// The URLs the demuxer opened, in order, when it was asked to note them.
    package var openedURLs: [String] { openings?.urls ?? [] }
    /// Why the demuxer's last nested opening failed, when a server refused it (`DemuxerOpenings.refusalDetail`).
    var refusalDetail: String? { openings?.refusalDetail }

    /// Why a DASH feed stopped, when its segments could not be fetched.
    var inputFailure: MediaError? { input?.failure }
    /// Whether a DASH feed ended because its manifest says the presentation did.
    var inputEnded: Bool { input?.ended ?? false }

    private var context: UnsafeMutablePointer<AVFormatContext> {
        guard let pointer else { preconditionFailure("demuxing after close()") }
        return pointer
    }

    /// `av_read_frame` into `packet`: 0, or a negative AVERROR code (end of file, a read error).
    package func readFrame(into packet: Packet) -> Int32 {
        let context = context
        if let injected = FFmpegFaults.injected(.readFrame) { return injected }
        return packet.withUnsafeAVPacket { av_read_frame(context, $0) }
    }

    /// `av_find_best_stream` of `type`: the stream's index, or a negative AVERROR code
    /// (`AVERROR_STREAM_NOT_FOUND`, `AVERROR_DECODER_NOT_FOUND`).
    func bestStream(_ type: AVMediaType) -> Int32 {
        let context = context
        return FFmpegFaults.injected(.findBestStream) ?? av_find_best_stream(context, type, -1, -1, nil, 0)
    }

    /// The audio stream a story's sound is taken from, or a negative AVERROR code: the best one
    /// (`bestStream`). A live MPEG-TS source (an HLS segment) is analysed for 0.1 s only and
    /// may not have told its sound's rate and channels by then, and `av_find_best_stream`
    /// passes over such a stream (a live HLS room participant was muted), while its decoder
    /// learns them from the first frame (AAC's ADTS headers). So a live source without a best
    /// stream takes `heard`, the stream whose packet came first when the caller reads packets
    /// (not the first listed: with several, one that sends nothing would keep the story
    /// silent), else the first audio stream whose codec is known.
    package func soundStream(isLive: Bool, heard: Int32? = nil) -> Int32 {
        let best = bestStream(AVMEDIA_TYPE_AUDIO)
        guard best < 0, isLive else { return best }
        if let heard { return heard }
        return streams.first(where: { $0.type == AVMEDIA_TYPE_AUDIO && $0.codecID != AV_CODEC_ID_NONE })?.index ?? best
    }

    /// `avformat_seek_file` of stream `index` to the last keyframe whose picture is at or before
    /// `timestamp` (a presentation time, in the stream's time base): 0 or more, or a negative
    /// AVERROR code.
    ///
    /// The MP4 demuxer compares the time it is asked for with its index's decoding times, less
    /// the first picture's reorder delay. A keyframe whose own delay is longer (a phone's HEVC
    /// with open GOPs: 3 frames against 2) is then reached from the picture before it, which
    /// cannot be decoded from that keyframe: a shard starting there showed a wrong picture. So
    /// the keyframe landed on is read back (`landedKeyframe`), and a seek that overshot is made
    /// again, earlier by the overshoot, until it lands at or before `timestamp`.
    func seek(stream index: Int32, to timestamp: Int64) -> Int32 {
        let context = context
        func seekFile(_ target: Int64) -> Int32 {
            FFmpegFaults.injected(.seek) ?? avformat_seek_file(context, index, Int64.min, target, target, 0)
        }
        var asked = timestamp
        for _ in 0..<FormatContext.seekTries {
            let status = seekFile(asked)
            guard status >= 0 else { return status }
            guard let landed = landedKeyframe(stream: index), landed > timestamp, asked > Int64.min else {
                // Reading the keyframe moved the demuxer on: back to it.
                return seekFile(asked)
            }
            let (earlier, overflow) = asked.subtractingReportingOverflow(landed - timestamp + 1)
            asked = overflow ? Int64.min : earlier
        }
        return seekFile(asked)
    }

    /// Seeks made at most to land at or before a time: an overshoot is one keyframe's extra
    /// delay, so a second try lands on the keyframe before.
    static let seekTries = 3

    /// The presentation time of stream `index`'s first packet after a seek (the keyframe it
    /// landed on); nil when none comes within a few hundred packets, or it has none.
    private func landedKeyframe(stream index: Int32) -> Int64? {
        let packet = Packet()
        for _ in 0..<500 {
            guard readFrame(into: packet) >= 0 else { return nil }
            defer { packet.unref() }
            guard packet.streamIndex == index else { continue }
            let pts = packet.presentationTimestamp
            return pts == cffmpeg_nopts_value() ? nil : pts
        }
        return nil
    }

    /// A decoder opened for stream `index` (`CodecContext(parameters:)`, with the stream's
    /// `codecpar`) with `threads` threads, refusing pictures over `maxPixels`.
    func openDecoder(stream index: Int32, maxPixels: Int, threads: Int) throws(MediaError) -> CodecContext {
        guard let stream = stream(at: index), let parameters = stream.pointee.codecpar else {
            preconditionFailure("a decoder for stream \(index), which the demuxer does not have")
        }
        return try CodecContext(parameters: parameters, maxPixels: maxPixels, threads: threads)
    }

    /// `avformat_find_stream_info` with `max_pixels` set on each stream's probing decoder
    /// (probing decodes a frame too, so it gets the same pixel limit as the real decoder);
    /// skipped, returning 0, when the header already says everything (`headerDescribesStreams`).
    func findStreamInfo(maxPixels: Int) -> Int32 {
        let context = context
        if headerDescribesStreams { return 0 }
        if let injected = FFmpegFaults.injected(.findStreamInfo) { return injected }
        let streamCount = Int(context.pointee.nb_streams)
        guard streamCount > 0 else { return avformat_find_stream_info(context, nil) }
        let options = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: streamCount)
        options.initialize(repeating: nil, count: streamCount)
        defer {
            for i in 0..<streamCount { av_dict_free(&options[i]) }
            options.deallocate()
        }
        for i in 0..<streamCount { av_dict_set(&options[i], "max_pixels", String(maxPixels), 0) }
        return avformat_find_stream_info(context, options)
    }

    /// Stream `index`, when the demuxer has it; it stays inside: callers get `description(ofStream:)`.
    private func stream(at index: Int32) -> UnsafeMutablePointer<AVStream>? {
        guard let pointer, index >= 0, index < Int32(pointer.pointee.nb_streams) else { return nil }
        return pointer.pointee.streams[Int(index)]
    }

    /// How many streams the demuxer knows now (a live one may find more as it reads).
    var streamCount: Int32 { pointer.map { Int32($0.pointee.nb_streams) } ?? 0 }

    /// The demuxer's name (`iformat->name`), e.g. "hls" or "flv".
    package var formatName: String {
        pointer.map { String(cString: $0.pointee.iformat.pointee.name) } ?? ""
    }

    /// Whether the container's own tags announce a video track (`av_dict_get` on its
    /// `metadata`): an FLV stream's `onMetaData` as publishers write it (`videocodecid`, `width`,
    /// `framerate`) or as nginx-rtmp rewrites it (`displayWidth`, `fps`, 0 for a stream of sound
    /// only). FLV announces its tracks only with their first packets, and an RTMP server holds
    /// video back until a keyframe, so this is what tells a camera whose keyframe has not come
    /// from a radio stream.
    var announcesVideo: Bool {
        guard let context = pointer else { return false }
        return FormatContext.videoTags.contains { key in
            guard let entry = av_dict_get(context.pointee.metadata, key, nil, 0), let value = entry.pointee.value else { return false }
            let text = String(cString: value).trimmingCharacters(in: .whitespaces)
            return !text.isEmpty && Double(text).map { $0 > 0 } ?? true
        }
    }

    private static let videoTags = ["videocodecid", "width", "height", "framerate", "videodatarate",
                                    "displayWidth", "displayHeight", "fps"]

    /// The whole container's duration in seconds (`duration`), when it says.
    var duration: Double? {
        guard let context = pointer, context.pointee.duration != cffmpeg_nopts_value(), context.pointee.duration > 0 else { return nil }
        return Double(context.pointee.duration) / Double(cffmpeg_time_base())
    }

    /// The stream's pixel aspect ratio as FFmpeg guesses it from the container and the codec
    /// (`av_guess_sample_aspect_ratio`); 1 when it cannot say.
    func sampleAspectRatio(ofStream index: Int32) -> Double {
        guard let context = pointer, let stream = stream(at: index) else { return 1 }
        let sar = av_guess_sample_aspect_ratio(context, stream, nil)
        return sar.num > 0 && sar.den > 0 ? av_q2d(sar) : 1
    }

    /// The stream's frame rate as FFmpeg guesses it (`av_guess_frame_rate`); 0 when unknown.
    func frameRate(ofStream index: Int32) -> Double {
        guard let context = pointer, let stream = stream(at: index) else { return 0 }
        let rate = av_guess_frame_rate(context, stream, nil)
        return rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0
    }

    // MARK: - Streams as Swift values

    /// What the container says of stream `index` now; nil when there is no such stream.
    func description(ofStream index: Int32) -> StreamDescription? {
        guard let stream = stream(at: index), let parameters = stream.pointee.codecpar else { return nil }
        let duration = stream.pointee.duration
        return StreamDescription(index: index, type: parameters.pointee.codec_type, codecID: parameters.pointee.codec_id,
                                 width: Int(parameters.pointee.width), height: Int(parameters.pointee.height),
                                 channels: Int(parameters.pointee.ch_layout.nb_channels),
                                 sampleRate: Int(parameters.pointee.sample_rate), timeline: StreamTimeline(stream),
                                 duration: duration != cffmpeg_nopts_value() && duration > 0 ? duration : nil,
                                 colourTransfer: parameters.pointee.color_trc, colourPrimaries: parameters.pointee.color_primaries,
                                 bitRate: parameters.pointee.bit_rate)
    }

    /// Every stream the container knows now, in order.
    var streams: [StreamDescription] { (0..<streamCount).compactMap { description(ofStream: $0) } }

    /// Whether stream `index` is a picture attached to the file (`AV_DISPOSITION_ATTACHED_PIC`):
    /// the cover art of a song or a voice note, which FFmpeg lists as a video stream of one
    /// picture.
    /// Whether its best video stream shows moving pictures: there is one, and it is not an
    /// attached picture (a song's cover art), which makes the source one of sound only.
    var hasMovingPictures: Bool {
        let video = bestStream(AVMEDIA_TYPE_VIDEO)
        return video >= 0 && !isAttachedPicture(stream: video)
    }

    func isAttachedPicture(stream index: Int32) -> Bool {
        guard let stream = stream(at: index) else { return false }
        return stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0
    }

    /// Whether stream `index` is video, sound, …: what each packet read is asked, so it is
    /// cheaper than a whole `description(ofStream:)`. nil when there is no such stream.
    package func mediaType(ofStream index: Int32) -> AVMediaType? {
        stream(at: index)?.pointee.codecpar?.pointee.codec_type
    }

    /// Stream `index`'s keyframes as the demuxer's index lists them (`avformat_index_get_entries_count`,
    /// `avformat_index_get_entry`, entries flagged `AVINDEX_KEYFRAME`), in seconds from the first
    /// entry: where a seek can land. An index holds decoding times, which run behind the
    /// pictures' by the B-frames' reorder delay (MP4's first keyframe decodes at -2 frames and
    /// shows at 0); counted from the first entry, which shows first, they are the keyframes'
    /// times from the stream's start, as `avformat_seek_file` compares them (mov shifts the time
    /// it is asked for by that delay). Empty when the index cannot say so: when its first entry
    /// is one an edit list drops (a clip cut without re-encoding: the times would be off by the
    /// cut), or when it does not reach the stream's end (Matroska and MPEG-TS fill theirs as they
    /// read, so at opening it lists a keyframe or none). Arithmetic in `Double`: a crafted
    /// file's timestamps cannot overflow it.
    func keyframeTimes(ofStream index: Int32) -> [Double] {
        guard let stream = stream(at: index) else { return [] }
        let count = avformat_index_get_entries_count(stream)
        guard count > 0, let first = avformat_index_get_entry(stream, 0)?.pointee,
              first.flags & Int32(AVINDEX_DISCARD_FRAME) == 0,
              let last = avformat_index_get_entry(stream, count - 1)?.pointee.timestamp else { return [] }
        let unit = av_q2d(stream.pointee.time_base)
        let duration = stream.pointee.duration
        guard unit > 0, duration != cffmpeg_nopts_value(), duration > 0 else { return [] }
        let span = (Double(last) - Double(first.timestamp)) * unit
        let length = Double(duration) * unit
        guard span >= length * 0.9 - 1 else { return [] }
        return (0..<count).compactMap { entry in
            guard let found = avformat_index_get_entry(stream, entry)?.pointee,
                  found.flags & Int32(AVINDEX_KEYFRAME) != 0 else { return nil }
            return (Double(found.timestamp) - Double(first.timestamp)) * unit
        }
    }

    /// The stream's display matrix (a phone video's rotation); nil without one.
    func orientation(ofStream index: Int32) -> PictureOrientation? {
        stream(at: index).flatMap { PictureOrientation.of($0) }
    }

    /// Whether an MP4/MOV header already gives every audio and video stream what a story needs
    /// (codec, picture size; sample rate, channels), so `avformat_find_stream_info` can be
    /// skipped. That call decodes the first pictures only to learn the pixel format and the
    /// decoder's delay, which the decoder learns anyway: on a 720x1280 story it cost 6-24 ms,
    /// a third to a half of a file's time to first frame. Everything else reads the stream
    /// information as before.
    private var headerDescribesStreams: Bool {
        guard formatName.hasPrefix("mov,mp4") else { return false }
        var video = false
        for stream in streams {
            switch stream.type {
            case AVMEDIA_TYPE_VIDEO:
                guard stream.codecID != AV_CODEC_ID_NONE, stream.width > 0, stream.height > 0 else { return false }
                video = true
            case AVMEDIA_TYPE_AUDIO:
                guard stream.codecID != AV_CODEC_ID_NONE, stream.sampleRate > 0, stream.channels > 0 else { return false }
            default:
                continue
            }
        }
        return video
    }

    /// `avformat_close_input`: closes the demuxer and its I/O now.
    package func close() {
        if pointer != nil {
            avformat_close_input(&pointer)
            FormatContext.alive.subtract(1, ordering: .relaxed)
        }
        input?.close()
    }

    deinit { close() }
}

/// One stream of a demuxer as its container describes it (`AVStream` and its `codecpar`), as
/// Swift values: the demuxer's pointers stay in `FormatContext`.
struct StreamDescription {
    let index: Int32
    /// `AVMEDIA_TYPE_VIDEO`, `AVMEDIA_TYPE_AUDIO`, …
    let type: AVMediaType
    let codecID: AVCodecID
    /// 0 for sound, or while unknown.
    let width: Int, height: Int
    /// 0 for video, or while unknown.
    let channels: Int, sampleRate: Int
    let timeline: StreamTimeline
    /// The stream's own length in time-base units, when the container gives one.
    let duration: Int64?
    /// What the container says of its colour (an MP4's `colr` box).
    let colourTransfer: AVColorTransferCharacteristic
    let colourPrimaries: AVColorPrimaries
    /// Bits per second, as the container says (an MP4's `btrt` box, or its size over its
    /// length); 0 when unknown.
    let bitRate: Int64

    /// FFmpeg's name of the codec (`avcodec_get_name`), e.g. "h264".
    var codecName: String { String(cString: avcodec_get_name(codecID)) }
}
