import Foundation
import StoryBase
import StoryMedia

/// `--hls DIR`: `index.m3u8`, `init.mp4` and `segment-NNNNNN.m4s` (fMP4, CMAF), through FFmpeg's
/// HLS muxer: segments of about `segmentSeconds` cut at keyframes, a sliding window of `window`
/// segments with the older files deleted (or, with a window of 0, an EVENT playlist that
/// becomes VOD at a clean stop), `EXT-X-PROGRAM-DATE-TIME` on every segment, and the playlist
/// written to a temporary file and renamed (`temp_file`), so a reader (or a crash) never sees
/// half of it, and it names only segments that are whole.
package final class HLSOutput: LiveOutput {
    package let name = "hls"
    private let folder: String
    private let segmentSeconds: Double
    private let window: Int
    private let log: OutputLog
    private var muxer: MuxerContext?
    private var streams: LiveStreams?
    private var indexes: [LiveStreams.Kind: Int32] = [:]
    /// The segment being written: its number and where it started (seconds of video).
    private var segment = (number: 0, start: 0.0)
    /// Splits made by the muxer so far, mirrored to say which segment closed when.
    private var splits = 0
    /// A segment that closed, said once the next keyframe is written, when its file is complete.
    private var closing: (file: String, seconds: Double)?
    /// Where the last video packet written ends (seconds of video): the last segment's end at a stop.
    private var videoEnd: Double?

    package static let playlistName = "index.m3u8"

    package init(folder: String, segmentSeconds: Double, window: Int, log: OutputLog) {
        self.folder = folder
        self.segmentSeconds = segmentSeconds
        self.window = window
        self.log = log
    }

    package func start(_ streams: LiveStreams) throws(MediaError) {
        self.streams = streams
        do {
            try OutputFolder.make(folder)
        } catch {
            throw MediaError(.open, "cannot use the HLS folder \(folder)", cause: error.cause ?? error.message)
        }
        let muxer = try MuxerContext(format: "hls", path: path(Self.playlistName))
        indexes = try muxer.addStreams(streams, for: "the HLS playlist")
        let status = muxer.writeHeader(options: options)
        guard status >= 0 else { throw MediaError(.open, "cannot start the HLS playlist in \(folder)", averror: status) }
        self.muxer = muxer
        log.note(.started, of: name)
    }

    /// The HLS muxer's options (FFmpeg's `hlsenc`).
    private var options: [String: String] {
        var flags = ["program_date_time", "temp_file", "independent_segments"]
        if window > 0 { flags.append("delete_segments") }
        var options = [
            "hls_time": String(segmentSeconds),
            "hls_list_size": String(window),
            "hls_segment_type": "fmp4",
            "hls_fmp4_init_filename": "init.mp4",
            "hls_segment_filename": path("segment-%06d.m4s"),
            "hls_flags": flags.joined(separator: "+"),
        ]
        if window == 0 { options["hls_playlist_type"] = "event" }
        return options
    }

    private func path(_ file: String) -> String { (folder as NSString).appendingPathComponent(file) }

    package func write(_ packet: Packet, stream: LiveStreams.Kind) {
        guard let muxer, let streams, let index = indexes[stream] else { return }
        if stream == .video && packet.isKeyframe { noteSplit(at: streams.seconds(packet.presentationTimestamp, .video)) }
        if stream == .video { videoEnd = streams.seconds(packet.presentationTimestamp, .video) + 1 / streams.fps }
        let bytes = Int64(packet.size)
        let status = muxer.write(packet, from: streams.parameters(stream)!.timeBase, stream: index)
        if status < 0 {
            // A disk that fills: the playlist stays as it was, naming whole segments only.
            self.muxer = nil
            log.note(.lost(error: "\(MediaError(.convert, "cannot write the HLS segment", averror: status))"), of: name)
            return
        }
        log.update(name) { $0.bytes += bytes }
    }

    /// Mirrors the muxer's split rule (`hlsenc`: the first keyframe at or after the next multiple
    /// of `hls_time` from the start) to say which segment closed, one keyframe later, when its
    /// file is complete on disk.
    private func noteSplit(at seconds: Double) {
        noteClosing()
        guard seconds >= Double(splits + 1) * segmentSeconds - 1e-6 else { return }
        splits += 1
        closing = (String(format: "segment-%06d.m4s", segment.number), seconds - segment.start)
        segment = (segment.number + 1, seconds)
    }

    /// Says the segment that closed at the last split, now that its file is complete.
    private func noteClosing() {
        guard let closing else { return }
        let size = (try? FileManager.default.attributesOfItem(atPath: path(closing.file))[.size] as? Int64) ?? nil
        log.note(.segmentClosed(file: path(closing.file), seconds: closing.seconds, bytes: size ?? 0), of: name)
        self.closing = nil
    }

    package func finish() {
        guard let muxer else { return }
        self.muxer = nil
        // The trailer closes the last segment and writes the playlist with `EXT-X-ENDLIST`.
        let status = muxer.writeTrailer()
        if status < 0 {
            log.note(.lost(error: "\(MediaError(.convert, "cannot finish the HLS playlist", averror: status))"), of: name)
        } else {
            // The segment closed at the last split and the last one, closed by the trailer, are
            // whole now: said, as every other segment was (a stop used to leave both unsaid).
            noteClosing()
            if let videoEnd, videoEnd > segment.start {
                closing = (String(format: "segment-%06d.m4s", segment.number), videoEnd - segment.start)
                noteClosing()
            }
        }
        log.update(name) { $0.state = .closed }
    }

    package func abandon() {
        // The playlist stays as the muxer last wrote it: whole segments, no end.
        muxer = nil
    }
}
