internal import CFFmpeg
import Foundation
import StoryMedia

/// A Low-Latency HLS media playlist (RFC 8216bis) as one byte stream for a demuxer: its
/// initialization section (`EXT-X-MAP`), then its parts in order, each fetched the moment the
/// publisher has written it.
///
/// Why not FFmpeg's HLS demuxer: FFmpeg 5.1's knows nothing of parts. It reads whole segments,
/// starts three of them behind the newest, and reloads the playlist on a timer, so a player
/// on it stays three target durations (3 s and more) behind. Here, as hls.js and AVPlayer do:
/// - the play starts at the independent part nearest `PART-HOLD-BACK` (or the storyboard's
///   target) behind the newest listed;
/// - the next part, while it is being written, is asked for through the playlist's
///   `EXT-X-PRELOAD-HINT`, which the server holds until the part is whole;
/// - otherwise the playlist is reloaded with `_HLS_msn`/`_HLS_part`, which the server holds until
///   that part is listed (`CAN-BLOCK-RELOAD`), or read again every half part target where it
///   cannot block; with `_HLS_skip=YES` where the server offers delta updates (`CAN-SKIP-UNTIL`),
///   the segments it leaves out filled from the reload before.
///
/// Used by one thread at a time (the demuxer's reads), and only from inside `av_read_frame`
/// or `avformat_open_input`, whose gate it shares: a wait for a part is a wait for data,
/// bounded by the same read timeout.
final class HLSPartFeed: SegmentFeed {
    private let playlistURL: String
    private(set) var playlist: HLSPlaylist
    private let gate: InterruptGate
    private let timeout: Double
    private let protocols: [String]
    /// How far behind the edge to start again after falling out of the playlist.
    private let behind: Double
    /// The place of the next piece to read.
    private(set) var next: HLSPlaylist.PartPosition
    private var initPending: Bool
    /// A part fetched through the preload hint before it was listed: its URL, looked for in the
    /// next reload to learn where it stood.
    private var fetchedHint: String?
    private var fetched = FetchedBytes()
    private(set) var failure: MediaError?
    private(set) var ended = false
    /// When a part listed but not given is asked for again, and when the feed gives up on it.
    private var retries: PieceRetries
    /// Parts (or whole segments) fetched so far, the initialization section not counted: until
    /// one has come, nothing of a picture has.
    private(set) var mediaPieces = 0
    /// When the playlist was last read (monotonic seconds): a delta update may be asked for only
    /// while that is less than half `CAN-SKIP-UNTIL` ago (RFC 8216bis, 6.2.5.1).
    private var lastRead: Double

    /// The most one piece (a part, or a whole segment) may weigh.
    static let pieceLimit = 256 << 20

    init(playlistURL: String, playlist: HLSPlaylist, start: HLSPlaylist.PartPosition, behind: Double,
         gate: InterruptGate, timeout: Double, protocols: [String]) {
        self.playlistURL = playlistURL
        self.playlist = playlist
        self.gate = gate
        self.timeout = timeout
        self.protocols = protocols
        self.behind = behind
        next = start
        initPending = playlist.mapURI != nil
        lastRead = LiveEdge.now()
        retries = PieceRetries(pieces: "LL-HLS parts", first: playlist.partTarget ?? playlist.targetDuration ?? 1)
    }

