internal import CFFmpeg
import Foundation
import StoryMedia

/// One representation of a live DASH manifest as one byte stream, for a demuxer to read: its
/// initialization segment, then its media segments in order, each fetched when the demuxer
/// needs it, as dash.js and ExoPlayer read a live manifest.
///
/// Why not FFmpeg's DASH demuxer: FFmpeg 5.1's starts a live timeline at its oldest listed
/// segment (60 s back, so a whole window behind), and when its reader nears the newest segment
/// its manifest refresh takes the segment's index for its number and sends it back to the
/// oldest (measured: 26.8 distinct pictures a second, 5.8 s behind against a 1 s target). Here
/// the play starts where the player wants it (`DASHLiveWindow.start(behind:)`), goes on by
/// segment number, and reads the manifest again only while the next segment is not listed yet.
///
/// Used by one thread at a time (the demuxer's reads), and only from inside `av_read_frame`
/// or `avformat_open_input`, whose gate it shares: a wait for a segment not yet listed is a
/// wait for data, bounded by the same read timeout.
final class DASHSegmentFeed: SegmentFeed {
    private let manifestURL: String
    private(set) var manifest: DASHManifest
    private var representation: DASHRepresentation
    private let gate: InterruptGate
    private let timeout: Double
    private let protocols: [String]
    /// How far behind the edge to start again after falling out of the window.
    private let behind: Double
    /// The number of the next media segment to read.
    private(set) var next: Int
    /// The initialization segment is read before the next media segment.
    private var initPending: Bool
    private var fetched = FetchedBytes()
    /// The media segment being read, as its bytes come: a low-latency publisher's is still being
    /// written (chunked CMAF), and its chunks reach the demuxer as they arrive.
    private var stream: FeedPageStream?
    /// Bytes of the segment being read so far.
    private var streamed = 0
    /// Bytes of the segment the demuxer already has, to pass over when its connection broke and
    /// it is read again.
    private var resumeAfter = 0
    /// The server's clock less this machine's (`UTCTiming`), for which segments are out.
    private let clockOffset: Double
    /// The error that ended the stream, for the reason a demuxer's read error cannot carry.
    private(set) var failure: MediaError?
    /// The manifest said the presentation ended (`type="static"`) and every segment was read.
    private(set) var ended = false
    /// When a segment listed but not given is asked for again, and when the feed gives up on it.
    private var retries: PieceRetries
    /// The URL of the segment being read, for what a failure says.
    private var streamURL = ""
    /// Media segments whose first bytes came so far: until one has, nothing of a picture has.
    private(set) var mediaPieces = 0

    /// How often the manifest is read while the next segment is not listed yet (seconds).
    static let waitInterval = 0.1
    /// Segment numbers this far past the newest listed mean the publisher started again.
    static let restartGap = 10
    /// The most one segment may weigh.
    static let segmentLimit = 256 << 20

    init(manifestURL: String, manifest: DASHManifest, representation: DASHRepresentation, start: Int,
         behind: Double, gate: InterruptGate, timeout: Double, protocols: [String], clockOffset: Double = 0) {
        self.manifestURL = manifestURL
        self.clockOffset = clockOffset
        self.manifest = manifest
        self.representation = representation
        self.gate = gate
        self.timeout = timeout
        self.protocols = protocols
        self.behind = behind
        next = start
        initPending = representation.template.initialization != nil
        retries = PieceRetries(pieces: "DASH segments",
                               first: DASHSegmentFeed.firstRetryWait(representation, manifest: manifest, clockOffset: clockOffset))
    }

    /// The first wait before a listed segment that was not given is asked for again
    /// (`PieceRetries`): how long the next piece of it takes to come out. For low-latency DASH a
    /// chunk (the segment less its `availabilityTimeOffset`: 0.2 s for ffmpeg's), since such a
    /// segment is asked for as its first chunk is due and a server a moment behind answers 404;
    /// else the segment, at most dash.js's 1 s.
    static func firstRetryWait(_ representation: DASHRepresentation, manifest: DASHManifest, clockOffset: Double) -> Double {
        let window = DASHLiveWindow(representation, manifest: manifest, unixNow: Date().timeIntervalSince1970 + clockOffset)
        guard let window, let segment = window.segments.last else { return 1 }
        let seconds = segment.duration * window.unit
        let early = representation.template.availabilityTimeOffset
        return early > 0 && early < seconds ? seconds - early : min(seconds, 1)
    }

