internal import CFFmpeg
import Foundation
import Compositor
import StoryModel

/// A decoded picture with its presentation time, still in the source's pixel format, and how
/// its stream is to be shown (turned, stretched).
///
/// Sendable because it is handed over whole: the decode thread makes it, queues it, and keeps
/// no reference; from then on only the converting thread touches the frame. The frame's buffers
/// are reference-counted by FFmpeg, so freeing it there, after the decoder closed, is safe.
package final class DecodedPicture: @unchecked Sendable {
    let frame: Frame
    /// Seconds from the stream's start.
    package let time: Double
    /// How to show it upright: its stream's display matrix, or the picture's own EXIF.
    let orientation: PictureOrientation
    /// Clockwise quarter turns the picture asks for.
    var quarterTurns: Int { orientation.quarterTurns }
    /// The stream's pixel aspect ratio, for frames that do not carry their own.
    let sampleAspectRatio: Double

    /// Its size as shown: stretched by its pixel aspect ratio and turned upright, as
    /// `PictureConverter.rgba` shows it.
    package var shownSize: (width: Int, height: Int) {
        let aspect = frame.sampleAspectRatio
        let sar = aspect.num > 0 && aspect.den > 0 ? av_q2d(aspect) : sampleAspectRatio
        let width = Int((Double(frame.width) * sar).rounded()), height = Int(frame.height)
        return quarterTurns % 2 == 1 ? (height, width) : (width, height)
    }

    /// The bytes its planes take (`av_image_get_buffer_size`, rows unpadded): what holding it
    /// costs; 0 for a format FFmpeg cannot size.
    package var byteCount: Int {
        Int(max(0, av_image_get_buffer_size(frame.pixelFormat, frame.width, frame.height, 1)))
    }

    init(frame: Frame, time: Double, orientation: PictureOrientation = .upright, sampleAspectRatio: Double = 1) {
        self.frame = frame
        self.time = time
        self.orientation = orientation
        self.sampleAspectRatio = sampleAspectRatio
    }
}