    // MARK: - Reading

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
        while fetched.isUsedUp {
            if gate.reason != nil { return cffmpeg_averror_exit() }
            // Given up: a demuxer that reads again after an error is told the same, not fetched for.
            if let failure { return failure.ffmpegError?.code ?? cffmpeg_averror(EIO) }
            switch advance() {
            case .data: continue
            case .ended:
                ended = true
                return FFmpegError.endOfFile
            case .failed(let error):
                failure = error
                return error.ffmpegError?.code ?? cffmpeg_averror(EIO)
            case .wait:
                guard gate.sleep(seconds: pollInterval) else { return cffmpeg_averror_exit() }
            case .backOff(let seconds):
                // Asked again after the wait, with what the playlist lists then: the piece may
                // have gone, and newer ones come.
                guard gate.sleep(seconds: seconds) else { return cffmpeg_averror_exit() }
                _ = reload(waitingFor: nil)
            }
        }
        return fetched.copy(into: buffer, count: count)
    }

    /// How long to wait before reading the playlist again when the server does not hold reloads:
    /// half a part target (RFC 8216bis, 6.3.4, for a playlist that did not change).
    private var pollInterval: Double { min(0.5, max(0.05, (playlist.partTarget ?? 1) / 2)) }

    /// `backOff`: a listed piece was not given; ask again after that many seconds (`PieceRetries`).
    private enum Step { case data, wait, backOff(Double), ended, failed(MediaError) }

    private func advance() -> Step {
        if initPending {
            initPending = false
            guard let map = playlist.mapURI else { return .data }
            return fetch(map)
        }
        if let hint = fetchedHint { return placeFetchedHint(hint) }
        let pieces = playlist.pieces
        guard let first = pieces.min(by: { $0.position < $1.position }) else {
            if playlist.hasEnded { return .ended }
            return reloadMovedOn(waitingFor: next) ? .data : .wait
        }
        if next < first.position {
            // Fell out of the playlist (a long stall): go on near the edge. The timestamps jump,
            // which the player sees as a discontinuity and follows.
            next = max(playlist.start(behind: behind)?.piece.position ?? first.position, first.position)
            return .data
        }
        if let piece = pieces.first(where: { $0.position == next }) {
            if piece.gap {
                // A part the publisher could not make is never asked for (RFC 8216bis, 6.3.7).
                next = after(piece)
                return .data
            }
            return fetchListed(piece, newest: pieces.last)
        }
        if let segment = playlist.segments.first(where: { $0.sequence == next.sequence }) {
            // The segment is whole now: past its last part (or listed without its parts, whose
            // bytes this play has partly read) the next piece is the following segment's first.
            if next.part >= segment.parts.count || segment.parts.isEmpty {
                next = HLSPlaylist.PartPosition(sequence: next.sequence + 1, part: 0)
                return .data
            }
        }
        if playlist.hasEnded { return .ended }
        if next == playlist.nextPosition, let hint = playlist.preloadHint { return fetchHinted(hint) }
        if next.sequence > playlist.nextSequence + 2 {
            // The playlist's numbers went back (a publisher that started again): its new time line
            // needs a new demuxer, which the player's reconnect opens near the new edge.
            return .failed(MediaError(.read, "the HLS publisher started again",
                                      cause: "segment \(next.sequence) is past the newest listed, \(playlist.nextSequence)"))
        }
        if next < playlist.nextPosition, let later = pieces.first(where: { $0.position > next }) {
            // A place the playlist never listed (a publisher that started its numbers again, a
            // segment that closed early): on at the next listed piece a decoder can start at.
            next = pieces.first(where: { $0.position > next && $0.independent && !$0.gap })?.position ?? later.position
            return .data
        }
        return reloadMovedOn(waitingFor: next) ? .data : .wait
    }

    /// Where the hinted part just read stood: the reload is held until the place it was fetched
    /// for is listed; it is found there by its URL, or as the piece listed at that place.
    private func placeFetchedHint(_ hint: String) -> Step {
        guard reload(waitingFor: next) else { return .wait }
        let pieces = playlist.pieces
        if let piece = pieces.first(where: { resolved($0.uri) == hint }) ?? pieces.first(where: { $0.position == next }) {
            fetchedHint = nil
            next = after(piece)
            return .data
        }
        // Not listed yet (a server that does not hold reloads): asked again after a pause.
        return playlist.hasEnded ? .ended : .wait
    }

    /// The part the preload hint names, being written now: the server holds the request until
    /// the part is whole.
    private func fetchHinted(_ hint: String) -> Step {
        guard let url = resolved(hint) else { return .failed(refused(hint)) }
        if let refusal = refusal(of: url) { return .failed(refusal) }
        switch fetch(url: url) {
        case .data where fetched.count > 0:
            arrived()
            fetchedHint = url
            return .data
        default:
            return reloadMovedOn(waitingFor: next) ? .data : .wait
        }
    }

    /// Fetches `piece`, which the playlist lists (`newest` the last it lists). One listed but not
    /// there (gone, or not yet whole) is asked for again on a backoff; one that keeps failing
    /// while newer pieces are listed is passed over, as a player skips a damaged one; the feed
    /// gives up on a run of failures, saying what the server answered (`PieceRetries`).
    private func fetchListed(_ piece: HLSPlaylist.Piece, newest: HLSPlaylist.Piece?) -> Step {
        guard let url = resolved(piece.uri) else { return .failed(refused(piece.uri)) }
        if let refusal = refusal(of: url) { return .failed(refusal) }
        guard case .failed(let error) = fetch(url: url) else {
            arrived()
            next = after(piece)
            return .data
        }
        switch retries.failed(url, error: error, secondsLeft: gate.secondsLeft, now: LiveEdge.now()) {
        case .giveUp(let failure): return .failed(failure)
        case .retry(let seconds):
            if retries.passesOver, let newest, piece.position < newest.position {
                next = after(piece)
                retries.passedOver()
            }
            return .backOff(seconds)
        }
    }

    /// The place after `piece`: the next part of its segment, or the next segment's first.
    private func after(_ piece: HLSPlaylist.Piece) -> HLSPlaylist.PartPosition {
        let position = piece.position
        if piece.isWholeSegment { return HLSPlaylist.PartPosition(sequence: position.sequence + 1, part: 0) }
        if let segment = playlist.segments.first(where: { $0.sequence == position.sequence }), position.part + 1 >= segment.parts.count {
            return HLSPlaylist.PartPosition(sequence: position.sequence + 1, part: 0)
        }
        return HLSPlaylist.PartPosition(sequence: position.sequence, part: position.part + 1)
    }

    /// A part came whole: it counts, and the next failure starts the backoff again.
    private func arrived() {
        if fetched.count > 0 { mediaPieces += 1 }
        retries.arrived()
    }

    // MARK: - The network

    /// Reloads (held by the server where it can be) and says whether the playlist moved on: a
    /// server that answers at once with nothing new is waited for, not asked again in a loop.
    private func reloadMovedOn(waitingFor position: HLSPlaylist.PartPosition) -> Bool {
        let before = (playlist.nextPosition, playlist.hasEnded)
        guard reload(waitingFor: position) else { return false }
        return playlist.nextPosition != before.0 || playlist.hasEnded != before.1
    }

    /// Reads the playlist again, held by the server until `position` is listed where it can;
    /// false when the read failed. A delta update is asked for while the playlist read before is
    /// recent enough to fill it; one it cannot fill is read again whole.
    private func reload(waitingFor position: HLSPlaylist.PartPosition?) -> Bool {
        let recent = playlist.serverControl.canSkipUntil.map { LiveEdge.now() - lastRead < $0 / 2 } ?? false
        for skip in recent ? [true, false] : [false] {
            let url = playlist.reloadURL(playlistURL, waitingFor: position, skip: skip)
            guard let text = PlaylistWatch.fetchText(url, gate: gate, timeout: timeout), let fresh = HLSPlaylist(text: text) else {
                return false
            }
            guard let whole = fresh.filling(skippedFrom: playlist) else { continue }
            playlist = whole
            lastRead = LiveEdge.now()
            return true
        }
        return false
    }

    /// A URI of the playlist's, made whole against it; nil for one a playlist from the network
    /// may not name (a local file).
    private func resolved(_ uri: String) -> String? {
        PlaylistWatch.resolve(uri, against: playlistURL)
    }

    private func refused(_ uri: String) -> MediaError {
        MediaError(.open, "refused an HLS part at \(uri)", cause: "a playlist from the network may name only network URLs")
    }

    /// Why `url` may not be fetched (`segmentRefusal`).
    private func refusal(of url: String) -> MediaError? {
        segmentRefusal(of: url, piece: "an HLS part", protocols: protocols)
    }

    /// The whole body of `uri` (the initialization section, relative to the playlist) into the buffer.
    private func fetch(_ uri: String) -> Step {
        guard let url = resolved(uri) else { return .failed(refused(uri)) }
        if let refusal = refusal(of: url) { return .failed(refusal) }
        return fetch(url: url)
    }

    /// The whole body of `url` into the buffer.
    private func fetch(url: String) -> Step {
        do {
            let stream = try FeedPageStream(url: url, timeout: timeout, gate: gate)
            defer { stream.close() }
            fetched.replace(with: Array(try stream.readAll(limit: HLSPartFeed.pieceLimit)))
            return .data
        } catch {
            return .failed(error)
        }
    }
}
