internal import CFFmpeg
import Foundation

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
    /// A part fetched through the preload hint before it was listed: its URI, looked for in the
    /// next reload to learn where it stood.
    private var fetchedHint: String?
    private var bytes: [UInt8] = []
    private var position = 0
    private(set) var failure: MediaError?
    private(set) var ended = false
    /// How the pieces came, for the tests and the trace: through a preload hint, listed.
    private(set) var hintedReads = 0
    private(set) var listedReads = 0
    /// Reloads the server held (`_HLS_msn`), and delta updates taken (`_HLS_skip`).
    private(set) var blockingReloads = 0
    private(set) var deltaUpdates = 0
    /// Failed fetches in a row.
    private var failedFetches = 0

    /// Fetches of a listed piece that may fail in a row before it is passed over.
    static let fetchAttempts = 10
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
    }

    // MARK: - Reading

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
        while position >= bytes.count {
            if gate.reason != nil { return cffmpeg_averror_exit() }
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
            }
        }
        let copied = min(count, bytes.count - position)
        bytes.withUnsafeBufferPointer { source in
            buffer.update(from: source.baseAddress! + position, count: copied)
        }
        position += copied
        return Int32(copied)
    }

    /// How long to wait before reading the playlist again when the server does not hold reloads:
    /// half a part target (RFC 8216bis, 6.3.4, for a playlist that did not change).
    private var pollInterval: Double { min(0.5, max(0.05, (playlist.partTarget ?? 1) / 2)) }

    private enum Step { case data, wait, ended, failed(MediaError) }

    private func advance() -> Step {
        if initPending {
            initPending = false
            guard let map = playlist.mapURI else { return .data }
            return fetch(map)
        }
        if let hint = fetchedHint {
            // Where did the hinted part stand? The reload is held until the place it was fetched
            // for is listed; it is found there by its URI.
            guard reload(waitingFor: next) else { return .wait }
            guard let piece = playlist.pieces.first(where: { $0.uri == hint }) else {
                // Listed under another name, or never: the playlist decides what comes next.
                fetchedHint = nil
                return playlist.hasEnded ? .ended : .data
            }
            fetchedHint = nil
            next = after(piece)
            return .data
        }
        let pieces = playlist.pieces
        guard let first = pieces.first else {
            if playlist.hasEnded { return .ended }
            return reloadMovedOn(waitingFor: next) ? .data : .wait
        }
        if next < first.position {
            // Fell out of the playlist (a long stall): go on near the edge. The timestamps jump,
            // which the player sees as a discontinuity and follows.
            next = playlist.start(behind: behind)?.piece.position ?? first.position
            return .data
        }
        if let piece = pieces.first(where: { $0.position == next }) {
            switch fetch(piece.uri) {
            case .data:
                listedReads += 1
                failedFetches = 0
                next = after(piece)
                return .data
            default:
                // Listed but not there (gone, or not yet whole): try again; one that keeps failing
                // while newer pieces are listed is passed over, as a player skips a damaged one.
                failedFetches += 1
                if failedFetches >= HLSPartFeed.fetchAttempts, piece.position < pieces[pieces.count - 1].position {
                    next = after(piece)
                    failedFetches = 0
                }
                _ = reload(waitingFor: nil)
                return .wait
            }
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
        if next == playlist.nextPosition, let hint = playlist.preloadHint {
            // Being written now: the server holds the request until the part is whole.
            switch fetch(hint) {
            case .data:
                hintedReads += 1
                fetchedHint = hint
                return .data
            default:
                return reloadMovedOn(waitingFor: next) ? .data : .wait
            }
        }
        return reloadMovedOn(waitingFor: next) ? .data : .wait
    }

    /// Reloads (held by the server where it can be) and says whether the playlist moved on: a
    /// server that answers at once with nothing new is waited for, not asked again in a loop.
    private func reloadMovedOn(waitingFor position: HLSPlaylist.PartPosition) -> Bool {
        let before = (playlist.nextPosition, playlist.hasEnded)
        guard reload(waitingFor: position) else { return false }
        return playlist.nextPosition != before.0 || playlist.hasEnded != before.1
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

    // MARK: - The network

    /// Reads the playlist again, held by the server until `position` is listed where it can;
    /// false when the read failed.
    private func reload(waitingFor position: HLSPlaylist.PartPosition?) -> Bool {
        let url = playlist.reloadURL(playlistURL, waitingFor: position, skip: true)
        guard let text = PlaylistWatch.fetchText(url, gate: gate, timeout: timeout), let fresh = HLSPlaylist(text: text) else {
            return false
        }
        if url != playlistURL, playlist.serverControl.canBlockReload, position != nil { blockingReloads += 1 }
        if fresh.skippedSegments > 0 { deltaUpdates += 1 }
        playlist = fresh.filling(skippedFrom: playlist)
        return true
    }

    /// Why `url` may not be fetched: a playlist may name parts anywhere, but only through the
    /// protocols the storyboard allows its source.
    private func refusal(of url: String) -> MediaError? {
        guard let scheme = URL(string: url)?.scheme?.lowercased(), protocols.contains(scheme) else {
            return MediaError(.open, "refused an HLS part at \(url)", cause: "the storyboard's protocols do not allow it")
        }
        return nil
    }

    /// The whole body of `uri` (relative to the playlist) into the buffer.
    private func fetch(_ uri: String) -> Step {
        guard let url = PlaylistWatch.resolve(uri, against: playlistURL) else {
            return .failed(MediaError(.open, "refused an HLS part at \(uri)", cause: "a playlist from the network may name only network URLs"))
        }
        if let refusal = refusal(of: url) { return .failed(refusal) }
        do {
            let stream = try FeedPageStream(url: url, timeout: timeout, gate: gate)
            defer { stream.close() }
            bytes = Array(try stream.readAll(limit: HLSPartFeed.pieceLimit))
            position = 0
            return .data
        } catch {
            return .failed(error)
        }
    }
}