/// The demuxer, decoder and scaler for one play of one item.
///
/// Built fresh by every `play()`, and freed whole by `close()` (every `stop()`): nothing is
/// reused from an earlier play of the same item.
package final class MediaDecoder {
    /// The demuxer; nil for a HEIF photo, which libheif reads instead (`photo`).
    private let format: FormatContext?
    /// A HEIC, HEIF or AVIF photo (told by its `ftyp` brand), read by libheif; nil for anything
    /// FFmpeg reads. Closed after its one picture is decoded.
    private var photo: HEIFPhoto?
    /// The photo's embedded ICC profile, once its picture is decoded (or a HEIF photo is open):
    /// pictures are converted from it to sRGB.
    private(set) var colourProfile: ColourProfile?
    /// The codec and shown size of a HEIF photo, kept after it is decoded.
    private var photoFacts: (codec: String, width: Int, height: Int, colour: VideoColour)?
    /// The shown video stream and its decoder; nil until a live stream's video appears.
    private var track: VideoTrack?
    private let packet = Packet()
    /// Converts for posters, probes and tests (`rgba`); a playing item converts on a thread
    /// of its own, with a converter of its own.
    let converter = PictureConverter()
    private let limits: DecodeLimits
    private let sourceName: String
    /// Whether the video stream may appear after the source opened (live sources): until then
    /// the decoder reads on, counting sound, instead of failing.
    private let waitsForVideo: Bool
    private var inputDone = false
    private var outputDone = false
    /// Pictures returned so far, and the last packet the decoder refused: a stream that ends
    /// without a single picture fails with that error instead of ending quietly.
    private var picturesDecoded = 0
    /// The first picture's orientation, once it is decoded.
    private var firstOrientation: PictureOrientation?
    /// A still's orientation as its file's EXIF names it (`EXIFOrientation`), read from the
    /// packet, which is the whole file: for decoders that do not export it (FFmpeg 5.1's PNG
    /// decoder ignores an `eXIf` chunk, and a phone's PNG showed sideways).
    private var stillFileOrientation: PictureOrientation?
    private var lastRefusal: Int32?
    /// FFmpeg's last complaint while no picture had come yet (taken as each packet is sent).
    private var lastDecoderMessage: String?
    /// Set by `firstPicture()`: the input ends after the first keyframe the decoder accepts.
    private var drainsAfterKeyframe = false
    private var drainedEarly = false
    /// A shard's decoding forward after `seek(to:)`: which pictures need not be decoded.
    private var forwardDiscard: ForwardDiscard?
    private let gate: InterruptGate
    /// What has arrived, for the player (shared by every connection of one play).
    let reception: SourceReception
    /// When the first packet of the video stream arrived (CLOCK_MONOTONIC ns).
    package private(set) var firstPacketAt: UInt64?
    /// The read error that ended the input, when it was not a clean end of file.
    package private(set) var lastReadError: Int32?
    /// Why a live DASH story's segments stopped coming, when a fetch failed: what
    /// `lastReadError`'s code cannot say.
    package var inputFailure: MediaError? { format?.inputFailure }
    /// Whether a live DASH story's manifest said the presentation ended.
    package var inputEnded: Bool { format?.inputEnded ?? false }
    /// Whether sound is decoded as it is read (a live story's, for the MP4): see `takeSound()`.
    package var decodesSound = false {
        didSet { if decodesSound { dashSound?.start(limits: limits, reception: reception, name: "sound \(sourceName)") } }
    }
    /// A live DASH story's sound, read from its own segments on a thread of its own.
    private var dashSound: DASHSound?
    /// For a live DASH story, where its first segment starts on the manifest's time line
    /// (seconds of the period): what the edge the manifest gives is measured against.
    package private(set) var periodStart: Double?
    /// A Low-Latency HLS play (`HLSPartFeed`): the segment its first part belongs to, and how far
    /// into that segment the part starts.
    package private(set) var partStart: (sequence: Int, offsetInSegment: Double)?
    /// A live DASH publisher's clock less this machine's (`DASHServerClock`).
    package private(set) var dashClockOffset = 0.0
    /// How the source is delivered, for the trace (`protocol`): "ll-hls", "hls", "dash", "rtmp", ….
    package private(set) var deliveredBy = ""
    /// How long a WebRTC source's video packets stay in its jitter buffer (ms), as its session
    /// says now (`story_whep_status_get`, which asks webrtcbin for its stats: call it seldom);
    /// nil for every other source.
    package func jitterBufferMs() -> Double? {
        format?.whepSession.map { $0.figures.jitterDepthMs.rounded() }
    }

    /// The target the source suggests for its play, where it says one at its opening.
    package private(set) var suggestedTarget: Double?
    /// The decoder of the sound's stream (`FormatContext.soundStream`), once the first audio
    /// packet came; nil without `decodesSound`.
    private var soundTrack: SoundTrack?
    /// Sound decoded since the last `takeSound()`, in absolute stream seconds.
    private var heardSound: [SoundBlock] = []
    /// Where sound decoded before the source has sent any video goes, as it is decoded, in
    /// absolute stream seconds (with `decodesSound`): a live source of sound only never gives a
    /// picture to take its sound with (`takeSound()`), and a player reads it on a time line of
    /// its own (`LiveSound.beforeVideo`). Without it, that sound is not decoded.
    package var hearsBeforeVideo: (([SoundBlock]) -> Void)?

    /// A still image (JPEG, PNG, …): one frame, shown for the item's whole duration.
    package let isStill: Bool
    /// A recorded source of sound only (a voice note, a song): an audio stream and no video
    /// but, at most, an attached picture (its cover art, then the shown stream, `hasCoverArt`).
    /// It lasts as its sound does; what a play shows over it is the player's to choose
    /// (`SoundOnlyStill`). Never a live source: one of those may send its video later.
    package private(set) var isSoundOnly = false
    /// A source of sound only whose file carries a picture: its one picture is the cover art.
    package var hasCoverArt: Bool { isSoundOnly && track != nil }
    /// Whether swscale may write straight into a picture's storage (`PictureConverter`).
    var convertsInPlace: Bool {
        get { converter.convertsInPlace }
        set { converter.convertsInPlace = newValue }
    }

    /// The picture as canvas-size RGBA (`PictureConverter.rgba`).
    func rgba(_ picture: DecodedPicture, width: Int, height: Int, reusing spare: consuming RGBAImage? = nil) throws(MediaError) -> RGBAImage {
        try converter.rgba(picture, width: width, height: height, reusing: spare)
    }

    /// Opens `source` (`FormatContext.open`), then `av_find_best_stream` and `avcodec_open2`.
    /// A live source without a video stream yet opens all the same: see `VideoTrack`.
    /// `waitsForVideo` opens a recorded source without video too (what `probe` does, to list a
    /// sound file's streams); a live one always opens so.
    /// `listing` is a live HLS source's media playlist as just read (its URL and text): one that
    /// lists parts is played as Low-Latency HLS (`HLSPartFeed`), one without by FFmpeg's demuxer.
    package init(source: MediaSource, limits: DecodeLimits, gate: InterruptGate = InterruptGate(), isLive: Bool = false,
         waitsForVideo: Bool = false, reception: SourceReception = SourceReception(),
         listing: (url: String, playlist: HLSPlaylist)? = nil) throws(MediaError) {
        self.gate = gate
        self.limits = limits
        self.reception = reception
        sourceName = source.description
        self.waitsForVideo = isLive || waitsForVideo
        converter.toneMapper.curve = source.toneMap
        reception.reached(.connecting)
        if let photo = try HEIFPhoto.open(source, limits: limits) {
            self.photo = photo
            photoFacts = (photo.codecName, photo.width, photo.height, photo.colourTags?.videoColour ?? VideoColour())
            colourProfile = photo.colourProfile
            format = nil
            isStill = true
            reception.reached(.reading)
            return
        }
        let format: FormatContext
        if isLive, source.isRemote, LiveSourceKind(source) == .dash {
            // Read by this program's segment reader: see `DASHSegmentFeed` for why.
            let opening = try FormatContext.openDASH(source, limits: limits, gate: gate, reception: reception)
            format = opening.main
            dashSound = opening.sound
            periodStart = opening.periodStart
            dashClockOffset = opening.clockOffset
            deliveredBy = opening.isChunked ? "ll-dash" : "dash"
            suggestedTarget = opening.suggestedTarget
        } else if isLive, source.isRemote, let listing, listing.playlist.isLowLatency {
            // Parts, preload hints and blocking reloads: see `HLSPartFeed` for why not FFmpeg's demuxer.
            let opening = try FormatContext.openLowLatencyHLS(source, url: listing.url, playlist: listing.playlist, limits: limits,
                                                              gate: gate, reception: reception)
            format = opening.main
            partStart = opening.start
            deliveredBy = "ll-hls"
            suggestedTarget = listing.playlist.lowLatencyTarget
        } else {
            format = try FormatContext.open(source, limits: limits, gate: gate, isLive: isLive, reception: reception)
            if source.isWHEP {
                deliveredBy = "whep"
            } else if isLive {
                deliveredBy = switch LiveSourceKind(source) {
                case .hls: "hls"
                case .dash: "dash"
                case .push: MediaSource.scheme(of: source.location)?.lowercased() ?? "file"
                }
            }
        }
        self.format = format
        isStill = format.formatName == "image2" || format.formatName.hasSuffix("_pipe")
        let status = format.bestStream(AVMEDIA_TYPE_VIDEO)
        // FFmpeg offers a file's attached picture as its best video stream: a voice note with
        // cover art is still sound, and lasts as its sound does, not one picture's time.
        isSoundOnly = !isLive && !isStill && format.bestStream(AVMEDIA_TYPE_AUDIO) >= 0
            && (status < 0 || format.isAttachedPicture(stream: status))
        if status >= 0 {
            // A picture is one keyframe: threads would only add their start-up.
            var trackLimits = limits
            if isStill || isSoundOnly { (trackLimits.decoderThreads, trackLimits.heavyDecoderThreads) = (1, nil) }
            // Cover art that cannot be decoded leaves the sound without it, not failed.
            track = isSoundOnly ? try? VideoTrack(stream: status, of: format, limits: trackLimits)
                : try VideoTrack(stream: status, of: format, limits: trackLimits)
        } else if !self.waitsForVideo && !isSoundOnly {
            throw MediaError(.noVideoStream, "no video stream in \(source)", averror: status)
        }
        reception.reached(.reading)
    }

    /// The threads FFmpeg started for the video decoder (frame threads).
    var workers: DecoderWorkers { track?.codec.workers ?? .none }
    /// The CPU seconds those threads used since the last call; taken before `close()`.
    package func takeWorkerCPUSeconds() -> Double { track?.codec.takeWorkerCPUSeconds() ?? 0 }
    /// The video decoder's threads (`thread_count`); 0 until a live stream's video appears.
    var decoderThreads: Int { track?.codec.threadCount ?? 0 }

    /// Frees the demuxer, decoder, scaler and buffers now, all at once.
    /// Set by `close()`: decoding, seeking or reading after it is a mistake of the caller's.
    private var closed = false

    package func close() {
        closed = true
        converter.close()
        packet.close()
        track?.codec.close()
        soundTrack?.close()
        dashSound?.stop()
        format?.close()
        photo = nil
    }

    /// The sound decoded since the last call, timed as the pictures are (seconds from the video
    /// stream's first timestamp), oldest first.
    package func takeSound() -> [SoundBlock] {
        if let dashSound { heardSound.append(contentsOf: dashSound.take()) }
        guard !heardSound.isEmpty else { return [] }
        let base = videoStartSeconds
        defer { heardSound.removeAll(keepingCapacity: true) }
        return heardSound.map { SoundBlock(time: $0.time - base, samples: $0.samples) }
    }

    // MARK: - What the source is

    /// The demuxer's name, e.g. "hls".
    package var formatName: String { format?.formatName ?? "heif" }

    /// Whether the video stream is known yet (a cover art's is not video: see `isSoundOnly`).
    var hasVideo: Bool { (track != nil && !isSoundOnly) || photoFacts != nil }
    /// The video stream's duration in seconds, when the container says.
    package var duration: Double? {
        // A cover art's stream lasts one picture; the sound is what lasts.
        isSoundOnly ? format?.duration : track?.duration ?? format?.duration
    }
    /// The video's keyframes in media seconds, in order, as the container's index lists them
    /// (`FormatContext.keyframeTimes`): `seek(to:)` lands on the last one at or before the time
    /// it is given. Empty for a photo, a live stream, and a container whose index cannot say
    /// (MPEG-TS, Matroska at opening, a clip cut by an edit list).
    package var keyframeTimes: [Double] {
        guard let track, let format, !closed, !isStill, !isSoundOnly else { return [] }
        return format.keyframeTimes(ofStream: track.index).sorted()
    }
    var quarterTurns: Int { orientation.quarterTurns }
    /// How the shown picture is put upright: the first decoded picture's orientation (a
    /// photo's EXIF), else the stream's display matrix.
    var orientation: PictureOrientation { firstOrientation ?? track?.orientation ?? .upright }
    var codecName: String { photoFacts?.codec ?? track?.codecName ?? "none" }
    var codedWidth: Int { photoFacts?.width ?? track.flatMap { $0.codec.width > 0 ? $0.codec.width : nil } ?? track?.codedWidth ?? 0 }
    var codedHeight: Int { photoFacts?.height ?? track.flatMap { $0.codec.height > 0 ? $0.codec.height : nil } ?? track?.codedHeight ?? 0 }
    var sampleAspectRatio: Double { track?.sampleAspectRatio ?? 1 }
    /// The video stream's first timestamp in seconds: a picture's `time` plus this is its
    /// timestamp as the source wrote it.
    package var videoStartSeconds: Double { track.map { Double($0.timeline.start) * $0.timeline.unit } ?? 0 }
    /// Frames per second as the stream declares it; 0 when unknown.
    package var frameRate: Double { track?.frameRate ?? 0 }
    /// The shown stream's transfer and primaries (`probe`): the decoder's once it has decoded,
    /// else the container's.
    var colour: VideoColour {
        if let photoFacts { return photoFacts.colour }
        guard let track, let stream = format?.description(ofStream: track.index) else { return VideoColour() }
        return VideoColour(decoder: track.codec, stream: stream)
    }
    /// Seconds to add to the pictures' time to find the same moment in the item's sound
    /// (`ItemAudio`, timed from its own stream's first timestamp).
    package var soundOffset: Double {
        guard let format, let track, !isSoundOnly else { return 0 }
        let index = format.bestStream(AVMEDIA_TYPE_AUDIO)
        guard index >= 0, let audio = format.description(ofStream: index) else { return 0 }
        return track.timeline.startSeconds - audio.timeline.startSeconds
    }

    /// The URLs a live HLS demuxer opened so far, in order (its playlist, then its segments).
    package var openedURLs: [String] { format?.openedURLs ?? [] }

    /// Every audio and video stream of the source, as the container describes it now.
    var streams: [StreamFacts] {
        if let photoFacts { return [.video(index: 0, codec: photoFacts.codec, width: photoFacts.width, height: photoFacts.height, fps: 0)] }
        guard let format else { return [] }
        return format.streams.compactMap { stream in
            let i = Int(stream.index)
            switch stream.type {
            case AVMEDIA_TYPE_VIDEO where stream.index == track?.index:
                return .video(index: i, codec: stream.codecName, width: codedWidth, height: codedHeight, fps: frameRate)
            case AVMEDIA_TYPE_VIDEO:
                return .video(index: i, codec: stream.codecName, width: stream.width, height: stream.height, fps: 0)
            case AVMEDIA_TYPE_AUDIO:
                return .audio(index: i, codec: stream.codecName, channels: stream.channels, sampleRate: stream.sampleRate)
            default:
                return nil
            }
        }
    }

    // MARK: - Decoding

    /// The next picture in decode order (`av_read_frame`, `avcodec_send_packet`,
    /// `avcodec_receive_frame`), or nil at the end of the stream.
    ///
    /// `videoDeadline` (CLOCK_MONOTONIC ns) bounds how long a source may go without its first
    /// picture: with only sound by then this gives up with `.noVideoStream`, with video packets
    /// that decode to nothing with `.timeout`. Without it a live source that sends only sound is
    /// read for as long as sound comes (a sound-only story).
    package func nextPicture(videoDeadline: UInt64? = nil) throws(MediaError) -> DecodedPicture? {
        if photoFacts != nil { return try nextPhotoPicture() }
        guard let format, !closed else { preconditionFailure("decoding after close()") }
        // Sound without a picture: nothing to read the whole file for.
        if isSoundOnly && track == nil {
            throw MediaError(.noVideoStream, "no video stream in \(sourceName)", cause: "a source of sound only")
        }
        let frame = Frame()
        while !outputDone {
            if let track {
                if let picture = try receivePicture(from: track, into: frame) { return picture }
                if outputDone { break }
            }
            if inputDone {
                // Drain mode was entered; EAGAIN here cannot happen, but never spin.
                outputDone = true
                break
            }
            try checkVideoCame(by: videoDeadline)
            guard try readPacket(from: format) else { continue }
            try decodeReadPacket(of: format)
        }
        try checkAnyPictureCame()
        return nil
    }

    /// The decoder's next picture, if it has one; nil when it needs another packet, or has
    /// given its last (then `outputDone`).
    private func receivePicture(from track: VideoTrack, into frame: Frame) throws(MediaError) -> DecodedPicture? {
        let received = track.codec.receive(into: frame)
        if received >= 0 { return try picture(from: frame, of: track) }
        if received == FFmpegError.endOfFile {
            outputDone = true
            return nil
        }
        guard received == FFmpegError.tryAgain else {
            throw MediaError(.decode, "cannot decode a frame", averror: received)
        }
        return nil
    }

    /// The picture `frame` holds, as decoded from `track`: upright, and a photo in sRGB.
    private func picture(from frame: Frame, of track: VideoTrack) throws(MediaError) -> DecodedPicture {
        picturesDecoded += 1
        // A stream's display matrix wins: a picture's own (a JPEG's EXIF, or an
        // H.264 SEI) is taken only when the container says nothing, so a phone
        // video is never turned twice.
        let orientation = track.orientation != .upright ? track.orientation
            : frame.orientation ?? stillFileOrientation ?? .upright
        if picturesDecoded == 1 { firstOrientation = orientation }
        // A photo in another colour space than sRGB (an embedded ICC profile) is
        // converted to sRGB here, once, at its own size.
        var shown = frame
        if isStill, let profile = frame.embeddedColourProfile {
            colourProfile = profile
            if !profile.isSRGB { shown = try frame.convertedToSRGB(from: profile) }
        }
        return DecodedPicture(frame: shown, time: track.timeline.seconds(frame.bestEffortTimestamp) ?? 0,
                              orientation: orientation, sampleAspectRatio: track.sampleAspectRatio)
    }

    /// Gives up on a source with no picture by `videoDeadline` (CLOCK_MONOTONIC ns), saying why.
    private func checkVideoCame(by videoDeadline: UInt64?) throws(MediaError) {
        guard let videoDeadline, picturesDecoded == 0, InterruptGate.now() > videoDeadline else { return }
        guard track != nil else {
            throw MediaError(.noVideoStream, "no video stream in \(sourceName)",
                             cause: reception.audioPackets > 0 ? "only sound arrived" : "nothing arrived")
        }
        // Video that never decodes (H.264 whose SPS and PPS were sent only before this
        // viewer joined, as GStreamer's encoders do by default) is as good as none.
        throw MediaError(.timeout, "no picture from the video stream of \(sourceName) in time",
                         cause: ErrorText(reception.missingPictureReason))
    }

    /// Reads the next packet into `packet`, under the gate; false at the end of the input (a
    /// clean end, a truncated file or a read error), where the decoder is set draining.
    private func readPacket(from format: FormatContext) throws(MediaError) -> Bool {
        gate.arm(seconds: limits.timeouts.read)
        let read = format.readFrame(into: packet)
        // Why the gate closed, read before disarming it: a demuxer may turn the interrupt
        // into an end of file (HLS does), which must not pass for a clean end.
        let interrupted = read < 0 ? gate.reason : nil
        gate.disarm()
        guard read < 0 else { return true }
        if let reason = interrupted ?? (read == cffmpeg_averror_exit() ? .stopped : nil) {
            throw reason == .stopped
                ? MediaError(.interrupted, "stopped")
                : MediaError(.timeout, "no data for \(ObjectReader.format(limits.timeouts.read)) s")
        }
        // A demuxer may report a failed DASH segment fetch as the end of its input.
        if read != FFmpegError.endOfFile { lastReadError = read } else if format.inputFailure != nil { lastReadError = cffmpeg_averror(EIO) }
        // End of file, or a truncated file: either way, drain what the decoder holds.
        inputDone = true
        // A decoder with frame threads reports a packet it cannot decode only here, at
        // the drain: kept, so that a stream without a picture fails with why.
        if let drained = track?.codec.send(nil), drained < 0, drained != FFmpegError.endOfFile {
            lastRefusal = drained
        }
        return false
    }

    /// Hands the packet just read to its decoder, then lets it go. A still's packet is its
    /// whole file: its EXIF orientation is read from it, and an animated WebP refused.
    private func decodeReadPacket(of format: FormatContext) throws(MediaError) {
        defer { packet.unref() }
        if isStill, picturesDecoded == 0, stillFileOrientation == nil {
            stillFileOrientation = packet.withUnsafeBytes { $0.isEmpty ? nil : EXIFOrientation.read($0) }
            if packet.withUnsafeBytes({ WebPAnimation.isAnimated($0) }) {
                throw MediaError(.unsupportedCodec, "an animated WebP, which FFmpeg 5.1 cannot decode; "
                    + "make it a GIF or an MP4 first (e.g. ImageMagick: convert moving.webp moving.gif)")
            }
        }
        try send(packet, of: format)
    }

    /// At the end of the stream: a stream that gave no picture fails, with the decoder's last
    /// refusal, or for having no video at all.
    private func checkAnyPictureCame() throws(MediaError) {
        if picturesDecoded == 0, let lastRefusal {
            let detail = FFmpegLogging.takeLastMessage() ?? lastDecoderMessage
            // FFmpeg's own words send the user to an option they cannot set; ours name the limit.
            if let detail, let size = MediaDecoder.oversizedPicture(in: detail) {
                func megapixels(_ pixels: Int) -> String { String(format: "%.1f MP", Double(pixels) / 1e6) }
                throw MediaError(.tooLarge, "the picture is \(size.width)x\(size.height) (\(megapixels(size.width * size.height))), "
                    + "more than the \(megapixels(limits.maxPixels)) this tool decodes; scale it down first "
                    + "(ffmpeg -i big.jpg -vf scale=4096:-2 smaller.jpg)")
            }
            throw MediaError(.decode, "no picture could be decoded", cause: FFmpegError(lastRefusal, detail: detail))
        }
        if track == nil {
            throw MediaError(.noVideoStream, "no video stream in \(sourceName)",
                             cause: reception.audioPackets > 0 ? "the stream ended with only sound" : "the stream ended")
        }
    }

    /// Hands a packet of the shown video stream to the decoder; counts sound, and sets up the
    /// video track from the first packet of a live stream's late video.
    private func send(_ packet: Packet, of format: FormatContext) throws(MediaError) {
        let index = packet.streamIndex
        guard let type = format.mediaType(ofStream: index) else { return }
        if track == nil, waitsForVideo, type == AVMEDIA_TYPE_VIDEO {
            track = try VideoTrack(stream: index, of: format, limits: limits)
        }
        guard let track, index == track.index else {
            if type == AVMEDIA_TYPE_AUDIO {
                reception.countAudio()
                if decodesSound { hear(packet, of: format) }
            }
            return
        }
        reception.countVideo()
        if firstPacketAt == nil { firstPacketAt = InterruptGate.now() }
        if picturesDecoded == 0 {
            // Until a picture comes, what the video lacks, for a failure that says why: its
            // parameter sets (in the extradata, or in a packet), and whether a keyframe came.
            let sets = track.codec.hasExtradata
            let scanned = VideoParameterSets.reads(codec: track.codecName) && !sets
                ? packet.withUnsafeBytes { VideoParameterSets.scan($0, codec: track.codecName) } : VideoParameterSets.Found()
            reception.noteVideo(codec: track.codecName, found: VideoParameterSets.Found(
                sequenceParameterSet: sets || scanned.sequenceParameterSet, keyframe: packet.isKeyframe || scanned.keyframe))
            // What the demuxer logged while reading is not the decoder's complaint.
            _ = FFmpegLogging.takeLastMessage()
        }
        defer {
            if picturesDecoded == 0, let message = FFmpegLogging.takeLastMessage() {
                lastDecoderMessage = message
                reception.noteDecoder(message: message)
            }
        }
        if var discard = forwardDiscard {
            track.codec.dropsNonReferences = discard.mayDrop(time: track.timeline.seconds(packet.presentationTimestamp))
            forwardDiscard = discard
        }
        let sent = track.codec.send(packet)
        if sent < 0 && sent != FFmpegError.tryAgain {
            // A damaged packet: skip it, as players do, and keep going.
            lastRefusal = sent
        } else if drainsAfterKeyframe, sent >= 0, packet.isKeyframe {
            inputDone = true
            drainedEarly = true
            // As at the end of the input: a keyframe refused only at the drain fails with why.
            let drained = track.codec.send(nil)
            if drained < 0, drained != FFmpegError.endOfFile { lastRefusal = drained }
        }
    }

    /// Decodes a packet of the story's audio stream (`FormatContext.soundStream`); a stream
    /// whose decoder cannot be set up leaves the story silent, not failed.
    private func hear(_ packet: Packet, of format: FormatContext) {
        // Sound is taken with the pictures; before the video appears it goes to
        // `hearsBeforeVideo`, if anything listens.
        guard track != nil || hearsBeforeVideo != nil else { return }
        if soundTrack == nil {
            soundTrack = try? SoundTrack(stream: format.soundStream(isLive: true, heard: packet.streamIndex), of: format, limits: limits)
            if soundTrack == nil { decodesSound = false }
        }
        guard let soundTrack, packet.streamIndex == soundTrack.index else { return }
        let blocks = soundTrack.decode(packet)
        guard track != nil else {
            // Looked at again with each packet: an `onMetaData` may come after the opening.
            reception.announce(video: format.announcesVideo)
            hearsBeforeVideo?(blocks)
            return
        }
        heardSound.append(contentsOf: blocks)
        // Bounded: a caller that never takes the sound holds at most about a minute of it.
        if heardSound.count > 3000 { heardSound.removeFirst(heardSound.count - 3000) }
    }

    /// The first picture, decoded from the first keyframe alone: the decoder is drained right
    /// after it instead of being fed the packets its reordering delay waits for. A poster needs
    /// only that picture, and at 720x1280 (x264, B-frames) waiting for it cost about 40 ms of
    /// CPU a poster, several frames' worth, where the keyframe alone is one. If the keyframe
    /// gives no picture, the decoder is flushed and reading goes on as `nextPicture()` does.
    package func firstPicture() throws(MediaError) -> DecodedPicture? {
        drainsAfterKeyframe = true
        let picture = try nextPicture()
        drainsAfterKeyframe = false
        guard picture == nil, drainedEarly, let track, !closed else { return picture }
        track.codec.flush()
        drainedEarly = false
        inputDone = false
        outputDone = false
        return try nextPicture()
    }

    /// The size in FFmpeg's "Picture size 12000x9000 exceeds specified max pixel count" (the
    /// decoder's refusal of a picture over `DecodeLimits.maxPixels`), if that is the message.
    static func oversizedPicture(in message: String) -> (width: Int, height: Int)? {
        guard message.contains("exceeds specified max pixel count"),
              let range = message.range(of: #"Picture size (\d+)x(\d+)"#, options: .regularExpression) else { return nil }
        let numbers = message[range].dropFirst("Picture size ".count).split(separator: "x").compactMap { Int($0) }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
    }

    /// A still's orientation read from its file's EXIF without decoding it (`EXIFOrientation`),
    /// for the preload window's probe; nil when it says none. An image demuxer's first packet
    /// is the whole file. This ends the decoder's input: no picture is decoded after it.
    func peekStillOrientation() -> PictureOrientation? {
        guard isStill, picturesDecoded == 0, !inputDone, let format, !closed else { return nil }
        gate.arm(seconds: limits.timeouts.read)
        let read = format.readFrame(into: packet)
        gate.disarm()
        inputDone = true
        guard read >= 0 else { return nil }
        defer { packet.unref() }
        return packet.withUnsafeBytes { $0.isEmpty ? nil : EXIFOrientation.read($0) }
    }

    /// Moves to the last keyframe at or before `seconds` (`avformat_seek_file`) and flushes the decoder.
    package func seek(to seconds: Double) throws(MediaError) {
        // A source of sound only shows its one picture (its cover art) at every time.
        if isSoundOnly { return }
        guard let track, let format, !closed else { preconditionFailure("seeking after close(), or without video") }
        // With the slack pictures are shown by (`PictureTime`): a media time a hair short of a
        // keyframe's, rounded down, would land a whole GOP early, for the same picture.
        let status = format.seek(stream: track.index, to: track.timeline.timestamp(seconds + PictureTime.slack))
        guard status >= 0 else { throw MediaError(.seek, "cannot seek to \(seconds) s", averror: status) }
        track.codec.flush()
        track.codec.dropsNonReferences = false
        forwardDiscard = nil
        inputDone = false
        outputDone = false
    }

    /// Lets the decoder leave undecoded, from here on, the pictures that cannot be the newest at
    /// or before media time `seconds` and that no picture refers to (`ForwardDiscard`): a
    /// shard's decoding forward from the keyframe it seeked to. Every picture it returns is
    /// decoded exactly as without this; only some older than `seconds` never come.
    package func dropUnneededPictures(before seconds: Double) {
        forwardDiscard = ForwardDiscard(startAt: seconds)
    }

    /// Packets sent so far with leave to drop them (`dropUnneededPictures(before:)`).
    package var droppablePackets: Int { forwardDiscard?.marked ?? 0 }
}

// MARK: - HEIF photos

extension MediaDecoder {
    /// The HEIF photo's one picture, decoded by libheif (upright: libheif applies its turn and
    /// flip), then nil. libheif's context is freed as soon as the picture is out.
    private func nextPhotoPicture() throws(MediaError) -> DecodedPicture? {
        guard let photo else { return nil }
        defer { self.photo = nil }
        if firstPacketAt == nil { firstPacketAt = InterruptGate.now() }
        let frame = try photo.decode(limits: limits)
        picturesDecoded += 1
        firstOrientation = .upright
        return DecodedPicture(frame: frame, time: 0)
    }
}

/// One stream of a source, as `probe` lists it.
public enum StreamFacts: Sendable, Equatable {
    case video(index: Int, codec: String, width: Int, height: Int, fps: Double)
    case audio(index: Int, codec: String, channels: Int, sampleRate: Int)
}
