internal import CFFmpeg
import Foundation
import Compositor
import StoryModel

/// The demuxer, decoder and scaler for one play of one item.
///
/// Built fresh by every `play()`, and freed whole by `close()` (every `stop()`): nothing is
/// reused from an earlier play of the same item.
package final class MediaDecoder {
    /// The demuxer; nil for a HEIF photo, which libheif reads instead (`photo`).
    let format: FormatContext?
    /// A HEIC, HEIF or AVIF photo (told by its `ftyp` brand), read by libheif; nil for anything
    /// FFmpeg reads. Closed after its one picture is decoded.
    var photo: HEIFPhoto?
    /// The photo's embedded ICC profile, once its picture is decoded (or a HEIF photo is open):
    /// pictures are converted from it to sRGB.
    internal(set) var colourProfile: ColourProfile?
    /// The codec and shown size of a HEIF photo, kept after it is decoded.
    var photoFacts: (codec: String, width: Int, height: Int, colour: VideoColour)?
    /// The shown video stream and its decoder; nil until a live stream's video appears.
    var track: VideoTrack?
    let packet = Packet()
    /// Converts for posters, probes and tests (`rgba`); a playing item converts on a thread
    /// of its own, with a converter of its own.
    let converter = PictureConverter()
    let limits: DecodeLimits
    let sourceName: String
    /// Whether the video stream may appear after the source opened (live sources): until then
    /// the decoder reads on, counting sound, instead of failing.
    let waitsForVideo: Bool
    var inputDone = false
    var outputDone = false
    /// Pictures returned so far, and the last packet the decoder refused: a stream that ends
    /// without a single picture fails with that error instead of ending quietly.
    var picturesDecoded = 0
    /// The first picture's orientation, once it is decoded.
    var firstOrientation: PictureOrientation?
    /// A still's orientation as its file's EXIF names it (`EXIFOrientation`), read from the
    /// packet, which is the whole file: for decoders that do not export it (FFmpeg 5.1's PNG
    /// decoder ignores an `eXIf` chunk, and a phone's PNG showed sideways).
    var stillFileOrientation: PictureOrientation?
    var lastRefusal: Int32?
    /// FFmpeg's last complaint while no picture had come yet (taken as each packet is sent).
    var lastDecoderMessage: String?
    /// Set by `firstPicture()`: the input ends after the first keyframe the decoder accepts.
    var drainsAfterKeyframe = false
    var drainedEarly = false
    /// A shard's decoding forward after `seek(to:)`: which pictures need not be decoded.
    var forwardDiscard: ForwardDiscard?
    let gate: InterruptGate
    /// What has arrived, for the player (shared by every connection of one play).
    let reception: SourceReception
    /// When the first packet of the video stream arrived (CLOCK_MONOTONIC ns).
    package internal(set) var firstPacketAt: UInt64?
    /// The read error that ended the input, when it was not a clean end of file.
    package internal(set) var lastReadError: Int32?
    /// Why a live source's pieces stopped coming, when a fetch failed (`SegmentInput`): what
    /// `lastReadError`'s code cannot say.
    package var inputFailure: MediaError? { format?.inputFailure }
    /// Whether a live source read through our own input said its presentation ended.
    package var inputEnded: Bool { format?.inputEnded ?? false }
    /// Whether sound is decoded as it is read (a live story's, for the MP4): see `takeSound()`.
    package var decodesSound = false {
        didSet { if decodesSound { liveSound?.start(limits: limits, reception: reception, name: "sound \(sourceName)") } }
    }
    /// A live story's sound that its protocol reads apart from the pictures (DASH's audio
    /// representation), on a thread of its own (`LiveInput.sound`).
    var liveSound: (any LiveSoundReader)?
    /// How long a WebRTC source's video packets stay in its jitter buffer (ms), as its session
    /// says now (`SegmentFeed.jitterBufferMs`: ask seldom); nil for every other source.
    package func jitterBufferMs() -> Double? {
        format?.input?.feed.jitterBufferMs
    }

    /// The decoder of the sound's stream (`FormatContext.soundStream`), once the first audio
    /// packet came; nil without `decodesSound`.
    var soundTrack: SoundTrack?
    /// Sound decoded since the last `takeSound()`, in absolute stream seconds.
    var heardSound: [SoundBlock] = []
    /// Where sound decoded before the source has sent any video goes, as it is decoded, in
    /// absolute stream seconds (with `decodesSound`): a live source of sound only never gives a
    /// picture to take its sound with (`takeSound()`), and a player reads it on a time line of
    /// its own (`LiveSound.beforeVideo`). Without it, that sound is not decoded.
    package var hearsBeforeVideo: (([SoundBlock]) -> Void)?

    /// A still image (JPEG, PNG, …): one frame, shown for the item's whole duration.
    package let isStill: Bool
    /// The part of a recorded video this play shows (`MediaSource.trim`): its pictures are
    /// timed from the trim's start, and its `duration` is the trimmed length. Nil for photos,
    /// sound and live sources, which have no file time to cut.
    package private(set) var trim: ClipTrim?
    /// A recorded source of sound only (a voice note, a song): an audio stream and no video
    /// but, at most, an attached picture (its cover art, then the shown stream, `hasCoverArt`).
    /// It lasts as its sound does; what a play shows over it is the player's to choose
    /// (`SoundOnlyStill`). Never a live source: one of those may send its video later.
    package internal(set) var isSoundOnly = false
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

    /// The picture as `fit` shows it on a `width`×`height` screen (`PictureConverter.rgba(_:fit:…)`).
    func rgba(_ picture: DecodedPicture, fit: PictureFit, width: Int, height: Int) throws(MediaError) -> RGBAImage {
        try converter.rgba(picture, fit: fit, width: width, height: height)
    }

    /// Opens `source` (`FormatContext.open`, or through `live`, its protocol's opener), then
    /// `av_find_best_stream` and `avcodec_open2`. A live source without a video stream yet
    /// opens all the same: see `VideoTrack`. `waitsForVideo` opens a recorded source without
    /// video too (what `probe` does, to list a sound file's streams); a live one always opens so.
    package init(source: MediaSource, limits: DecodeLimits, gate: InterruptGate = InterruptGate(), isLive: Bool = false,
         waitsForVideo: Bool = false, reception: SourceReception = SourceReception(),
         live: (any LiveOpener)? = nil) throws(MediaError) {
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
        if let live {
            let input = try live.openInput(limits: limits, gate: gate, reception: reception)
            format = input.format
            liveSound = input.sound
        } else {
            format = try FormatContext.open(source, limits: limits, gate: gate, isLive: isLive, reception: reception)
        }
        self.format = format
        isStill = format.formatName == "image2" || format.formatName.hasSuffix("_pipe")
        let status = format.bestStream(AVMEDIA_TYPE_VIDEO)
        // FFmpeg offers a file's attached picture as its best video stream: a voice note with
        // cover art is still sound, and lasts as its sound does, not one picture's time.
        isSoundOnly = !isLive && !isStill && format.bestStream(AVMEDIA_TYPE_AUDIO) >= 0 && !format.hasMovingPictures
        if status >= 0 {
            // A picture is one keyframe: threads would only add their start-up.
            var trackLimits = limits
            if isStill || isSoundOnly { (trackLimits.decoderThreads, trackLimits.heavyDecoderThreads) = (1, nil) }
            // Cover art that cannot be decoded leaves the sound without it, not failed.
            trim = isLive || isStill || isSoundOnly ? nil : source.trim
            track = isSoundOnly ? try? VideoTrack(stream: status, of: format, limits: trackLimits)
                : try VideoTrack(stream: status, of: format, limits: trackLimits, trimStart: trim?.start ?? 0)
            try checkTrimFits(source)
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
    var closed = false

    package func close() {
        closed = true
        converter.close()
        packet.close()
        track?.codec.close()
        soundTrack?.close()
        liveSound?.stop(waitingUpTo: 2)
        format?.close()
        photo = nil
    }

    /// The sound decoded since the last call, timed as the pictures are (seconds from the video
    /// stream's first timestamp), oldest first.
    package func takeSound() -> [SoundBlock] {
        if let liveSound { heardSound.append(contentsOf: liveSound.take()) }
        guard !heardSound.isEmpty else { return [] }
        let base = videoStartSeconds
        defer { heardSound.removeAll(keepingCapacity: true) }
        return heardSound.map { SoundBlock(time: $0.time - base, samples: $0.samples) }
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
