import Foundation
import StoryBase
import StoryMedia

/// `--segments DIR --segment-time S`: MP4 files named by the UTC time of their first frame
/// (`20261206T234000Z.mp4`), each cut at the first keyframe at or after a UTC multiple of S
/// (so a 300 s segment starts at :00, :05, … whatever time the recording started).
///
/// Each file is a fragmented MP4 (an empty `moov`, then a `moof`+`mdat` at every keyframe and at
/// least every half second, flushed as it is made): a player reads it while it is written, and
/// after a `kill -9` up to its last fragment, no more than a second before the kill (a fragment
/// is written when it ends, so a kill loses the fragment under way and the frames being drawn). Written under its
/// final name for that reason (a temporary name would hide it until the end); `segment_closed`
/// says when one is whole. Each file's timestamps start at 0.
package final class SegmentFiles: LiveOutput {
    package let name = "segments"
    private let folder: String
    private let segmentSeconds: Double
    private let log: OutputLog
    private var streams: LiveStreams?
    /// The file being written, and the one before it while its sound catches up: the sound
    /// reaches the encoder after its pictures (a live story's waits for the stream), so the
    /// previous file takes the sound timed before the cut until sound past it comes.
    private var current: SegmentFile?
    private var previous: SegmentFile?
    /// The video timestamp (frames) from which the next keyframe starts a new file.
    private var nextCut: Int64 = 0
    /// A file could not be written, started or finished (a full disk, a folder taken away): the
    /// loss is said once, each cut tries a new file, and the first that starts is `output_back`.
    private var isLost = false

    package init(folder: String, segmentSeconds: Double, log: OutputLog) {
        self.folder = folder
        self.segmentSeconds = segmentSeconds
        self.log = log
    }

    package func start(_ streams: LiveStreams) throws(MediaError) {
        self.streams = streams
        do {
            try OutputFolder.make(folder)
        } catch {
            throw MediaError(.open, "cannot use the segments folder \(folder)", cause: error.cause ?? error.message)
        }
        log.note(.started, of: name)
    }

    package func write(_ packet: Packet, stream: LiveStreams.Kind) {
        guard let streams else { return }
        if stream == .video {
            let pts = packet.presentationTimestamp
            if packet.isKeyframe && (current == nil || pts >= nextCut) { cut(at: pts, streams) }
            if let error = current?.write(packet, stream: .video, streams: streams, log: log) { lose(error) }
            return
        }
        let seconds = streams.seconds(packet.presentationTimestamp, .audio)
        let error: MediaError?
        if let current, seconds >= current.startSeconds - 1e-9 {
            if let previous { close(previous); self.previous = nil }
            error = current.write(packet, stream: .audio, streams: streams, log: log)
        } else {
            error = previous?.write(packet, stream: .audio, streams: streams, log: log)
        }
        if let error { lose(error) }
    }

    private func lose(_ error: MediaError) {
        guard !isLost else { return }
        isLost = true
        log.note(.lost(error: "\(error)"), of: name)
    }

    /// A new file from the keyframe at `pts`: the one before waits for its last sound.
    private func cut(at pts: Int64, _ streams: LiveStreams) {
        if let previous { close(previous) }
        previous = current
        current = nil
        let start = streams.seconds(pts, .video)
        let wall = streams.startedAt + start
        nextCut = Int64((((floor(wall / segmentSeconds) + 1) * segmentSeconds - streams.startedAt) * streams.fps).rounded(.up))
        nextCut = max(nextCut, pts + 1)
        do {
            current = try SegmentFile(path: freePath(for: wall), startTicks: pts, startSeconds: start, streams: streams)
            if isLost { log.note(.back, of: name) } else { log.update(name) { $0.state = .running } }
            isLost = false
        } catch {
            lose(error)
        }
    }

    /// `20261206T234000Z.mp4`, or with `-1`, `-2`, … when a file of that name is already there
    /// (a recording restarted into the same folder within the second).
    private func freePath(for wall: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let stem = formatter.string(from: Date(timeIntervalSince1970: wall))
        var path = (folder as NSString).appendingPathComponent(stem + ".mp4")
        var suffix = 1
        while FileManager.default.fileExists(atPath: path) {
            path = (folder as NSString).appendingPathComponent("\(stem)-\(suffix).mp4")
            suffix += 1
        }
        return path
    }

    private func close(_ file: SegmentFile) {
        do {
            guard let closed = try file.close() else { return }
            log.note(.segmentClosed(file: file.path, seconds: closed.seconds, bytes: closed.bytes), of: name)
        } catch {
            lose(error)
        }
    }

    package func finish() {
        if let previous { close(previous) }
        if let current { close(current) }
        previous = nil
        current = nil
        // Lost at the end stays lost in the final summary: the operator reads it there.
        if !isLost { log.update(name) { $0.state = .closed } }
    }

    package func abandon() {
        // The files stay as written: each up to its last fragment.
        previous = nil
        current = nil
    }
}