    // MARK: - Reading

    /// Copies up to `count` bytes of the stream into `buffer`: their count, `AVERROR_EOF` after
    /// a manifest that ended, or `AVERROR_EXIT` when the gate closed.
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
        while fetched.isUsedUp {
            if gate.reason != nil { return cffmpeg_averror_exit() }
            // Given up: a demuxer that reads again after an error is told the same, not fetched for.
            if let failure { return failure.ffmpegError?.code ?? cffmpeg_averror(EIO) }
            if let stream {
                switch readChunk(from: stream) {
                case .data, .wait: continue
                case .backOff(let seconds):
                    guard gate.sleep(seconds: seconds) else { return cffmpeg_averror_exit() }
                    continue
                case .ended: preconditionFailure("a segment's end is the next segment's start")
                case .failed(let error):
                    failure = error
                    return error.ffmpegError?.code ?? cffmpeg_averror(EIO)
                }
            }
            switch advance() {
            case .data: continue
            case .ended:
                ended = true
                return FFmpegError.endOfFile
            case .failed(let error):
                // An error, not an end: the player reconnects and says why (`FormatContext.inputFailure`).
                failure = error
                return error.ffmpegError?.code ?? cffmpeg_averror(EIO)
            case .wait:
                guard gate.sleep(seconds: DASHSegmentFeed.waitInterval) else { return cffmpeg_averror_exit() }
                refreshManifest()
            case .backOff(let seconds):
                // Asked again after the wait, with what the manifest lists then.
                guard gate.sleep(seconds: seconds) else { return cffmpeg_averror_exit() }
                refreshManifest()
            }
        }
        return fetched.copy(into: buffer, count: count)
    }

    /// `backOff`: a listed segment was not given; ask again after that many seconds (`PieceRetries`).
    private enum Step { case data, wait, backOff(Double), ended, failed(MediaError) }

    /// Fetches what comes next, if it is there.
    private func advance() -> Step {
        if initPending {
            initPending = false
            guard let template = representation.template.initialization else { return .data }
            guard let url = representation.url(template, segment: nil, manifestURL: manifestURL) else {
                return .failed(MediaError(.open, "the DASH manifest's initialization template cannot be read", cause: template))
            }
            return refusal(of: url).map { .failed($0) } ?? fetch(url)
        }
        guard let window = DASHLiveWindow(representation, manifest: manifest, unixNow: Date().timeIntervalSince1970 + clockOffset),
              let first = window.segments.first, let last = window.segments.last else {
            return manifest.isDynamic ? .wait : .ended
        }
        if next > last.number + DASHSegmentFeed.restartGap {
            // The publisher started again (its numbers went back): its new initialization and time
            // line need a new demuxer, which the player's reconnect opens near the new edge.
            return .failed(MediaError(.read, "the DASH publisher started again",
                                      cause: "segment \(next) is past the newest listed, \(last.number)"))
        }
        if next < first.number {
            // Fell out of the window (a long stall): go on near the edge. The timestamps jump,
            // which the player sees as a discontinuity and follows.
            next = window.start(behind: behind)?.number ?? first.number
            return .data
        }
        guard let segment = window.segments.first(where: { $0.number == next }) else {
            return manifest.isDynamic ? .wait : .ended
        }
        guard let template = representation.template.media,
              let url = representation.url(template, segment: segment, manifestURL: manifestURL) else {
            return .failed(MediaError(.open, "the DASH manifest's segment template cannot be read",
                                      cause: representation.template.media ?? "no media template"))
        }
        if let refusal = refusal(of: url) { return .failed(refusal) }
        guard case .failed(let error) = open(url) else { return .data }
        // Listed but not there (a publisher that lists a segment a moment before it has written
        // it, or one that removed it): asked again on a backoff, with the manifest read again; a
        // segment that keeps failing while later ones are listed is passed over, as a player
        // skips a damaged one; the feed gives up on a run of failures, saying what the server answered.
        switch retries.failed(url, error: error, secondsLeft: gate.secondsLeft, now: LiveEdge.now()) {
        case .giveUp(let failure): return .failed(failure)
        case .retry(let seconds):
            if retries.passesOver, segment.number < last.number {
                next += 1
                retries.passedOver()
            }
            return .backOff(seconds)
        }
    }

    /// Why `url` may not be fetched (`segmentRefusal`).
    private func refusal(of url: String) -> MediaError? {
        segmentRefusal(of: url, piece: "a DASH segment", protocols: protocols)
    }

    /// The whole body of `url` into the buffer.
    private func fetch(_ url: String) -> Step {
        do {
            let stream = try FeedPageStream(url: url, timeout: timeout, gate: gate)
            defer { stream.close() }
            fetched.replace(with: Array(try stream.readAll(limit: DASHSegmentFeed.segmentLimit)))
            return .data
        } catch {
            return .failed(error)
        }
    }

    /// Opens the media segment at `url`, to be read as its bytes come (`readChunk`).
    private func open(_ url: String) -> Step {
        do {
            stream = try FeedPageStream(url: url, timeout: timeout, gate: gate)
            streamURL = url
            streamed = 0
            return .data
        } catch {
            return .failed(error)
        }
    }

    /// The next bytes of the segment being read, as soon as any have come; at its end, the next
    /// segment is the one to read.
    private func readChunk(from stream: FeedPageStream) -> Step {
        do {
            var chunk = try stream.readSome(limit: SegmentInput.bufferSize)
            if chunk.isEmpty {
                stream.close()
                self.stream = nil
                next += 1
                retries.arrived()
                resumeAfter = 0
                return .wait
            }
            if streamed == 0, resumeAfter == 0 { mediaPieces += 1 }
            streamed += chunk.count
            guard streamed <= DASHSegmentFeed.segmentLimit else {
                stream.close()
                self.stream = nil
                return .failed(MediaError(.read, "a DASH segment of more than \(DASHSegmentFeed.segmentLimit >> 20) MB"))
            }
            if streamed <= resumeAfter { return .wait }
            if streamed - chunk.count < resumeAfter { chunk.removeFirst(resumeAfter - (streamed - chunk.count)) }
            fetched.replace(with: chunk)
            return .data
        } catch {
            stream.close()
            self.stream = nil
            // A connection that broke in the middle of a segment: the segment is asked for again,
            // on the same backoff as a failed fetch, and read on from where the demuxer is; one
            // that keeps breaking is an error, and the player reconnects.
            resumeAfter = max(resumeAfter, streamed)
            switch retries.failed(streamURL, error: error, secondsLeft: gate.secondsLeft, now: LiveEdge.now()) {
            case .giveUp(let failure): return .failed(failure)
            case .retry(let seconds): return .backOff(seconds)
            }
        }
    }

    /// Reads the manifest again; keeps the one before when this read fails.
    private func refreshManifest() {
        guard let text = PlaylistWatch.fetchText(manifestURL, gate: gate, timeout: timeout),
              let fresh = DASHManifest(text: text) else { return }
        manifest = fresh
        if let same = fresh.representations.first(where: { $0.id == representation.id && $0.kind == representation.kind })
            ?? fresh.representations.first(where: { $0.kind == representation.kind }) {
            representation = same
        }
    }
}

extension DASHManifest {
    /// The video representation a viewer is shown: the one of the highest bandwidth, as FFmpeg
    /// picks its best video stream.
    var video: DASHRepresentation? {
        representations.filter { $0.kind == .video }.max { $0.bandwidth < $1.bandwidth }
    }

    /// The first audio representation.
    var audio: DASHRepresentation? { representations.first { $0.kind == .audio } }
}
