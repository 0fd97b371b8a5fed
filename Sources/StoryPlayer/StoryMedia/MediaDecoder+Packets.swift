internal import CFFmpeg
import Foundation
import Compositor
import StoryModel

/// Reading packets and handing them to the decoders: the steps of `nextPicture()`.
extension MediaDecoder {
    /// The decoder's next picture, if it has one; nil when it needs another packet, or has
    /// given its last (then `outputDone`).
    func receivePicture(from track: VideoTrack, into frame: Frame) throws(MediaError) -> DecodedPicture? {
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
    func picture(from frame: Frame, of track: VideoTrack) throws(MediaError) -> DecodedPicture {
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
    func checkVideoCame(by videoDeadline: UInt64?) throws(MediaError) {
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
    func readPacket(from format: FormatContext) throws(MediaError) -> Bool {
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
    func decodeReadPacket(of format: FormatContext) throws(MediaError) {
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
    func checkAnyPictureCame() throws(MediaError) {
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
    func send(_ packet: Packet, of format: FormatContext) throws(MediaError) {
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
    func hear(_ packet: Packet, of format: FormatContext) {
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
}

// MARK: - HEIF photos

extension MediaDecoder {
    /// The HEIF photo's one picture, decoded by libheif (upright: libheif applies its turn and
    /// flip), then nil. libheif's context is freed as soon as the picture is out.
    func nextPhotoPicture() throws(MediaError) -> DecodedPicture? {
        guard let photo else { return nil }
        defer { self.photo = nil }
        if firstPacketAt == nil { firstPacketAt = InterruptGate.now() }
        let frame = try photo.decode(limits: limits)
        picturesDecoded += 1
        firstOrientation = .upright
        return DecodedPicture(frame: frame, time: 0)
    }
}