/// One fragmented MP4 of `SegmentFiles`.
final class SegmentFile {
    let path: String
    let startSeconds: Double
    private let muxer: MuxerContext
    private let startTicks: Int64
    private var indexes: [LiveStreams.Kind: Int32] = [:]
    private var lastVideoSeconds = 0.0
    private var failed = false

    init(path: String, startTicks: Int64, startSeconds: Double, streams: LiveStreams) throws(MediaError) {
        self.path = path
        self.startTicks = startTicks
        self.startSeconds = startSeconds
        muxer = try MuxerContext(format: "mp4", path: path)
        indexes = try muxer.addStreams(streams, for: path)
        var status = muxer.openFile(path)
        guard status >= 0 else { throw MediaError(.open, "cannot write \(path)", averror: status) }
        defer {
            // A file whose header could not be written is no MP4 at all ("moov atom not
            // found"): it is not left beside the segments that play.
            if status < 0 {
                _ = muxer.closeFile()
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        status = muxer.writeHeader(options: [
            "movflags": "+frag_keyframe+empty_moov+default_base_moof",
            // A fragment at least every half second: a kill -9 loses the one under way and the
            // frames being drawn and encoded. Fragments of a second (the GOP) lost 1.077 s
            // (RecordStopTests), more than the second a crash may cost.
            "frag_duration": "500000",
            "flush_packets": "1",
        ])
        guard status >= 0 else { throw MediaError(.open, "cannot start \(path)", averror: status) }
    }

    /// Writes `packet`; the error when it could not (once: the file then ends at its last fragment).
    func write(_ packet: Packet, stream: LiveStreams.Kind, streams: LiveStreams, log: OutputLog) -> MediaError? {
        guard !failed, let index = indexes[stream], let base = streams.parameters(stream)?.timeBase else { return nil }
        let shift = stream == .video ? startTicks : Int64((startSeconds * Double(base.den) / Double(base.num)).rounded())
        packet.shift(by: shift)
        if stream == .video {
            lastVideoSeconds = streams.seconds(packet.presentationTimestamp + max(1, packet.duration), .video)
        }
        let bytes = Int64(packet.size)
        let status = muxer.write(packet, from: base, stream: index)
        guard status >= 0 else {
            failed = true
            return MediaError(.convert, "cannot write \(path)", averror: status)
        }
        log.update("segments") { $0.bytes += bytes }
        return nil
    }

    /// Writes the trailer and closes the file: its length (seconds of video) and size; nil for
    /// a file that failed while it was written (it ends at its last fragment, its loss said).
    func close() throws(MediaError) -> (seconds: Double, bytes: Int64)? {
        if failed {
            _ = muxer.closeFile()
            return nil
        }
        let trailer = muxer.writeTrailer()
        let closed = muxer.closeFile()
        guard trailer >= 0 else { throw MediaError(.convert, "cannot finish \(path)", averror: trailer) }
        guard closed >= 0 else { throw MediaError(.convert, "cannot finish \(path)", averror: closed) }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? nil
        return (lastVideoSeconds, size ?? 0)
    }
}
